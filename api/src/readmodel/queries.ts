import { getAddress } from "ethers";
import type { Interval, Period } from "../../../packages/wire/src/data/vocabulary";
import { TtlCache } from "../ttlCache";
import { foldPositions, isOpen, valuePosition, type PositionState } from "./folds/positions";
import { foldStrategies, type StrategyRecord } from "./folds/strategies";
import { foldTransactions, makesTransaction, type TransactionType, type VaultTransaction } from "./folds/transactions";
import { maxDrawdown, sharpeRatio, windowApy, type PricePoint } from "./metrics";
import type { IndexedEvent, IndexerCursor, IndexerHalt, VaultRecord, VaultSnapshot } from "./records";
import type { ReadModelReader } from "./store";
import { IndexedBlockWatch, MIN_BLOCK_WAIT_MS } from "./freshness";

export type { Interval, Period };

/**
 * The query layer of the data API: protocol-neutral answers (bigints, numbers, Unix seconds) from the read model,
 * for the REST door (doors/data) and later the GraphQL one. Every answer is computed once per indexed block (the
 * cache is keyed by the cursor's height), so repeated reads between two batches cost a map lookup.
 */

const DAY = 86_400;
const PERIOD_SECONDS: Record<Period, number | null> = {
  "7d": 7 * DAY,
  "30d": 30 * DAY,
  "90d": 90 * DAY,
  "1y": 365 * DAY,
  all: null,
};
const INTERVAL_SECONDS: Record<Interval, number> = { "1h": 3_600, "4h": 14_400, "1d": DAY, "1w": 7 * DAY };
/** Most points one history answer holds. */
export const MAX_HISTORY_POINTS = 1_000;
/** userTransactions: default and largest page. */
export const DEFAULT_TRANSACTIONS_LIMIT = 50;
export const MAX_TRANSACTIONS_LIMIT = 500;
/** How long a read waits for the indexer to reach the caller's block (read-your-writes). */
export const READ_YOUR_WRITES_WAIT_MS = MIN_BLOCK_WAIT_MS;

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

const POSITION_EVENTS = [
  "Transfer",
  "Deposit",
  "Withdraw",
  "RedeemRequest",
  "RedeemFulfilled",
  "CancelRedeemRequest",
  "CancelRedeemClaim",
];

function usd(amount: bigint, decimals: number): number {
  return Number(amount) / 10 ** decimals;
}

function pricePoints(snapshots: readonly VaultSnapshot[]): PricePoint[] {
  return snapshots.map((s) => ({ timestamp: s.timestamp, price: BigInt(s.pricePerShare) }));
}

/** Per indexed block: every computed answer, dropped as a whole when the cursor moves. */
class BlockCache {
  readonly #values = new Map<string, Promise<unknown>>();
  readonly #settled = new Map<string, unknown>();
  constructor(readonly height: number | null) {}
  get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    let value = this.#values.get(key) as Promise<T> | undefined;
    if (!value) {
      const computing = compute();
      value = computing;
      this.#values.set(key, computing);
      computing.then(
        (result) => this.#settled.set(key, result),
        () => this.#values.delete(key),
      );
    }
    return value;
  }

  /** The computed value of `key`, undefined while it is computing or was never asked for. */
  peek<T>(key: string): T | undefined {
    return this.#settled.get(key) as T | undefined;
  }
}

export class DataQueries {
  readonly #store: ReadModelReader;
  readonly #cursors: TtlCache<"cursor", IndexerCursor | null>;
  #cache = new BlockCache(null);

