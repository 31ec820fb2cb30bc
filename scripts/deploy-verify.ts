/**
 * Source verification: `npm run deploy:verify -- --network baseSepolia`. Verifies every contract of the Ignition
 * deployment (DEPLOY_JOURNAL_DIR, else ignition/deployments/chain-<chainId>) on Etherscan (API v2, one key:
 * `npx hardhat vars set ETHERSCAN_API_KEY`) and on Sourcify, with the compiler input and constructor arguments the
 * journal holds. DEPLOY_VERIFY_PLAN=1 only prints what it would submit (contract, address, endpoints, arguments),
 * without any request to an explorer.
 */
import hre from "hardhat";
import { defaultJournalDir } from "../deploy/journal";
import { explorerEndpoints, verificationTargets, verifyAll } from "../deploy/verify";

async function main(): Promise<void> {
  const chainId = Number((await hre.ethers.provider.getNetwork()).chainId);
  const journalDir = process.env.DEPLOY_JOURNAL_DIR ?? defaultJournalDir(hre.config.paths.ignition, chainId);
  const targets = await verificationTargets(hre, journalDir);
  const endpoints = await explorerEndpoints(hre.config, hre.network.name, hre.network.provider);
  console.log(
    `Etherscan ${endpoints.etherscan.apiUrl} (chainid=${endpoints.etherscan.chainId ?? "none: a v1 URL"}), ` +
      `Sourcify ${endpoints.sourcify.enabled ? endpoints.sourcify.apiUrl : "disabled"}`,
  );
  for (const target of targets) {
    console.log(`${target.futureId} ${target.contract} at ${target.address}`);
    console.log(`  constructor arguments ${JSON.stringify(target.constructorArguments)}`);
    console.log(`  ABI-encoded           0x${target.encodedArguments}`);
  }
  if (process.env.DEPLOY_VERIFY_PLAN) return;
  const failures = await verifyAll(hre, targets, journalDir, (line) => console.log(line));
  if (failures.length > 0) {
    console.error(`${failures.length} verification(s) failed; run again to retry them`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? `verification failed: ${error.message}` : error);
  process.exitCode = 1;
});
