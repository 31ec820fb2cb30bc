/**
 * Deployment settings: one function turns the chain id, the environment and the dev accounts into every value the
 * deployment needs, so that scripts/deploy.ts and the tests share the same decisions (docs/deploy.md lists them).
 */
import { HDNodeWallet, getAddress, isAddress, parseEther, parseUnits } from "ethers";

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
  governor: {
    votingDelay: number;
    votingPeriod: number;
    proposalThreshold: bigint;
    quorumPercent: number;
    timelockDelay: number;
  };
  registry: {
    guardianThreshold: number;
    oracleThreshold: number;
    minPaperTradingPeriod: number;
  };
  faucet: { ethAmount: bigint; usdcAmount: bigint; cooldown: number };
  /** ETH sent on local chains so the faucet and the relayer can work (0: none). Topped up to these amounts. */
  funding: { faucetWei: bigint; relayerWei: bigint };
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

/**
 * Settings for `chainId`. `devAccounts` are the node's unlocked accounts ([0] is the deployer): on local chains
 * accounts 1-3 are the guardians and 4-6 the oracles unless GUARDIAN_ADDRESSES / ORACLE_ADDRESSES say otherwise;
 * on other chains those settings default to the deployer alone.
 */
export function settingsFor(chainId: number, network: string, env: Env, deployer: string, devAccounts: string[]) {
  const local = LOCAL_CHAIN_IDS.includes(chainId);
  const devGuardians = devAccounts.slice(1, 4);
  const devOracles = devAccounts.slice(4, 7);
  const guardians =
    addressList(env, "GUARDIAN_ADDRESSES") ?? (local && devGuardians.length > 0 ? devGuardians : [deployer]);
  const oracles = addressList(env, "ORACLE_ADDRESSES") ?? (local && devOracles.length > 0 ? devOracles : [deployer]);

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
    relayer: relayerAddress(env, local),
    guardians,
    oracles,
    token: {
      initialHolder: deployer,
      initialSupply: amount(env, "NAP_INITIAL_SUPPLY", parseEther("1000000"), (v) => parseEther(v)),
      cap: parseEther("1000000000"),
    },
    governor: {
      votingDelay: integer(env, "GOVERNOR_VOTING_DELAY", local ? 1 : 300),
      votingPeriod: integer(env, "GOVERNOR_VOTING_PERIOD", local ? 300 : 86_400),
      proposalThreshold: amount(env, "GOVERNOR_PROPOSAL_THRESHOLD", parseEther("1"), (v) => parseEther(v)),
      quorumPercent: integer(env, "GOVERNOR_QUORUM_PERCENT", 4),
      timelockDelay: integer(env, "TIMELOCK_MIN_DELAY", local ? 60 : 3_600),
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
  };
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
