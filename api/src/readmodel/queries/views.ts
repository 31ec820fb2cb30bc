import type { StrategyRecord } from "../folds/strategies";
import type { VaultTransaction } from "../folds/transactions";
import type { VaultRecord } from "../records";

/** The query layer's answers: protocol-neutral (bigints, numbers, Unix seconds), each door renders its own shape. */

/** Most points one history answer holds. */
export const MAX_HISTORY_POINTS = 1_000;
/** userTransactions: default and largest page. */
export const DEFAULT_TRANSACTIONS_LIMIT = 50;
export const MAX_TRANSACTIONS_LIMIT = 500;

export interface Apy {
  current: number;
  day7: number;
  day30: number;
  inception: number;
}

export interface VaultStrategyView {
  id: string;
  name: string;
  /** Percent of the vault's assets meant for the strategy (targetBps / 100). */
  allocation: number;
  apy: number;
}

export interface VaultView {
  address: string;
  id: string;
  name: string;
  symbol: string;
  asset: string;
  assetDecimals: number;
  shareDecimals: number;
  tvl: bigint;
  tvlUsd: number;
  totalShares: bigint;
  pricePerShare: bigint;
  apy: Apy;
  /** Percent per year (management, hurdle) and percent of gains (performance). */
  fees: { management: number; performance: number; hurdle: number };
  riskLevel: VaultRecord["riskLevel"];
  strategies: VaultStrategyView[];
  isERC7540: boolean;
  fulfillmentDelay: number;
  paused: boolean;
  createdAt: number;
  block: number;
  timestamp: number;
}

export interface VaultList {
  vaults: VaultView[];
  /** Each vault by lowercase address and by deployment id. */
  byKey: ReadonlyMap<string, VaultView>;
  totalTvl: bigint;
  totalTvlUsd: number;
  indexedBlock: number | null;
}

export interface HistoryPoint {
  timestamp: number;
  block: number;
  tvl: bigint;
  tvlUsd: number;
  totalShares: bigint;
  pricePerShare: bigint;
  /** APY compounded from the previous point (the first point: from the sample before the period, else 0). */
  apy: number;
}

export interface StrategyView {
  id: string;
  name: string;
  description: string;
  owner: string;
  status: StrategyRecord["status"];
  stage: StrategyRecord["stage"];
  /** Percent of the protocol's TVL meant for it by the vaults' allocations. */
  allocation: number;
  apy: number;
  riskScore: number;
  sharpeRatio: number;
  maxDrawdown: number;
  createdAt: number;
  vaults: { address: string; targetBps: number; allocatedTvl: bigint }[];
  transitions: StrategyRecord["transitions"];
}

export interface PositionView {
  vault: VaultView;
  shares: bigint;
  pendingRedeemShares: bigint;
  canceledShares: bigint;
  claimableAssets: bigint;
  value: bigint;
  costBasis: bigint;
  realizedPnl: bigint;
  pnl: bigint;
  pnlPercent: number;
  depositedAt: number;
}

export interface TransactionView extends Omit<VaultTransaction, "vault"> {
  vault: VaultView;
}

export interface ProtocolStats {
  totalTvl: bigint;
  totalTvlUsd: number;
  vaultCount: number;
  userCount: number;
  transactionCount: number;
  depositVolume: bigint;
  withdrawVolume: bigint;
  feesAccrued: bigint;
  strategyCount: number;
  liveStrategyCount: number;
  proposalCount: number;
  voteCount: number;
  indexedBlock: number | null;
  indexedAt: number | null;
}
