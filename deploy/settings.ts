/**
 * Deployment settings: one function turns the chain id, the environment and the dev accounts into every value the
 * deployment needs, so that scripts/deploy.ts and the tests share the same decisions (docs/deploy.md lists them).
 */
import { HDNodeWallet, getAddress, isAddress, parseEther, parseUnits } from "ethers";
import { vaultConfigs } from "./vaults";

/** Circle's USDC on Base Sepolia (used instead of deploying TestUSDC there). */
export const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
export const BASE_SEPOLIA_CHAIN_ID = 84532;
/** Chains where the deployment owns everything and funds accounts from the dev accounts. */
export const LOCAL_CHAIN_IDS: readonly number[] = [31337, 1337];
/** Public dev mnemonic of the service's server wallets on local chains (never for a real chain). */
export const DEV_SERVER_WALLET_MNEMONIC =
  "myth like bonus scare over problem client lizard pioneer submit female collect";
/** Derivation path of the service relayer (faucet dripper, 7540 fulfiller, badge minter, screening bot). */
export const RELAYER_PATH = "m/44'/60'/0'/0/0";
/**
 * Time a holder needs beyond a vault's fulfilment delay to leave before a queued proposal executes: to see the
 * proposal queued and ask to redeem, and for a permissionless fulfilment after the fulfiller's grace period if the
 * fulfiller (the relayer) does not act. The timelock delay must be at least the longest fulfilment delay plus this.
 */
export const EXIT_MARGIN_SECONDS = 86_400;

/** The longest fulfilment delay of the vaults the deployment creates (deploy/vaults.ts), in seconds. */
export function maxFulfillmentDelay(): number {
  return Math.max(...Object.values(vaultConfigs).map((config) => config.fulfillmentDelay));
}

export interface SystemSettings {
  chainId: number;
  network: string;
  local: boolean;
  /** Existing USDC to use; undefined: deploy TestUSDC (and let the faucet mint it). */
  usdc?: string;
  relayer: string;
  guardians: string[];
  oracles: string[];
  token: { initialHolder: string; initialSupply: bigint; cap: bigint };
  /** NapMinter: the relayer mints NAP grants through it, at most `budget` (base units) per `period` seconds. */
  minter: { budget: bigint; period: number };
  governor: {
    votingDelay: number;
    votingPeriod: number;
    proposalThreshold: bigint;
    quorumPercent: number;
    timelockDelay: number;
    /** The proposal guardian: may cancel any proposal before it executes. */
    guardian: string;
  };
  registry: {
    guardianThreshold: number;
    oracleThreshold: number;
    minPaperTradingPeriod: number;
  };
  faucet: { ethAmount: bigint; usdcAmount: bigint; cooldown: number };
  /** ETH sent on local chains so the faucet and the relayer can work (0: none). Topped up to these amounts. */
  funding: { faucetWei: bigint; relayerWei: bigint };
  /** Choices that are allowed but weaken the deployment; the deployment prints each as a WARNING. */
  warnings: string[];
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function amount(env: Env, name: string, fallback: bigint, parse: (v: string) => bigint): bigint {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  try {
    return parse(raw);
  } catch {
    throw new Error(`${name} must be a decimal amount, got "${raw}"`);
  }
}

function addressList(env: Env, name: string): string[] | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  return raw.split(",").map((part) => {
    const value = part.trim();
    if (!isAddress(value)) throw new Error(`${name} holds an invalid address: "${value}"`);
    return getAddress(value);
  });
}

/** Majority of n (k of n with k = floor(n/2) + 1). */
export function majority(n: number): number {
  return Math.floor(n / 2) + 1;
}

/**
 * The relayer's address: SERVICE_RELAYER_ADDRESS if set, else derived from SERVER_WALLET_MNEMONIC at RELAYER_PATH
 * (on local chains the public dev mnemonic stands in). The key itself is never kept.
 */
