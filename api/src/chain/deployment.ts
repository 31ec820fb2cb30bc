import { readFile } from "node:fs/promises";
import path from "node:path";
import { getAddress, isAddress } from "ethers";
import { z } from "zod";
import { VAULT_IDS } from "../domain/model";

/**
 * The deployment file `deployments/<chainId>.json`, written by the deploy entry and read here. The only source of
 * contract addresses for the API.
 */

const address = z
  .string()
  .refine((value) => isAddress(value), { message: "must be a 0x address" })
  .transform((value) => getAddress(value));

const deployed = z.object({ address, block: z.number().int().nonnegative() });

export const deploymentSchema = z.object({
  chainId: z.number().int().positive(),
  network: z.string().min(1),
  deployer: address,
  updatedAt: z.string().min(1),
  usdc: z.object({ address, deployedByUs: z.boolean() }),
  contracts: z.record(z.string(), deployed),
  vaults: z.partialRecord(z.enum(VAULT_IDS), deployed),
  roles: z.object({
    admin: address,
    relayer: address,
    guardians: z.array(address),
    oracles: z.array(address),
  }),
});

export type Deployment = z.infer<typeof deploymentSchema>;

export function defaultDeploymentFile(chainId: number): string {
  return path.resolve("deployments", `${chainId}.json`);
}

/** Reads and validates a deployment file; the error names the file and the bad field. */
export async function loadDeployment(file: string, expectedChainId: number): Promise<Deployment> {
  const text = await readFile(file, "utf8");
  const parsed = deploymentSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new Error(`Deployment file ${file} is invalid: ${problems}`);
  }
  if (parsed.data.chainId !== expectedChainId) {
    throw new Error(
      `Deployment file ${file} is for chain ${parsed.data.chainId}, but the RPC serves ${expectedChainId}`,
    );
  }
  return parsed.data;
}
