/**
 * The six vaults: their configuration and their constructor arguments, in one place. The Ignition module
 * (ignition/modules/vaults.ts) deploys them from here; a change of the vault constructor is made in
 * `vaultConstructorArgs` alone.
 */
import type { Signer } from "ethers";
import { ConfigurableNapVault__factory, NapVault__factory, type NapVault } from "../typechain-types";

/** The API's vault identifiers, in the order the API lists them. */
export const VAULT_IDS = ["conservative", "moderate", "aggressive", "inverse", "hedged", "configurable"] as const;
export type VaultId = (typeof VAULT_IDS)[number];

/** Onchain enum INapVault.RiskLevel, in its order. */
export const RiskLevel = { CONSERVATIVE: 0, MODERATE: 1, AGGRESSIVE: 2 } as const;
export type RiskLevelName = keyof typeof RiskLevel;

const USDC = 10n ** 6n;
const HOUR = 3600;
const DAY = 24 * HOUR;

export interface VaultConfig {
  name: string;
  symbol: string;
  riskLevel: RiskLevelName;
  /** Annual management fee, basis points (contract bound 500). */
  managementFeeBps: number;
  /** Share of profit above the hurdle, basis points (contract bound 3,000). */
  performanceFeeBps: number;
  /** Annual hurdle rate, basis points (contract bound 2,000). */
  hurdleRateBps: number;
  /** Cap on totalAssets in 6-decimal units; null for no cap. */
  depositCap: bigint | null;
  /** Seconds over which a reported profit unlocks (1 hour .. 30 days). */
  profitUnlockPeriod: number;
  /** ERC-7540 asynchronous redemption. */
  async: boolean;
  /** Seconds before the fulfiller may fill a redeem request, anyone an hour later (0 if synchronous, <= 7 days). */
  fulfillmentDelay: number;
  /** Governance may change fees, cap, unlock period and delay (ConfigurableNapVault). */
  configurable: boolean;
}

/** Parameters of the six vaults; docs/vaults.md shows the same table. */
export const vaultConfigs: Readonly<Record<VaultId, VaultConfig>> = {
  conservative: {
    name: "NAP Conservative USDC",
    symbol: "napCONS",
    riskLevel: "CONSERVATIVE",
    managementFeeBps: 50,
    performanceFeeBps: 1_000,
    hurdleRateBps: 300,
    depositCap: 10_000_000n * USDC,
    profitUnlockPeriod: DAY,
    async: false,
    fulfillmentDelay: 0,
    configurable: false,
  },
  moderate: {
    name: "NAP Moderate USDC",
    symbol: "napMOD",
    riskLevel: "MODERATE",
    managementFeeBps: 100,
    performanceFeeBps: 1_500,
    hurdleRateBps: 500,
    depositCap: 5_000_000n * USDC,
    profitUnlockPeriod: 3 * DAY,
    async: false,
    fulfillmentDelay: 0,
    configurable: false,
  },
  aggressive: {
    name: "NAP Aggressive USDC",
    symbol: "napAGG",
    riskLevel: "AGGRESSIVE",
    managementFeeBps: 200,
    performanceFeeBps: 2_000,
    hurdleRateBps: 800,
    depositCap: 2_000_000n * USDC,
    profitUnlockPeriod: 7 * DAY,
    async: true,
    fulfillmentDelay: DAY,
    configurable: false,
  },
  inverse: {
    name: "NAP Inverse USDC",
    symbol: "napINV",
    riskLevel: "AGGRESSIVE",
    managementFeeBps: 200,
    performanceFeeBps: 2_000,
    hurdleRateBps: 0,
    depositCap: 1_000_000n * USDC,
    profitUnlockPeriod: 7 * DAY,
    async: true,
    fulfillmentDelay: DAY,
    configurable: false,
  },
  hedged: {
    name: "NAP Hedged USDC",
    symbol: "napHDG",
    riskLevel: "MODERATE",
    managementFeeBps: 100,
    performanceFeeBps: 1_500,
    hurdleRateBps: 400,
    depositCap: 3_000_000n * USDC,
    profitUnlockPeriod: 3 * DAY,
    async: true,
    fulfillmentDelay: 6 * HOUR,
    configurable: false,
  },
  configurable: {
    name: "NAP Configurable USDC",
    symbol: "napCFG",
    riskLevel: "MODERATE",
    managementFeeBps: 100,
    performanceFeeBps: 1_000,
    hurdleRateBps: 500,
    depositCap: 1_000_000n * USDC,
    profitUnlockPeriod: DAY,
    async: true,
    fulfillmentDelay: HOUR,
    configurable: true,
  },
};

