/**
 * Deployment parameters: one JSON5 file per network (ignition/parameters/<network>.json5), in Hardhat Ignition's
 * parameter format (a section per module, big integers written as "123n"). This module reads a file, validates every
 * field (errors name it, e.g. `Governance.timelockMinDelay`) and refuses values that would hand a decision to a hot
 * key or outrun the holders' exit; the Ignition modules are built from the validated value.
 */
import { readDeploymentParameters } from "@nomicfoundation/hardhat-ignition/helpers";
import { ZeroAddress, getAddress, isAddress } from "ethers";
import { z } from "zod";
import { maxFulfillmentDelay } from "./vaults";

/** Circle's USDC on Base Sepolia. */
export const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
export const BASE_SEPOLIA_CHAIN_ID = 84532;
/** Chains where the deployment may own everything (dev accounts as guardians and oracles, TestUSDC, funding). */
export const LOCAL_CHAIN_IDS: readonly number[] = [31337, 1337];
/**
 * Time a holder needs beyond a vault's fulfilment delay to leave before a queued proposal executes: to see the
 * proposal queued and ask to redeem, and for a permissionless fulfilment after the fulfiller's grace period if the
 * fulfiller (the relayer) does not act. The timelock delay must be at least the longest fulfilment delay plus this.
 */
export const EXIT_MARGIN_SECONDS = 86_400;

const address = z
  .string()
  .refine((value) => isAddress(value), { message: "must be a 0x address" })
  .transform((value) => getAddress(value))
  .refine((value) => value !== ZeroAddress, { message: "must not be the zero address" });
const seconds = z.number().int().nonnegative();
/** A token amount in base units: "123n" in the file (Ignition's big integer notation), or a safe integer. */
const units = z
  .union([z.bigint(), z.number().int()])
  .transform((value) => BigInt(value))
  .refine((value) => value >= 0n, { message: "must not be negative" });
const count = z.number().int().min(1);

export const parametersSchema = z
  .object({
    Tokens: z
      .object({
        /** Existing USDC to use (Circle's on Base Sepolia); absent: deploy TestUSDC and let the faucet mint it. */
        usdc: address.optional(),
        napInitialSupply: units,
        napCap: units,
        /** NapMinter: the relayer mints NAP grants through it, at most `minterBudget` per `minterPeriod` seconds. */
        minterBudget: units,
        minterPeriod: seconds,
      })
      .strict(),
    Governance: z
      .object({
        timelockMinDelay: seconds,
        votingDelay: seconds,
        votingPeriod: seconds,
        proposalThreshold: units,
        quorumPercent: z.number().int().min(0).max(100),
        /** May cancel any proposal before it executes. */
        proposalGuardian: address,
      })
      .strict(),
    Registry: z
      .object({
        guardianThreshold: count,
        oracleThreshold: count,
        minPaperTradingPeriod: seconds,
      })
      .strict(),
    Faucet: z
      .object({
        ethAmount: units,
        usdcAmount: units,
        cooldown: seconds,
      })
      .strict(),
    Roles: z
      .object({
        /** The service's hot key (the API's server wallet at m/44'/60'/0'/0/0). */
        relayer: address,
        /** Registry guardians; the first is also every vault's GUARDIAN. */
        guardians: z.array(address).min(1),
        oracles: z.array(address).min(1),
      })
      .strict(),
    /** ETH the deployer sends once, e.g. on a local chain so that the faucet and the relayer can work. */
    Funding: z.object({ faucet: units, relayer: units }).strict().optional(),
  })
  .strict();

export type DeployParameters = z.infer<typeof parametersSchema>;

/** Thrown for a parameters file that cannot be deployed; the message names the file and every bad field. */
export class ParametersError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ParametersError";
  }
}

/** Validates parsed parameters (as Ignition reads them: big integers already BigInt). */
export function parseParameters(raw: unknown, source: string): DeployParameters {
  const parsed = parametersSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(file)"}: ${issue.message}`);
    throw new ParametersError(`${source}: ${problems.join("; ")}`);
  }
  return parsed.data;
}

/** Reads and validates a parameters file with Ignition's own reader (JSON5, "123n" big integers). */
export async function readParameters(file: string): Promise<DeployParameters> {
  return parseParameters(await readDeploymentParameters(file), file);
}

