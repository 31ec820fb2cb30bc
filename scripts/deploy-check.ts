/**
 * The role check: `npm run deploy:check -- --network <localhost|baseSepolia>`. Reads deployments/<chainId>.json
 * (DEPLOYMENTS_DIR) and the network's parameters (DEPLOY_PARAMETERS, else ignition/parameters/<network>.json5), then
 * every role holder, role admin, delay, threshold and setting from the chain, prints each beside what the table of
 * docs/deploy.md intends, and exits non-zero on any difference, naming it. Sends no transaction.
 */
import hre from "hardhat";
import { join } from "node:path";
import { auditDeployment, formatAudit } from "../deploy/audit";
import { readDeployment } from "../deploy/deploymentFile";
import { readParameters } from "../deploy/parameters";

async function main(): Promise<void> {
  const network = hre.network.name === "hardhat" ? "localhost" : hre.network.name;
  const parametersFile =
    process.env.DEPLOY_PARAMETERS ?? join(hre.config.paths.ignition, "parameters", `${network}.json5`);
  const outDir = process.env.DEPLOYMENTS_DIR ?? "deployments";
  const chainId = Number((await hre.ethers.provider.getNetwork()).chainId);
  const file = readDeployment(outDir, chainId);
  if (!file) throw new Error(`no deployment file for chain ${chainId} in ${outDir}`);
  const result = await auditDeployment(hre.ethers.provider, file, await readParameters(parametersFile));
  console.log(formatAudit(result));
  if (result.differences.length > 0) {
    console.error(`\n${result.differences.length} difference(s) from the intended table (docs/deploy.md):`);
    for (const difference of result.differences) console.error(`  ${difference}`);
    process.exitCode = 1;
    return;
  }
  console.log(`\nrole check passed: ${result.checked} roles, admins and settings on chain ${chainId} as intended`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `role check failed: ${error.message}` : error);
  process.exitCode = 1;
});
