import type { Interval, Period } from "../../../../packages/wire/src/data/vocabulary";
import { TtlCache } from "../../ttlCache";
import { isOpen } from "../folds/positions";
import { foldTransactions, makesTransaction, type TransactionType } from "../folds/transactions";
import { IndexedBlockWatch, MIN_BLOCK_WAIT_MS } from "../freshness";
import type { IndexedEvent, IndexerCursor, IndexerHalt } from "../records";
import type { ReadModelReader } from "../store";
import { BlockCache } from "./blockCache";
import { positionView, vaultPositions } from "./positions";
import { protocolStats } from "./stats";
import { fillStrategyApys, strategyRecords, strategyViewsOf } from "./strategies";
import { historyPoints, INTERVAL_SECONDS, PERIOD_SECONDS, vaultView } from "./vaults";
import {
  MAX_HISTORY_POINTS,
  type HistoryPoint,
  type PositionView,
  type ProtocolStats,
  type StrategyView,
  type TransactionView,
  type VaultList,
  type VaultView,
} from "./views";

export type { Interval, Period };
export * from "./views";

/**
 * The query layer of the data API: protocol-neutral answers (bigints, numbers, Unix seconds) from the read model,
 * for the REST door (doors/data), the GraphQL door and /ws. Every answer is computed once per indexed block (the
 * cache is keyed by the cursor's height), so repeated reads between two batches cost a lookup. Each subject builds
 * its answers in its own file (vaults, strategies, positions, stats); this class keeps the cursor and the block.
 */

/** How long a read waits for the indexer to reach the caller's block (read-your-writes). */
export const READ_YOUR_WRITES_WAIT_MS = MIN_BLOCK_WAIT_MS;

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
      const strategies = await strategyRecords(this.#store, cache);
      const vaults: VaultView[] = [];
      for (const record of records) vaults.push(await vaultView(this.#store, record, strategies));
      await fillStrategyApys(this.#store, vaults, cache);
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
    return cache.get(`history:${vault.address}:${period}:${interval}`, async () => ({
      vault,
      points: await historyPoints(this.#store, vault, from, step),
    }));
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
        const position = (await vaultPositions(this.#store, cache, vault)).get(address);
        if (!position || !isOpen(position)) continue;
        views.push(positionView(vault, position));
      }
      return views;
    });
  }

  /** The positions of every holder of one vault (for checks against the chain and for statistics). */
  async holders(key: string): Promise<PositionView[] | null> {
    const vault = await this.vault(key);
    if (!vault) return null;
    const cache = await this.#block();
    const positions = await vaultPositions(this.#store, cache, vault);
    return [...positions.values()].filter(isOpen).map((p) => positionView(vault, p));
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
    return cache.get("stats", async () =>
      protocolStats(this.#store, cache, await this.vaults(), async () => (await this.cursor())?.height ?? null),
    );
  }

  async #strategyViews(): Promise<StrategyView[]> {
    const cache = await this.#block();
    const { vaults } = await this.vaults();
    return strategyViewsOf(this.#store, vaults, cache);
  }
}