  /** `cursorTtlMs`: how long one read of the cursor is reused (one store read per that time at most). */
  constructor(store: ReadModelReader, options: { cursorTtlMs?: number } = {}) {
    this.#store = store;
    const ttlMs = options.cursorTtlMs ?? 200;
    // The last quarter of a kept cursor's life reads its successor, so that steady reads never wait for the store.
    this.#cursors = new TtlCache(ttlMs, { refreshAheadMs: ttlMs / 4 });
    this.indexedBlocks = new IndexedBlockWatch(this.#freshHeight);
  }

  /** The reads waiting for a block to be indexed (read-your-writes); told when the indexed block moves. */
  readonly indexedBlocks: IndexedBlockWatch;

  /** The indexed block (cursor), as this instance last read it. */
  cursor(): Promise<IndexerCursor | null> {
    return this.#cursors.get("cursor", this.#readCursor);
  }

  readonly #readCursor = () => this.#store.cursor();

  /** The indexer's halt, when a reorg deeper than its window stopped it. */
  halt(): Promise<IndexerHalt | null> {
    return this.#store.halt();
  }

  /**
   * Read-your-writes: waits up to `timeoutMs` for the indexed block to reach `block`. Answers the indexed height
   * reached (which may still be below `block` after the wait).
   */
  async waitForBlock(block: number, timeoutMs = READ_YOUR_WRITES_WAIT_MS): Promise<number | null> {
    const kept = (await this.cursor())?.height ?? null;
    if (kept !== null && kept >= block) return kept;
    // A kept cursor below the block is read again at once (the indexer may have moved since it was kept); then the
    // wait sleeps until the indexer (or another instance's notice) says the indexed block moved.
    const current = await this.#freshHeight();
    return this.indexedBlocks.waitFor(block, current, timeoutMs);
  }

  /**
   * The indexer (here, or another instance through its notice) moved the indexed block, to `height` when known: the
   * reads waiting for it are told, and the kept cursor is read again at once unless it is there already, so that the
   * plain reads that follow answer from the new block too rather than after the kept cursor's time.
   */
  indexedBlockMoved(height?: number): void {
    if (this.indexedBlocks.advanced(height)) return;
    const kept = this.#cursors.peek("cursor");
    if (height !== undefined && kept !== undefined && (kept?.height ?? -1) >= height) return;
    this.#freshHeight().catch(() => undefined);
  }

  readonly #freshHeight = async (): Promise<number | null> => {
    this.#cursors.clear();
    return (await this.cursor())?.height ?? null;
  };

  async #block(): Promise<BlockCache> {
    const height = (await this.cursor())?.height ?? null;
    if (this.#cache.height !== height) this.#cache = new BlockCache(height);
    return this.#cache;
  }

