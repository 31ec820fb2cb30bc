import type { Signer } from "ethers";
import {
  ConfigurableNapVault__factory,
  NapVault__factory,
  VaultLens__factory,
  type NapVault,
  type VaultLens,
} from "../typechain-types";

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

export interface Deployed<T> {
  contract: T;
  address: string;
  block: number;
}

/** An address already deployed, as stored in deployments/<chainId>.json. */
export interface ExistingDeployment {
  address: string;
  block: number;
}

/** Constructor arguments of NapVault / ConfigurableNapVault for one configuration. */
export function vaultConstructorArgs(config: VaultConfig, usdc: string, roles: VaultRoleHolders) {
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

async function attachExisting<T>(
  signer: Signer,
  existing: ExistingDeployment,
  what: string,
  connect: (address: string) => T,
): Promise<Deployed<T>> {
  const code = await signer.provider!.getCode(existing.address);
  if (code === "0x") throw new Error(`${what}: no contract at the recorded address ${existing.address}`);
  return { contract: connect(existing.address), address: existing.address, block: existing.block };
}

/** Deploys one vault of the given configuration (no roles for the deployer: they go to `roles`). */
export async function deployVault(
  deployer: Signer,
  config: VaultConfig,
  usdc: string,
  roles: VaultRoleHolders,
): Promise<Deployed<NapVault>> {
  const args = vaultConstructorArgs(config, usdc, roles);
  const contract = config.configurable
    ? await new ConfigurableNapVault__factory(deployer).deploy(...args)
    : await new NapVault__factory(deployer).deploy(...args);
  const receipt = await contract.deploymentTransaction()!.wait();
  if (!receipt) throw new Error(`${config.name}: deployment receipt missing`);
  const address = await contract.getAddress();
  return { contract: NapVault__factory.connect(address, deployer), address, block: receipt.blockNumber };
}

/**
 * Deploys the six vaults in VAULT_IDS order. The deployer receives no role: DEFAULT_ADMIN_ROLE goes to
 * `roles.admin` (the timelock), the others to their holders. A vault listed in `existing` is not deployed again;
 * its recorded address is checked to hold code and reused. The `configurable` vault's contract is returned typed as
 * NapVault; connect ConfigurableNapVault__factory to its address for the setters.
 */
export async function deployVaults(
  deployer: Signer,
  usdc: string,
  roles: VaultRoleHolders,
  existing: Partial<Record<VaultId, ExistingDeployment>> = {},
): Promise<Record<VaultId, Deployed<NapVault>>> {
  const result = {} as Record<VaultId, Deployed<NapVault>>;
  for (const id of VAULT_IDS) {
    const known = existing[id];
    result[id] = known
      ? await attachExisting(deployer, known, `vault ${id}`, (a) => NapVault__factory.connect(a, deployer))
      : await deployVault(deployer, vaultConfigs[id], usdc, roles);
  }
  return result;
}

/** Deploys the VaultLens (stateless), or reuses `existing` after checking it holds code. */
export async function deployLens(deployer: Signer, existing?: ExistingDeployment): Promise<Deployed<VaultLens>> {
  if (existing) {
    return attachExisting(deployer, existing, "VaultLens", (a) => VaultLens__factory.connect(a, deployer));
  }
  const contract = await new VaultLens__factory(deployer).deploy();
  const receipt = await contract.deploymentTransaction()!.wait();
  if (!receipt) throw new Error("VaultLens: deployment receipt missing");
  return { contract, address: await contract.getAddress(), block: receipt.blockNumber };
}