export function relayerAddress(env: Env, local: boolean): string {
  const explicit = env.SERVICE_RELAYER_ADDRESS;
  if (explicit) {
    if (!isAddress(explicit)) throw new Error(`SERVICE_RELAYER_ADDRESS is not an address: "${explicit}"`);
    return getAddress(explicit);
  }
  const mnemonic = env.SERVER_WALLET_MNEMONIC ?? (local ? DEV_SERVER_WALLET_MNEMONIC : undefined);
  if (!mnemonic) throw new Error("Set SERVICE_RELAYER_ADDRESS or SERVER_WALLET_MNEMONIC to name the service relayer");
  return HDNodeWallet.fromPhrase(mnemonic, undefined, RELAYER_PATH).address;
}

/** An address list from the environment; on local chains the dev accounts stand in, elsewhere it is required. */
function roleList(env: Env, name: string, what: string, chainId: number, local: boolean, dev: string[]): string[] {
  const listed = addressList(env, name);
  if (listed) return listed;
  if (local && dev.length > 0) return dev;
  throw new Error(
    `${name} must name the ${what} on chain ${chainId}: a public deployment does not default to the deployer ` +
      "alone (docs/deploy.md)",
  );
}

/**
 * Settings for `chainId`. `devAccounts` are the node's unlocked accounts ([0] is the deployer): on local chains
 * accounts 1-3 are the guardians and 4-6 the oracles unless GUARDIAN_ADDRESSES / ORACLE_ADDRESSES say otherwise;
 * on other chains those settings are required. Refuses settings that would let the relayer's hot key decide
 * anything (guardian, oracle, proposal guardian) and a timelock delay too short for holders to leave the vaults.
 */
export function settingsFor(chainId: number, network: string, env: Env, deployer: string, devAccounts: string[]) {
  const local = LOCAL_CHAIN_IDS.includes(chainId);
  const guardians = roleList(env, "GUARDIAN_ADDRESSES", "registry guardians", chainId, local, devAccounts.slice(1, 4));
  const oracles = roleList(env, "ORACLE_ADDRESSES", "registry oracles", chainId, local, devAccounts.slice(4, 7));
  const relayer = relayerAddress(env, local);
  let governorGuardian = guardians[0];
  if (env.GOVERNOR_GUARDIAN_ADDRESS) {
    if (!isAddress(env.GOVERNOR_GUARDIAN_ADDRESS)) {
      throw new Error(`GOVERNOR_GUARDIAN_ADDRESS is not an address: "${env.GOVERNOR_GUARDIAN_ADDRESS}"`);
    }
    governorGuardian = getAddress(env.GOVERNOR_GUARDIAN_ADDRESS);
  }

  let usdc: string | undefined;
  if (env.USDC_ADDRESS) {
    if (!isAddress(env.USDC_ADDRESS)) throw new Error(`USDC_ADDRESS is not an address: "${env.USDC_ADDRESS}"`);
    usdc = getAddress(env.USDC_ADDRESS);
  } else if (chainId === BASE_SEPOLIA_CHAIN_ID) {
    usdc = BASE_SEPOLIA_USDC;
  }

  const settings: SystemSettings = {
    chainId,
    network,
    local,
    usdc,
    relayer,
    guardians,
    oracles,
    token: {
      initialHolder: deployer,
      initialSupply: amount(env, "NAP_INITIAL_SUPPLY", parseEther("1000000"), (v) => parseEther(v)),
      cap: parseEther("1000000000"),
    },
    minter: {
      budget: amount(env, "NAP_MINTER_BUDGET", parseEther("10000"), (v) => parseEther(v)),
      period: integer(env, "NAP_MINTER_PERIOD_SECONDS", 86_400),
    },
    governor: {
      votingDelay: integer(env, "GOVERNOR_VOTING_DELAY", local ? 1 : 300),
      votingPeriod: integer(env, "GOVERNOR_VOTING_PERIOD", local ? 300 : 86_400),
      proposalThreshold: amount(env, "GOVERNOR_PROPOSAL_THRESHOLD", parseEther("1"), (v) => parseEther(v)),
      quorumPercent: integer(env, "GOVERNOR_QUORUM_PERCENT", 4),
      timelockDelay: integer(env, "TIMELOCK_MIN_DELAY", maxFulfillmentDelay() + EXIT_MARGIN_SECONDS),
      guardian: governorGuardian,
    },
    registry: {
      guardianThreshold: integer(env, "REGISTRY_GUARDIAN_THRESHOLD", majority(guardians.length)),
      oracleThreshold: integer(env, "REGISTRY_ORACLE_THRESHOLD", majority(oracles.length)),
      minPaperTradingPeriod: integer(env, "REGISTRY_MIN_PAPER_TRADING_SECONDS", local ? 60 : 86_400),
    },
    faucet: {
      ethAmount: amount(env, "FAUCET_ETH_AMOUNT", parseEther(local ? "0.05" : "0.001"), (v) => parseEther(v)),
      usdcAmount: amount(env, "FAUCET_USDC_AMOUNT", usdc ? 0n : parseUnits("1000", 6), (v) => parseUnits(v, 6)),
      cooldown: integer(env, "FAUCET_COOLDOWN_SECONDS", 86_400),
    },
    funding: {
      faucetWei: local ? amount(env, "FAUCET_FUNDING_ETH", parseEther("100"), (v) => parseEther(v)) : 0n,
      relayerWei: local ? amount(env, "RELAYER_FUNDING_ETH", parseEther("100"), (v) => parseEther(v)) : 0n,
    },
    warnings: [],
  };
  checkSafety(settings);
  if (settings.registry.guardianThreshold > guardians.length) {
    throw new Error(
      `REGISTRY_GUARDIAN_THRESHOLD ${settings.registry.guardianThreshold} > ${guardians.length} guardians`,
    );
  }
  if (settings.registry.oracleThreshold > oracles.length) {
    throw new Error(`REGISTRY_ORACLE_THRESHOLD ${settings.registry.oracleThreshold} > ${oracles.length} oracles`);
  }
  return settings;
}

