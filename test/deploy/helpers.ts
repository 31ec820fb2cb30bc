import hre from "hardhat";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DeploymentFile } from "../../deploy/deploymentFile";
import { readParameters, type DeployParameters } from "../../deploy/parameters";
import { deploySystem } from "../../deploy/system";

export const LOCAL_PARAMETERS = join(hre.config.paths.ignition, "parameters", "localhost.json5");
export const BASE_SEPOLIA_PARAMETERS = join(hre.config.paths.ignition, "parameters", "baseSepolia.json5");

export function localParameters(): Promise<DeployParameters> {
  return readParameters(LOCAL_PARAMETERS);
}

/** A scratch folder for one deployment: Ignition's journal and the deployment file. */
export interface Workspace {
  journalDir: string;
  outDir: string;
  remove(): void;
}

export function workspace(label: string): Workspace {
  const root = mkdtempSync(join(tmpdir(), `nap-${label}-`));
  return {
    journalDir: join(root, "ignition"),
    outDir: join(root, "deployments"),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The whole system on the in-process chain with the local parameters (or `parameters`), in its own workspace. */
export async function deployLocal(
  label: string,
  parameters?: DeployParameters,
): Promise<{ file: DeploymentFile; parameters: DeployParameters }> {
  const p = parameters ?? (await localParameters());
  const work = workspace(label);
  try {
    return {
      file: await deploySystem({ hre, parameters: p, journalDir: work.journalDir, outDir: work.outDir }),
      parameters: p,
    };
  } finally {
    work.remove();
  }
}