  async vaults(): Promise<VaultList> {
    const cache = await this.#block();
    return cache.get("vaults", async () => {
      const records = (await this.#store.vaults()).sort(
        (a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id),
      );
      const strategies = await this.#strategyRecords(cache);
      const vaults: VaultView[] = [];
      for (const record of records) vaults.push(await this.#vaultView(record, strategies));
      await this.#fillStrategyApys(vaults, cache);
      const totalTvl = vaults.reduce((sum, v) => sum + v.tvl, 0n);
      const byKey = new Map<string, VaultView>();
      for (const vault of vaults) byKey.set(vault.address.toLowerCase(), vault).set(vault.id, vault);
      return {
        vaults,
        byKey,
        totalTvl,
        totalTvlUsd: vaults.reduce((sum, v) => sum + v.tvlUsd, 0),
        indexedBlock: cache.height,
      };
    });
  }

  /**
   * The vault list when the kept cursor's block has it computed (no promise: the hot reads answer at once), else
   * undefined: then `vaults()` reads the cursor and computes.
   */
  keptVaults(): VaultList | undefined {
    const cursor = this.#cursors.peek("cursor", this.#readCursor);
    if (cursor === undefined) return undefined;
    const height = cursor?.height ?? null;
    return this.#cache.height === height ? this.#cache.peek<VaultList>("vaults") : undefined;
  }

  /** One vault by address (any case) or deployment id; null when the read model has no such vault. */
  async vault(key: string): Promise<VaultView | null> {
    const { byKey } = await this.vaults();
    return byKey.get(key.toLowerCase()) ?? null;
  }

  /**
   * History of a vault over `period`, one point per `interval` bucket (the last sample in it): hour buckets for
   * 1h and 4h, day buckets for 1d and 1w. Null for an unknown vault; `tooMany` when the answer would hold more than
   * MAX_HISTORY_POINTS points.
   */
  async history(
    key: string,
    period: Period,
    interval: Interval,
  ): Promise<{ vault: VaultView; points: HistoryPoint[] } | { tooMany: number } | null> {
    const vault = await this.vault(key);
    if (!vault) return null;
    const periodSeconds = PERIOD_SECONDS[period];
    const step = INTERVAL_SECONDS[interval];
    const end = vault.timestamp;
    const from = periodSeconds === null ? Math.max(0, vault.createdAt) : end - periodSeconds;
    const expected = Math.ceil((end - from) / step) + 1;
    if (expected > MAX_HISTORY_POINTS) return { tooMany: expected };
    const cache = await this.#block();
    return cache.get(`history:${vault.address}:${period}:${interval}`, async () => {
      const resolution = step < DAY ? "hour" : "day";
      const address = vault.address.toLowerCase();
      const samples = await this.#store.snapshots(address, resolution, 0);
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
      return { vault, points };
    });
  }

  /** Strategies that are not deprecated (every one with `includeDeprecated`), oldest first. */
  async strategies(options: { includeDeprecated?: boolean } = {}): Promise<StrategyView[]> {
    const all = await this.#strategyViews();
    return options.includeDeprecated ? all : all.filter((s) => s.status !== "DEPRECATED");
  }

  async strategy(id: string): Promise<StrategyView | null> {
    const wanted = id.toLowerCase();
    return (await this.#strategyViews()).find((s) => s.id === wanted) ?? null;
  }

  /** Open positions of `user` (any case), one per vault. */
  async positions(user: string): Promise<PositionView[]> {
    const address = user.toLowerCase();
    const cache = await this.#block();
    return cache.get(`positions:${address}`, async () => {
      const touched = new Set((await this.#store.events({ user: address })).map((e) => e.address));
      const { vaults } = await this.vaults();
      const views: PositionView[] = [];
      for (const vault of vaults) {
        const key = vault.address.toLowerCase();
        if (!touched.has(key)) continue;
        const position = (await this.#vaultPositions(cache, vault)).get(address);
        if (!position || !isOpen(position)) continue;
        views.push(this.#positionView(vault, position));
      }
      return views;
    });
  }

  /** The positions of every holder of one vault (for checks against the chain and for statistics). */
  async holders(key: string): Promise<PositionView[] | null> {
    const vault = await this.vault(key);
    if (!vault) return null;
    const cache = await this.#block();
    const positions = await this.#vaultPositions(cache, vault);
    return [...positions.values()].filter(isOpen).map((p) => this.#positionView(vault, p));
  }

  /** Transactions of `user`, newest first, with the total before paging. */
  async transactions(
    user: string,
    page: { limit: number; offset: number; type?: TransactionType },
  ): Promise<{ items: TransactionView[]; total: number }> {
    const address = user.toLowerCase();
    const cache = await this.#block();
    const all = await cache.get(`transactions:${address}`, async () => {
      const { vaults } = await this.vaults();
      const byAddress = new Map(vaults.map((v) => [v.address.toLowerCase(), v]));
      const asyncVaults = new Set(vaults.filter((v) => v.isERC7540).map((v) => v.address.toLowerCase()));
      const events = await this.#store.events({ user: address });
      return foldTransactions(events, asyncVaults)
        .filter((tx) => tx.user === address && byAddress.has(tx.vault))
        .reverse()
        .map((tx) => ({ ...tx, vault: byAddress.get(tx.vault) as VaultView }));
    });
    const filtered = page.type ? all.filter((tx) => tx.type === page.type) : all;
    return { items: filtered.slice(page.offset, page.offset + page.limit), total: filtered.length };
  }

  /**
   * The transaction a vault event made, as `transactions` folds it (status included); null when the event makes none
   * or its block is not in the read model yet.
   */
  async transactionOfEvent(event: IndexedEvent): Promise<TransactionView | null> {
    if (!makesTransaction(event)) return null;
    for (const user of event.users) {
      const { items } = await this.transactions(user, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
      const found = items.find((tx) => tx.eventId === event.id);
      if (found) return found;
    }
    return null;
  }

  async protocolStats(): Promise<ProtocolStats> {
    const cache = await this.#block();
    return cache.get("stats", async () => {
      const list = await this.vaults();
      const users = new Set<string>();
      for (const vault of list.vaults) {
        for (const position of (await this.#vaultPositions(cache, vault)).values()) {
          if (isOpen(position)) users.add(position.user);
        }
      }
      const vaultEvents = await this.#store.events({
        addresses: list.vaults.map((v) => v.address.toLowerCase()),
        names: ["Deposit", "Withdraw", "RedeemRequest", "FeesAccrued"],
      });
      let depositVolume = 0n;
      let withdrawVolume = 0n;
      let feesAccrued = 0n;
      let transactionCount = 0;
      for (const event of vaultEvents) {
        if (event.name === "Deposit") depositVolume += BigInt(String(event.args.assets));
        if (event.name === "Withdraw") withdrawVolume += BigInt(String(event.args.assets));
        if (event.name === "FeesAccrued") {
          feesAccrued += BigInt(String(event.args.managementFee)) + BigInt(String(event.args.performanceFee));
        } else transactionCount += 1;
      }
      const strategies = [...(await this.#strategyRecords(cache)).values()];
      const governance = await this.#store.events({
        contracts: ["NapGovernor"],
        names: ["ProposalCreated", "VoteCast", "VoteCastWithParams"],
      });
      const cursor = await this.cursor();
      return {
        totalTvl: list.totalTvl,
        totalTvlUsd: list.totalTvlUsd,
        vaultCount: list.vaults.length,
        userCount: users.size,
        transactionCount,
        depositVolume,
        withdrawVolume,
        feesAccrued,
        strategyCount: strategies.length,
        liveStrategyCount: strategies.filter((s) => s.status === "LIVE").length,
        proposalCount: governance.filter((e) => e.name === "ProposalCreated").length,
        voteCount: governance.filter((e) => e.name !== "ProposalCreated").length,
        indexedBlock: cursor?.height ?? null,
        indexedAt: list.vaults.length > 0 ? Math.max(...list.vaults.map((v) => v.timestamp)) : null,
      };
    });
  }

  #strategyRecords(cache: BlockCache): Promise<Map<string, StrategyRecord>> {
    return cache.get("strategyRecords", async () =>
      foldStrategies(
        await this.#store.events({
          contracts: ["StrategyRegistryV3"],
          names: ["StrategySubmitted", "StrategyStatusChanged"],
        }),
      ),
    );
  }

  #vaultPositions(cache: BlockCache, vault: VaultView): Promise<Map<string, PositionState>> {
    const address = vault.address.toLowerCase();
    return cache.get(`vaultPositions:${address}`, async () =>
      foldPositions(
        address,
        vault.isERC7540,
        await this.#store.events({ addresses: [address], names: POSITION_EVENTS }),
      ),
    );
  }

  #positionView(vault: VaultView, position: PositionState): PositionView {
    const { value, pnl, pnlPercent } = valuePosition(position, vault.pricePerShare, vault.shareDecimals);
    return {
      vault,
      shares: position.shares,
      pendingRedeemShares: position.pendingShares,
      canceledShares: position.canceledShares,
      claimableAssets: position.claimableAssets,
      value,
      costBasis: position.cost,
      realizedPnl: position.realized,
      pnl,
      pnlPercent,
      depositedAt: position.depositedAt ?? 0,
    };
  }

  async #vaultView(record: VaultRecord, strategies: Map<string, StrategyRecord>): Promise<VaultView> {
    const address = record.address;
    const [hours, days] = await Promise.all([
      this.#store.snapshots(address, "hour", record.timestamp - 31 * DAY),
      this.#store.snapshots(address, "day", 0),
    ]);
    const first = await this.#store.firstSnapshot(address);
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

  /** Each vault's strategy entries carry the strategy's APY (computed over every vault). */
  async #fillStrategyApys(vaults: VaultView[], cache: BlockCache): Promise<void> {
    const views = await this.#strategyViewsOf(vaults, cache);
    const apyOf = new Map(views.map((s) => [s.id, s.apy]));
    for (const vault of vaults) for (const s of vault.strategies) s.apy = apyOf.get(s.id) ?? 0;
  }

  async #strategyViews(): Promise<StrategyView[]> {
    const cache = await this.#block();
    const { vaults } = await this.vaults();
    return this.#strategyViewsOf(vaults, cache);
  }

