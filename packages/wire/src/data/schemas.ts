import { z } from "zod";
import { INTERVALS, PERIODS } from "./vocabulary";

/** Wire shapes of the data API's REST answers (the OpenAPI document is generated from them). */

const bigintString = z
  .string()
  .regex(/^-?\d+$/)
  .meta({ description: "integer in the asset's (or share's) smallest unit" });
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const isoTime = z.string().meta({ format: "date-time" });
const riskLevel = z.enum(["conservative", "moderate", "aggressive"]);

export const vaultListItem = z
  .object({
    address,
    name: z.string(),
    symbol: z.string(),
    tvl: bigintString,
    tvlUsd: z.number(),
    apy: z.number().meta({ description: "current APY, percent (see apy.current of the detail)" }),
    riskLevel,
    strategies: z.number().int().meta({ description: "number of strategies the vault allocates to" }),
    isERC7540: z.boolean(),
    fulfillmentDelay: z.number().int().meta({ description: "seconds (0 for synchronous vaults)" }),
  })
  .meta({ id: "VaultListItem" });

export const vaultList = z
  .object({
    vaults: z.array(vaultListItem),
    totalTvl: bigintString,
    totalTvlUsd: z.number(),
    indexedBlock: z.number().int().nullable(),
  })
  .meta({ id: "VaultList" });

export const apy = z
  .object({ current: z.number(), "7d": z.number(), "30d": z.number(), inception: z.number() })
  .meta({ id: "Apy", description: "compounded annual rates from the share price, percent (docs/data-api.md)" });

export const vaultDetail = z
  .object({
    address,
    name: z.string(),
    symbol: z.string(),
    asset: address,
    tvl: bigintString,
    tvlUsd: z.number(),
    totalShares: bigintString,
    pricePerShare: bigintString.meta({ description: "assets for 10**shareDecimals shares" }),
    shareDecimals: z.number().int(),
    apy,
    fees: z.object({
      management: z.number().meta({ description: "percent per year" }),
      performance: z.number().meta({ description: "percent of gains" }),
      hurdle: z.number().meta({ description: "percent per year" }),
    }),
    riskLevel,
    strategies: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        allocation: z.number().meta({ description: "percent of the vault's assets" }),
        apy: z.number(),
      }),
    ),
    isERC7540: z.boolean(),
    fulfillmentDelay: z.number().int(),
    paused: z.boolean(),
    createdAt: isoTime,
    indexedBlock: z.number().int(),
  })
  .meta({ id: "VaultDetail" });

export const historyQuery = z.object({
  period: z.enum(PERIODS).default("30d"),
  interval: z.enum(INTERVALS).default("1d"),
});

export const vaultHistory = z
  .object({
    address,
    period: z.enum(PERIODS),
    interval: z.enum(INTERVALS),
    points: z.array(
      z.object({
        timestamp: isoTime,
        block: z.number().int(),
        tvl: bigintString,
        tvlUsd: z.number(),
        totalShares: bigintString,
        pricePerShare: bigintString,
        apy: z.number().meta({ description: "compounded from the previous point, percent" }),
      }),
    ),
  })
  .meta({ id: "VaultHistory" });

const strategyFields = {
  id: z.string(),
  name: z.string(),
  owner: address,
  status: z.enum(["EVOLUTION", "SHADOW", "LIVE", "DEPRECATED"]),
  stage: z.string().meta({ description: "the registry's own stage (shadow, guardian_review, ..., deprecated)" }),
  allocation: z.number().meta({ description: "percent of the protocol's TVL" }),
  apy: z.number(),
  riskScore: z.number().int(),
  sharpeRatio: z.number(),
  maxDrawdown: z.number().meta({ description: "percent" }),
  createdAt: isoTime,
};

export const strategyList = z.object({ strategies: z.array(z.object(strategyFields)) }).meta({ id: "StrategyList" });

export const strategyPerformance = z
  .object({
    ...strategyFields,
    description: z.string(),
    vaults: z.array(z.object({ address, targetBps: z.number().int(), allocatedTvl: bigintString })),
    transitions: z.array(
      z.object({
        from: z.string(),
        to: z.string(),
        by: address,
        timestamp: isoTime,
        block: z.number().int(),
        transactionHash: z.string(),
      }),
    ),
  })
  .meta({ id: "StrategyPerformance" });

const vaultRef = z.object({ address, name: z.string(), symbol: z.string() });

export const userPositions = z
  .object({
    address,
    positions: z.array(
      z.object({
        vault: vaultRef,
        shares: bigintString.meta({ description: "shares held, in pending requests and canceled requests" }),
        pendingRedeemShares: bigintString,
        claimableAssets: bigintString,
        value: bigintString,
        costBasis: bigintString,
        realizedPnl: bigintString,
        pnl: bigintString,
        pnlPercent: z.number(),
        depositedAt: isoTime,
      }),
    ),
    indexedBlock: z.number().int().nullable(),
  })
  .meta({ id: "UserPositions" });

export const TRANSACTION_TYPES = ["DEPOSIT", "WITHDRAW", "DEPOSIT_REQUEST", "REDEEM_REQUEST", "CLAIM"] as const;

export const userTransactions = z
  .object({
    address,
    transactions: z.array(
      z.object({
        hash: z.string(),
        type: z.enum(TRANSACTION_TYPES),
        vault: vaultRef,
        user: address,
        amount: bigintString,
        shares: bigintString.nullable(),
        status: z.enum(["PENDING", "FULFILLED", "CLAIMED", "FAILED"]),
        timestamp: isoTime,
        block: z.number().int(),
      }),
    ),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    indexedBlock: z.number().int().nullable(),
  })
  .meta({ id: "UserTransactions" });

export const protocolStats = z
  .object({
    totalTvl: bigintString,
    totalTvlUsd: z.number(),
    vaultCount: z.number().int(),
    userCount: z.number().int(),
    transactionCount: z.number().int(),
    depositVolume: bigintString,
    withdrawVolume: bigintString,
    feesAccrued: bigintString,
    strategyCount: z.number().int(),
    liveStrategyCount: z.number().int(),
    proposalCount: z.number().int(),
    voteCount: z.number().int(),
    indexedBlock: z.number().int().nullable(),
    indexedAt: isoTime.nullable(),
  })
  .meta({ id: "ProtocolStats" });

export const indexerStatus = z
  .object({
    role: z.enum(["writer", "reader", "halted"]),
    indexedBlock: z.number().int().nullable(),
    indexedHash: z.string().nullable(),
    headBlock: z.number().int().nullable(),
    lagBlocks: z.number().int().nullable(),
    finalityDepth: z.number().int(),
    halt: z.object({ reason: z.string(), at: isoTime }).nullable(),
    lastError: z.string().nullable(),
  })
  .meta({ id: "IndexerStatus" });

export const serviceStatus = z
  .object({
    status: z.enum(["ok", "degraded", "halted"]),
    version: z.string(),
    chainId: z.number().int(),
    chainName: z.string(),
    indexer: indexerStatus,
  })
  .meta({ id: "DataStatus" });

export const batchBody = z
  .object({
    vaultIds: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(50)
      .meta({ description: "vault addresses or deployment ids (conservative, moderate, ...)" }),
  })
  .strict();

export const batchAnswer = z
  .object({ vaults: z.array(vaultDetail), notFound: z.array(z.string()) })
  .meta({ id: "VaultBatch" });

export const errorBody = z
  .object({
    error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) }),
  })
  .meta({ id: "DataError" });