export interface VaultRoleHolders {
  admin: string;
  manager: string;
  harvester: string;
  guardian: string;
  fulfiller: string;
  feeRecipient: string;
}

/** The contract each vault is an instance of. */
export function vaultContractName(config: VaultConfig): "NapVault" | "ConfigurableNapVault" {
  return config.configurable ? "ConfigurableNapVault" : "NapVault";
}

/** The longest fulfilment delay of the vaults the deployment creates, in seconds. */
export function maxFulfillmentDelay(): number {
  return Math.max(...Object.values(vaultConfigs).map((config) => config.fulfillmentDelay));
}

/**
 * Constructor arguments of NapVault / ConfigurableNapVault for one configuration. `A` is an address or anything that
 * stands for one (an Ignition future of the timelock, say).
 */
export function vaultConstructorArgs<A>(config: VaultConfig, usdc: A, roles: Record<keyof VaultRoleHolders, A>) {
  const params = {
    asset: usdc,
    name: config.name,
    symbol: config.symbol,
    riskLevel: RiskLevel[config.riskLevel],
    asyncRedeem: config.async,
    managementFeeBps: config.managementFeeBps,
    performanceFeeBps: config.performanceFeeBps,
    hurdleRateBps: config.hurdleRateBps,
    depositCap: config.depositCap ?? 2n ** 256n - 1n,
    profitUnlockPeriod: config.profitUnlockPeriod,
    fulfillmentDelay: config.fulfillmentDelay,
    feeRecipient: roles.feeRecipient,
  };
  const vaultRoles = {
    admin: roles.admin,
    manager: roles.manager,
    harvester: roles.harvester,
    guardian: roles.guardian,
    fulfiller: roles.fulfiller,
  };
  return [params, vaultRoles, [] as { strategyId: string; targetBps: number }[]] as const;
}

/**
 * What a deployed vault of `config` answers, getter by getter: the role check (deploy/audit.ts) reads each and
 * compares. Kept beside `vaultConstructorArgs` so that a constructor change updates both in one place.
 */
export function vaultExpectations(config: VaultConfig, usdc: string, feeRecipient: string) {
  return [
    ["asset", usdc],
    ["name", config.name],
    ["symbol", config.symbol],
    ["riskLevel", BigInt(RiskLevel[config.riskLevel])],
    ["isERC7540", config.async],
    ["managementFeeBps", BigInt(config.managementFeeBps)],
    ["performanceFeeBps", BigInt(config.performanceFeeBps)],
    ["hurdleRateBps", BigInt(config.hurdleRateBps)],
    ["depositCap", config.depositCap ?? 2n ** 256n - 1n],
    ["profitUnlockPeriod", BigInt(config.profitUnlockPeriod)],
    ["fulfillmentDelay", BigInt(config.fulfillmentDelay)],
    ["feeRecipient", feeRecipient],
  ] as const;
}

export interface DeployedVault {
  contract: NapVault;
  address: string;
  block: number;
}

/**
 * Deploys one vault with ethers, outside any deployment journal: for contract tests and gas benchmarks that need
 * vaults with other role holders than the system's (the system deploys through ignition/modules/vaults.ts).
 */
export async function deployVault(
  deployer: Signer,
  config: VaultConfig,
  usdc: string,
  roles: VaultRoleHolders,
): Promise<DeployedVault> {
  const args = vaultConstructorArgs(config, usdc, roles);
  const contract = config.configurable
    ? await new ConfigurableNapVault__factory(deployer).deploy(...args)
    : await new NapVault__factory(deployer).deploy(...args);
  const receipt = await contract.deploymentTransaction()!.wait();
  if (!receipt) throw new Error(`${config.name}: deployment receipt missing`);
  const address = await contract.getAddress();
  return { contract: NapVault__factory.connect(address, deployer), address, block: receipt.blockNumber };
}

/** Deploys the six vaults in VAULT_IDS order with `deployVault` (tests and benchmarks). */
export async function deployVaults(
  deployer: Signer,
  usdc: string,
  roles: VaultRoleHolders,
): Promise<Record<VaultId, DeployedVault>> {
  const result = {} as Record<VaultId, DeployedVault>;
  for (const id of VAULT_IDS) result[id] = await deployVault(deployer, vaultConfigs[id], usdc, roles);
  return result;
}
