/**
 * Deployment parameters: one JSON5 file per network (ignition/parameters/<network>.json5), in Hardhat Ignition's
 * parameter format (a section per module, big integers written as "123n"). This module reads a file, validates every
 * field (errors name it, e.g. `Governance.timelockMinDelay`) and refuses values that would hand a decision to a hot
 * key or outrun the holders' exit; the Ignition modules are built from the validated value.
 */
import { readDeploymentParameters } from "@nomicfoundation/hardhat-ignition/helpers";
import { HDNodeWallet, ZeroAddress, formatEther, getAddress, isAddress } from "ethers";
import { z } from "zod";
import { PUBLIC_DEV_ACCOUNTS_PER_PATH, PUBLIC_DEV_KEY_SOURCES } from "./devWallets";
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
/** NapMinter's bounds on its window (MIN_PERIOD, MAX_PERIOD): the constructor refuses any other period. */
export const MINTER_PERIOD_BOUNDS = { min: 3_600, max: 365 * 86_400 } as const;

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

let publicKeys: ReadonlyMap<string, string> | undefined;

/**
 * Every address of the public development mnemonics (PUBLIC_DEV_KEY_SOURCES, the first PUBLIC_DEV_ACCOUNTS_PER_PATH
 * accounts under each path), with where it comes from, e.g. `Hardhat's default mnemonic m/44'/60'/0'/0/3`.
 */
export function publicDevelopmentKeys(): ReadonlyMap<string, string> {
  if (publicKeys) return publicKeys;
  const keys = new Map<string, string>();
  for (const { name, mnemonic, parentPath } of PUBLIC_DEV_KEY_SOURCES) {
    const parent = HDNodeWallet.fromPhrase(mnemonic, undefined, parentPath);
    for (let index = 0; index < PUBLIC_DEV_ACCOUNTS_PER_PATH; index++) {
      const address = parent.deriveChild(index).address;
      if (!keys.has(address)) keys.set(address, `${name} ${parentPath}/${index}`);
    }
  }
  publicKeys = keys;
  return keys;
}

/** What the relayer's key could vote with by the end of one proposal, against what would pass it. */
export interface RelayerVoteBound {
  /** Governance.votingDelay + votingPeriod + timelockMinDelay: the time governance needs to take the role back. */
  span: number;
  /** Minter windows that span can touch, counted as NapMinter counts them (fixed windows). */
  windows: number;
  /** NAP the relayer can mint in those windows (within the cap). */
  mintable: bigint;
  /** NAP it holds from the deployment: the initial supply if it is also the deployer, else none. */
  held: bigint;
  votes: bigint;
  /** Total supply at the proposal's end: the initial supply plus everything mintable. */
  supply: bigint;
  /** The governor's quorum of that supply (GovernorVotesQuorumFraction rounds down). */
  quorum: bigint;
}

/**
 * The most the relayer can vote with if its key is stolen and used for one proposal from the start: it mints the
 * whole budget to itself in every window the proposal's delay, voting period and timelock delay touch (a span of T
 * seconds touches at most ceil(T / period) + 1 fixed windows).
 */
export function relayerVoteBound(p: DeployParameters, deployer: string): RelayerVoteBound {
  const { napInitialSupply, napCap, minterBudget, minterPeriod } = p.Tokens;
  const g = p.Governance;
  const span = g.votingDelay + g.votingPeriod + g.timelockMinDelay;
  const windows = Math.ceil(span / minterPeriod) + 1;
  const room = napCap > napInitialSupply ? napCap - napInitialSupply : 0n;
  const byBudget = minterBudget * BigInt(windows);
  const mintable = byBudget < room ? byBudget : room;
  const held = getAddress(deployer) === p.Roles.relayer ? napInitialSupply : 0n;
  const supply = napInitialSupply + mintable;
  return {
    span,
    windows,
    mintable,
    held,
    votes: held + mintable,
    supply,
    quorum: (supply * BigInt(g.quorumPercent)) / 100n,
  };
}

/** NAP base units as whole NAP with thousands separators ("40,000", "0.5"). */
function nap(units: bigint): string {
  const [whole, fraction] = formatEther(units).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === "0" ? grouped : `${grouped}.${fraction}`;
}

