import hre from "hardhat";
import { deploymentPath } from "../../../deploy/deploymentFile";
import { deploySystem } from "../../../deploy/system";
import { localParameters, workspace } from "../../deploy/helpers";
import { loadDeployment, type Deployment } from "../../../api/src/chain/deployment";

/**
 * Deploys the whole system with the project's deployment entry (Ignition, local parameters) on the in-process
 * Hardhat chain and returns the deployment file as the API reads it (through its zod schema).
 */
export async function deployTestSystem(): Promise<Deployment> {
  const work = workspace("api-deploy");
  try {
    const file = await deploySystem({ hre, parameters: await localParameters(), ...work });
    return await loadDeployment(deploymentPath(work.outDir, file.chainId), file.chainId);
  } finally {
    work.remove();
  }
}
