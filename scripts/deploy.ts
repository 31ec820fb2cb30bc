/**
 * Deploys the whole system: `npx hardhat run scripts/deploy.ts --network <localhost|hardhat|baseSepolia>`.
 * Settings come from the environment (docs/deploy.md); the result is deployments/<chainId>.json (or DEPLOYMENTS_DIR).
 * On a non-local chain with BASESCAN_API_KEY set, every contract deployed in this run is verified on Basescan.
 */
import hre from "hardhat";
import { deploySystem } from "../deploy/system";
import { settingsFor } from "../deploy/settings";

interface PendingVerification {
  name: string;
  address: string;
  constructorArguments: unknown[];
}

async function verifyAll(pending: PendingVerification[]): Promise<void> {
  for (const item of pending) {
    // Basescan indexes new bytecode with some delay; retry a few times before giving up on one contract.
    for (let attempt = 1; attempt <= 5; attempt++) {
      try {
        await hre.run("verify:verify", {
          address: item.address,
          constructorArguments: item.constructorArguments,
        });
        console.log(`verified ${item.name} at ${item.address}`);
        break;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (/already verified/i.test(message)) break;
        if (attempt === 5) {
          console.warn(`could not verify ${item.name} at ${item.address}: ${message}`);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 10_000 * attempt));
      }
    }
  }
}

async function main(): Promise<void> {
  const signers = await hre.ethers.getSigners();
  const deployer = signers[0];
  const chainId = Number((await hre.ethers.provider.getNetwork()).chainId);
  const settings = settingsFor(
    chainId,
    hre.network.name,
    process.env,
    deployer.address,
    signers.map((s) => s.address),
  );
  console.log(`deploying to ${hre.network.name} (chain ${chainId}) from ${deployer.address}`);
  const pending: PendingVerification[] = [];
  const verify = !settings.local && Boolean(process.env.BASESCAN_API_KEY);
  const file = await deploySystem({
    deployer,
    settings,
    outDir: process.env.DEPLOYMENTS_DIR ?? "deployments",
    log: (line) => console.log(line),
    onDeployed: async (name, address, constructorArguments) => {
      if (verify) pending.push({ name, address, constructorArguments });
    },
  });
  if (pending.length > 0) await verifyAll(pending);
  console.log(JSON.stringify(file, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
