/**
 * Deploys the whole system with Hardhat Ignition: `npm run deploy -- --network <localhost|baseSepolia>`.
 * - parameters: DEPLOY_PARAMETERS, else ignition/parameters/<network>.json5 (the in-process `hardhat` network uses
 *   localhost.json5);
 * - Ignition's journal: DEPLOY_JOURNAL_DIR, else ignition/deployments/chain-<chainId> (a stopped run resumes there);
 * - the deployment file: DEPLOYMENTS_DIR (default deployments)/<chainId>.json.
 * The deployer key comes from Hardhat's configuration variables (`npx hardhat vars set DEPLOYER_PRIVATE_KEY`) on
 * public networks; docs/deploy.md is the runbook.
 */
import hre from "hardhat";
import { join } from "node:path";
import { deploySystem } from "../deploy/system";
import { defaultJournalDir } from "../deploy/journal";
import { readParameters } from "../deploy/parameters";

async function main(): Promise<void> {
  const network = hre.network.name === "hardhat" ? "localhost" : hre.network.name;
  const parametersFile =
    process.env.DEPLOY_PARAMETERS ?? join(hre.config.paths.ignition, "parameters", `${network}.json5`);
  const parameters = await readParameters(parametersFile);
  const chainId = Number((await hre.ethers.provider.getNetwork()).chainId);
  const file = await deploySystem({
    hre,
    parameters,
    journalDir: process.env.DEPLOY_JOURNAL_DIR ?? defaultJournalDir(hre.config.paths.ignition, chainId),
    outDir: process.env.DEPLOYMENTS_DIR ?? "deployments",
    log: (line) => console.log(line),
  });
  console.log(`parameters ${parametersFile}`);
  console.log(JSON.stringify(file, null, 2));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `deploy failed: ${error.message}` : error);
  process.exitCode = 1;
});