/** Refusals of the relayer's minting budget: its votes by the end of one proposal reach the quorum or a majority. */
function relayerBudgetProblems(p: DeployParameters, deployer: string): string[] {
  const { minterPeriod } = p.Tokens;
  if (minterPeriod < MINTER_PERIOD_BOUNDS.min || minterPeriod > MINTER_PERIOD_BOUNDS.max) {
    return [
      `Tokens.minterPeriod ${minterPeriod} is outside NapMinter's bounds (${MINTER_PERIOD_BOUNDS.min} to ` +
        `${MINTER_PERIOD_BOUNDS.max} s)`,
    ];
  }
  const b = relayerVoteBound(p, deployer);
  const figures =
    `Tokens.minterBudget ${nap(p.Tokens.minterBudget)} NAP per Tokens.minterPeriod ${minterPeriod} s lets the ` +
    `relayer (a hot key) mint ${nap(b.mintable)} NAP in the ${b.span} s of one proposal (Governance.votingDelay + ` +
    `votingPeriod + timelockMinDelay, ${b.windows} windows)` +
    (b.held > 0n ? ` on top of the ${nap(b.held)} NAP it holds as the deployer` : "") +
    `: ${nap(b.votes)} NAP of votes`;
  const problems: string[] = [];
  if (b.votes >= b.quorum) {
    problems.push(
      `${figures}, at least the quorum of ${nap(b.quorum)} NAP (Governance.quorumPercent ` +
        `${p.Governance.quorumPercent}% of a supply of ${nap(b.supply)} NAP): lower the budget, or raise the initial ` +
        "supply or the quorum",
    );
  }
  if (b.votes * 2n >= b.supply) {
    problems.push(
      `${figures}, at least half of a supply of ${nap(b.supply)} NAP (Tokens.napInitialSupply ` +
        `${nap(p.Tokens.napInitialSupply)} NAP + ${nap(b.mintable)} NAP minted): lower the budget or raise the ` +
        "initial supply",
    );
  }
  return problems;
}

/**
 * Refuses what hands a decision to the relayer's hot key, leaves a public chain to the deployer's key alone or to
 * keys anyone can sign with, lets one key veto its own replacement, or outruns the holders' exit; returns the choices
 * that are allowed but weaken the deployment (printed as WARNINGs).
 */
export function checkParameters(p: DeployParameters, chainId: number, deployer: string): string[] {
  const { relayer, guardians, oracles } = p.Roles;
  const problems: string[] = [];
  if (p.Governance.proposalGuardian === relayer) {
    problems.push("Governance.proposalGuardian must not be the relayer (a hot key)");
  }
  if (guardians.includes(relayer)) problems.push("Roles.guardians must not include the relayer (a hot key)");
  if (oracles.includes(relayer)) problems.push("Roles.oracles must not include the relayer (a hot key)");
  const seat = guardians.indexOf(p.Governance.proposalGuardian);
  if (seat !== -1) {
    // The proposal guardian cancels the proposal that would replace it; as a guardian it could also keep vaults or
    // strategies paused meanwhile. Two keys keep each power answerable to governance.
    problems.push(
      `Governance.proposalGuardian ${p.Governance.proposalGuardian} is also Roles.guardians[${seat}] ` +
        `(${seat === 0 ? "every vault's GUARDIAN and a registry guardian" : "a registry guardian"}): one key would ` +
        "cancel the proposals that replace it while it pauses; name another key for one of the roles",
    );
  }
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
  problems.push(...relayerBudgetProblems(p, deployer));
  const warnings: string[] = [];
  if (!isLocalChain(chainId)) {
    const known = publicDevelopmentKeys();
    const holders: [string, string][] = [
      ["Governance.proposalGuardian", p.Governance.proposalGuardian],
      ["Roles.relayer", relayer],
      ...guardians.map((key, i): [string, string] => [`Roles.guardians[${i}]`, key]),
      ...oracles.map((key, i): [string, string] => [`Roles.oracles[${i}]`, key]),
    ];
    for (const [role, key] of holders) {
      const source = known.get(key);
      if (source !== undefined) {
        problems.push(
          `${role} ${key} is a public development key (${source}): anyone can sign with it on chain ${chainId}, ` +
            `so only local chains (${LOCAL_CHAIN_IDS.join(", ")}) accept it`,
        );
      }
    }
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
