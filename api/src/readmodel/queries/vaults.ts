import { getAddress } from "ethers";
import type { Interval, Period } from "../../../../packages/wire/src/data/vocabulary";
import type { StrategyRecord } from "../folds/strategies";
import { windowApy, type PricePoint } from "../metrics";
import type { VaultRecord, VaultSnapshot } from "../records";
import type { ReadModelReader } from "../store";
import type { HistoryPoint, VaultView } from "./views";

/** Vaults: a vault's view from the read model, and its history in period and interval buckets. */

export const DAY = 86_400;
export const PERIOD_SECONDS: Record<Period, number | null> = {
  "7d": 7 * DAY,
  "30d": 30 * DAY,
  "90d": 90 * DAY,
  "1y": 365 * DAY,
  all: null,
};
export const INTERVAL_SECONDS: Record<Interval, number> = { "1h": 3_600, "4h": 14_400, "1d": DAY, "1w": 7 * DAY };

export function usd(amount: bigint, decimals: number): number {
  return Number(amount) / 10 ** decimals;
}

export function pricePoints(snapshots: readonly VaultSnapshot[]): PricePoint[] {
  return snapshots.map((s) => ({ timestamp: s.timestamp, price: BigInt(s.pricePerShare) }));
}

/** A vault's view from its record and its samples: TVL, price per share, APYs, fees, allocations (APY 0 until filled). */
export async function vaultView(
  store: ReadModelReader,
  record: VaultRecord,
  strategies: Map<string, StrategyRecord>,
): Promise<VaultView> {
  const address = record.address;
  const [hours, days] = await Promise.all([
    store.snapshots(address, "hour", record.timestamp - 31 * DAY),
    store.snapshots(address, "day", 0),
  ]);
  const first = await store.firstSnapshot(address);
  const end: PricePoint = { timestamp: record.timestamp, price: BigInt(record.pricePerShare) };
  const history = pricePoints(first ? [first, ...hours] : hours);
  const longHistory = pricePoints(first ? [first, ...days] : days);
  const tvl = BigInt(record.totalAssets);
  return {
    address: getAddress(record.address),
    id: record.id,
    name: record.name,
    symbol: record.symbol,
    asset: getAddress(record.asset),
    assetDecimals: record.assetDecimals,
    shareDecimals: record.shareDecimals,
    tvl,
    tvlUsd: usd(tvl, record.assetDecimals),
    totalShares: BigInt(record.totalSupply),
    pricePerShare: BigInt(record.pricePerShare),
    apy: {
      current: windowApy(history, end, DAY),
      day7: windowApy(history, end, 7 * DAY),
      day30: windowApy(history, end, 30 * DAY),
      inception: windowApy(longHistory, end, null),
    },
    fees: {
      management: record.managementFeeBps / 100,
      performance: record.performanceFeeBps / 100,
      hurdle: record.hurdleRateBps / 100,
    },
    riskLevel: record.riskLevel,
    strategies: record.allocations.map((a) => ({
      id: a.strategyId.toLowerCase(),
      name: strategies.get(a.strategyId.toLowerCase())?.name ?? "",
      allocation: a.targetBps / 100,
      apy: 0,
    })),
    isERC7540: record.isERC7540,
    fulfillmentDelay: record.fulfillmentDelay,
    paused: record.paused,
    createdAt: record.createdAt,
    block: record.block,
    timestamp: record.timestamp,
  };
}

/**
 * The points of `vault` from `from` on, one per `step` seconds bucket (the last sample in it): hour samples for steps
 * under a day, day samples otherwise.
 */
export async function historyPoints(
  store: ReadModelReader,
  vault: VaultView,
  from: number,
  step: number,
): Promise<HistoryPoint[]> {
  const resolution = step < DAY ? "hour" : "day";
  const address = vault.address.toLowerCase();
  const samples = await store.snapshots(address, resolution, 0);
  const buckets = new Map<number, VaultSnapshot>();
  let before: VaultSnapshot | undefined;
  for (const sample of samples) {
    if (sample.timestamp < from) {
      before = sample;
      continue;
    }
    buckets.set(sample.timestamp - (sample.timestamp % step), sample);
  }
  const points: HistoryPoint[] = [];
  let previous: PricePoint | undefined = before && {
    timestamp: before.timestamp,
    price: BigInt(before.pricePerShare),
  };
  for (const sample of buckets.values()) {
    const point = { timestamp: sample.timestamp, price: BigInt(sample.pricePerShare) };
    points.push({
      timestamp: sample.timestamp,
      block: sample.block,
      tvl: BigInt(sample.totalAssets),
      tvlUsd: usd(BigInt(sample.totalAssets), vault.assetDecimals),
      totalShares: BigInt(sample.totalSupply),
      pricePerShare: point.price,
      apy: previous ? windowApy([previous], point, null) : 0,
    });
    previous = point;
  }
  return points;
}