  /**
   * Strategy figures from the vaults that allocate to it, weighted by the TVL each allocation stands for:
   * allocation = that TVL / protocol TVL × 100; apy, sharpeRatio and maxDrawdown = weighted means of the vaults'
   * current APY, Sharpe ratio and max drawdown (daily samples); riskScore = the highest risk level among those vaults
   * (1 conservative, 2 moderate, 3 aggressive), 0 when no vault allocates to it (then every figure is 0).
   */
  #strategyViewsOf(vaults: readonly VaultView[], cache: BlockCache): Promise<StrategyView[]> {
    return cache.get("strategyViews", async () => {
      const records = await this.#strategyRecords(cache);
      const totalTvl = vaults.reduce((sum, v) => sum + v.tvl, 0n);
      const risk = await Promise.all(
        vaults.map(async (vault) => {
          const daily = pricePoints(await this.#store.snapshots(vault.address.toLowerCase(), "day", 0));
          return { sharpe: sharpeRatio(daily), drawdown: maxDrawdown(daily) };
        }),
      );
      const views: StrategyView[] = [];
      for (const record of [...records.values()].sort((a, b) => a.block - b.block)) {
        const uses = vaults.flatMap((vault, i) => {
          const allocation = vault.strategies.find((s) => s.id === record.id);
          if (!allocation) return [];
          const targetBps = Math.round(allocation.allocation * 100);
          return [{ vault, risk: risk[i], targetBps, allocatedTvl: (vault.tvl * BigInt(targetBps)) / 10_000n }];
        });
        const weightTotal = uses.reduce((sum, u) => sum + Number(u.allocatedTvl), 0);
        const weighted = (pick: (u: (typeof uses)[number]) => number) =>
          weightTotal === 0 ? 0 : uses.reduce((sum, u) => sum + pick(u) * Number(u.allocatedTvl), 0) / weightTotal;
        const allocated = uses.reduce((sum, u) => sum + u.allocatedTvl, 0n);
        views.push({
          id: record.id,
          name: record.name,
          description: record.description,
          owner: getAddress(record.owner),
          status: record.status,
          stage: record.stage,
          allocation: totalTvl === 0n ? 0 : (Number(allocated) / Number(totalTvl)) * 100,
          apy: weighted((u) => u.vault.apy.current),
          riskScore: uses.reduce(
            (max, u) => Math.max(max, ["CONSERVATIVE", "MODERATE", "AGGRESSIVE"].indexOf(u.vault.riskLevel) + 1),
            0,
          ),
          sharpeRatio: weighted((u) => u.risk.sharpe),
          maxDrawdown: weighted((u) => u.risk.drawdown),
          createdAt: record.createdAt,
          vaults: uses.map((u) => ({ address: u.vault.address, targetBps: u.targetBps, allocatedTvl: u.allocatedTvl })),
          transitions: record.transitions,
        });
      }
      return views;
    });
  }
}