export function isLocalChain(chainId: number): boolean {
  return LOCAL_CHAIN_IDS.includes(chainId);
}

/**
 * Refuses what hands a decision to the relayer's hot key, leaves a public chain to the deployer's key alone, or
 * outruns the holders' exit; returns the choices that are allowed but weaken the deployment (printed as WARNINGs).
 */
export function checkParameters(p: DeployParameters, chainId: number, deployer: string): string[] {
  const { relayer, guardians, oracles } = p.Roles;
  const problems: string[] = [];
  if (p.Governance.proposalGuardian === relayer) {
    problems.push("Governance.proposalGuardian must not be the relayer (a hot key)");
  }
  if (guardians.includes(relayer)) problems.push("Roles.guardians must not include the relayer (a hot key)");
  if (oracles.includes(relayer)) problems.push("Roles.oracles must not include the relayer (a hot key)");
  for (const [name, list] of [
    ["Roles.guardians", guardians],
    ["Roles.oracles", oracles],
  ] as const) {
    const repeated = list.filter((entry, index) => list.indexOf(entry) !== index);
    if (repeated.length > 0) problems.push(`${name} lists ${repeated[0]} twice`);
  }
  const longest = maxFulfillmentDelay();
  if (p.Governance.timelockMinDelay < longest + EXIT_MARGIN_SECONDS) {
    problems.push(
      `Governance.timelockMinDelay ${p.Governance.timelockMinDelay} is shorter than the longest vault fulfilment ` +
        `delay (${longest} s) plus the exit margin (${EXIT_MARGIN_SECONDS} s): holders could not leave before a ` +
        "proposal executes",
    );
  }
  if (p.Registry.guardianThreshold > guardians.length) {
    problems.push(`Registry.guardianThreshold ${p.Registry.guardianThreshold} > ${guardians.length} guardians`);
  }
  if (p.Registry.oracleThreshold > oracles.length) {
    problems.push(`Registry.oracleThreshold ${p.Registry.oracleThreshold} > ${oracles.length} oracles`);
  }
  const warnings: string[] = [];
  if (!isLocalChain(chainId)) {
    const deployerKey = getAddress(deployer);
    for (const [name, list] of [
      ["Roles.guardians", guardians],
      ["Roles.oracles", oracles],
    ] as const) {
      if (list.length === 1 && list[0] === deployerKey) {
        problems.push(
          `${name} names only the deployer ${deployerKey} on chain ${chainId}: a public deployment does not leave ` +
            "reviews and approvals to the deployer's key alone (docs/deploy.md)",
        );
      }
    }
    if (guardians.length === 1 || p.Registry.guardianThreshold === 1) {
      warnings.push(
        `one guardian vote decides a strategy review (${guardians.length} guardian(s), threshold ` +
          `${p.Registry.guardianThreshold}): name more Roles.guardians and raise Registry.guardianThreshold`,
      );
    }
    if (oracles.length === 1 || p.Registry.oracleThreshold === 1) {
      warnings.push(
        `one oracle vote makes a strategy live (${oracles.length} oracle(s), threshold ` +
          `${p.Registry.oracleThreshold}): name more Roles.oracles and raise Registry.oracleThreshold`,
      );
    }
  }
  if (problems.length > 0) throw new ParametersError(problems.join("; "));
  return warnings;
}

/** JSON with big integers in Ignition's "123n" notation, so that the text reads back through readParameters. */
export function parametersToJson(p: DeployParameters): string {
  return JSON.stringify(p, (_key, value: unknown) => (typeof value === "bigint" ? `${value}n` : value), 2) + "\n";
}

/** Every leaf of the parameters as `Section.name` (list entries as `Section.name[i]`) and its printed value. */
export function flattenParameters(p: DeployParameters): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) {
      out.set(`${path}.length`, String(value.length));
      value.forEach((entry, index) => walk(entry, `${path}[${index}]`));
    } else if (value !== null && typeof value === "object") {
      for (const [key, entry] of Object.entries(value)) walk(entry, path ? `${path}.${key}` : key);
    } else if (value !== undefined) {
      out.set(path, String(value));
    }
  };
  walk(p, "");
  return out;
}