/** Refuses what hands a decision to the relayer's hot key or outruns the holders' exit; collects the warnings. */
function checkSafety(settings: SystemSettings): void {
  const { relayer, guardians, oracles, governor, registry } = settings;
  if (governor.guardian === relayer) throw new Error("GOVERNOR_GUARDIAN_ADDRESS must not be the relayer (a hot key)");
  if (guardians.includes(relayer)) throw new Error("GUARDIAN_ADDRESSES must not include the relayer (a hot key)");
  if (oracles.includes(relayer)) throw new Error("ORACLE_ADDRESSES must not include the relayer (a hot key)");
  const longest = maxFulfillmentDelay();
  if (governor.timelockDelay < longest + EXIT_MARGIN_SECONDS) {
    throw new Error(
      `TIMELOCK_MIN_DELAY ${governor.timelockDelay} is shorter than the longest vault fulfilment delay ` +
        `(${longest} s) plus the exit margin (${EXIT_MARGIN_SECONDS} s): holders could not leave before a ` +
        "proposal executes",
    );
  }
  if (settings.local) return;
  if (guardians.length === 1 || registry.guardianThreshold === 1) {
    settings.warnings.push(
      `one guardian vote decides a strategy review (${guardians.length} guardian(s), threshold ` +
        `${registry.guardianThreshold}): set GUARDIAN_ADDRESSES and REGISTRY_GUARDIAN_THRESHOLD for a k-of-n review`,
    );
  }
  if (oracles.length === 1 || registry.oracleThreshold === 1) {
    settings.warnings.push(
      `one oracle vote makes a strategy live (${oracles.length} oracle(s), threshold ${registry.oracleThreshold}): ` +
        "set ORACLE_ADDRESSES and REGISTRY_ORACLE_THRESHOLD for a k-of-n approval",
    );
  }
}
