/**
 * The records of the read model, as the indexer writes them and the query layer reads them.
 *
 * The indexer stores each log of the deployment's contracts once, as an `IndexedEvent` keyed by chain, transaction
 * hash and log index (so a batch written twice, after a crash or a retry, changes nothing), plus samples of each
 * vault's state read from the chain (`VaultSnapshot`) and each vault's latest state (`VaultRecord`). Positions,
 * transactions with their status and strategies with their transitions are folds of the events (readmodel/folds/),
 * so a reorg only deletes what lies above the common ancestor: nothing derived has to be undone.
 */

/** One decoded log of a system contract; `args` are JSON-safe (integers as decimal strings). */
export interface IndexedEvent {
  /** `${chainId}:${transactionHash}:${logIndex}`: the idempotency key. */
  id: string;
  chainId: number;
  block: number;
  blockHash: string;
  /** Unix seconds of the block. */
  timestamp: number;
  transactionHash: string;
  logIndex: number;
  /** Deployment name: "StrategyRegistryV3", "NapGovernor", "NapVault:moderate", ... */
  contract: string;
  /** Lowercase contract address. */
  address: string;
  name: string;
  args: Record<string, unknown>;
  /** Lowercase addresses the event concerns (for per-user reads). */
  users: string[];
}

/** What a vault is now (read from the lens at the indexed height). */
export interface VaultRecord {
  /** Lowercase address. */
  address: string;
  /** Deployment id ("conservative", ...). */
  id: string;
  name: string;
  symbol: string;
  asset: string;
  assetDecimals: number;
  shareDecimals: number;
  totalAssets: string;
  totalSupply: string;
  /** Assets for 10**shareDecimals shares. */
  pricePerShare: string;
  managementFeeBps: number;
  performanceFeeBps: number;
  hurdleRateBps: number;
  riskLevel: "CONSERVATIVE" | "MODERATE" | "AGGRESSIVE";
  isERC7540: boolean;
  fulfillmentDelay: number;
  paused: boolean;
  /** Unix seconds. */
  createdAt: number;
  allocations: { strategyId: string; targetBps: number }[];
  /** Block the state was read at, and its timestamp (Unix seconds). */
  block: number;
  timestamp: number;
}

export const SNAPSHOT_RESOLUTIONS = ["point", "hour", "day"] as const;
export type SnapshotResolution = (typeof SNAPSHOT_RESOLUTIONS)[number];

/**
 * A vault's state at one block. `point`: at a block where an event moved its price or assets. `hour` and `day`: the
 * last sample taken inside that hour or day (UTC), keyed by the bucket's start, replaced by any later sample of the
 * same bucket.
 */
export interface VaultSnapshot {
  vault: string;
  resolution: SnapshotResolution;
  /** point: the block; hour/day: the bucket's start in Unix seconds. */
  key: number;
  block: number;
  timestamp: number;
  totalAssets: string;
  totalSupply: string;
  pricePerShare: string;
}

/** The newest block the read model holds, by number and hash (the next batch's parent must match it). */
export interface IndexerCursor {
  height: number;
  hash: string;
}

/** A stop the indexer cannot recover from by itself (a reorg deeper than its window), shown in /health. */
export interface IndexerHalt {
  reason: string;
  at: Date;
}

export interface IndexerLease {
  holder: string;
  expiresAt: Date;
}

/** An entry of the durable, ordered event log that subscriptions fan out from. */
export interface EventLogEntry {
  /** 1, 2, 3 ... in write order; never reused. */
  seq: number;
  /** `added`: the event joined the canonical chain; `removed`: a reorg took it out. */
  action: "added" | "removed";
  event: IndexedEvent;
}
