/**
 * deployments/<chainId>.json: the addresses the API reads (api/src/chain/deployment.ts validates the same shape).
 * It is produced from the Ignition deployment (deploy/system.ts) and never edited by hand.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { VaultId } from "./vaults";

export interface DeployedAt {
  address: string;
  /** The block of the contract's creation. */
  block: number;
}

/** Names of the contracts listed under `contracts` in the deployment file (TestUSDC only when deployed). */
export const CONTRACT_NAMES = [
  "TestUSDC",
  "NapToken",
  "NapMinter",
  "TimelockController",
  "NapGovernor",
  "StrategyRegistryV3",
  "NapFaucet",
  "AgentBadges",
  "VaultLens",
  "NapRouter",
] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

export interface DeploymentFile {
  chainId: number;
  network: string;
  deployer: string;
  updatedAt: string;
  usdc: { address: string; deployedByUs: boolean };
  contracts: Partial<Record<ContractName, DeployedAt>>;
  vaults: Record<VaultId, DeployedAt>;
  roles: {
    admin: string;
    relayer: string;
    guardians: string[];
    oracles: string[];
    /** The governor's proposal guardian (may cancel any proposal before it executes). */
    proposalGuardian: string;
  };
}

export function deploymentPath(outDir: string, chainId: number): string {
  return join(outDir, `${chainId}.json`);
}

/** Reads the deployment file of `chainId`, or undefined if there is none (or it is for another chain). */
export function readDeployment(outDir: string, chainId: number): DeploymentFile | undefined {
  const path = deploymentPath(outDir, chainId);
  if (!existsSync(path)) return undefined;
  const parsed = JSON.parse(readFileSync(path, "utf8")) as DeploymentFile;
  return parsed.chainId === chainId ? parsed : undefined;
}

/**
 * Writes the file unless only `updatedAt` would change (a re-run that deployed nothing leaves it untouched and
 * returns the file as it was). Returns what the file holds.
 */
export function writeDeployment(outDir: string, file: DeploymentFile, log: (line: string) => void): DeploymentFile {
  const path = deploymentPath(outDir, file.chainId);
  const previous = readDeployment(outDir, file.chainId);
  if (previous && JSON.stringify({ ...previous, updatedAt: "" }) === JSON.stringify({ ...file, updatedAt: "" })) {
    log(`unchanged ${path}`);
    return previous;
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path, JSON.stringify(file, null, 2) + "\n");
  log(`wrote   ${path}`);
  return file;
}
