import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ethers, network } from "hardhat";
import { deploySystem } from "../../../deploy/system";
import { settingsFor } from "../../../deploy/settings";
import { loadDeployment, type Deployment } from "../../../api/src/chain/deployment";

/**
 * Deploys the whole system with the project's deployment entry on the in-process Hardhat chain and returns the
 * deployment file as the API reads it (through its zod schema).
 */
export async function deployTestSystem(): Promise<Deployment> {
  const signers = await ethers.getSigners();
  const deployer = signers[0];
  const chainId = Number((await ethers.provider.getNetwork()).chainId);
  const settings = settingsFor(
    chainId,
    network.name,
    {},
    deployer.address,
    signers.map((s) => s.address),
  );
  const outDir = mkdtempSync(join(tmpdir(), "nap-api-deploy-"));
  try {
    await deploySystem({ deployer, settings, outDir });
    return await loadDeployment(join(outDir, `${chainId}.json`), chainId);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
