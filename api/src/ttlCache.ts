import { LRUCache } from "lru-cache";

/**
 * A value computed at most once per `ttlMs` per key, on lru-cache: its `fetch` shares one computation among
 * concurrent callers and forgets a failed one (the next caller computes again). Used wherever a hot read may be a
 * little stale: the leaderboard and statistics, the health probes, the chain head's latest block number and fee data.
 *
 * With `refreshAheadMs`, a read in the last `refreshAheadMs` of a value's life starts its successor in the background
 * (a forced refresh that answers the kept value) and still gets the kept value; the successor replaces it when
 * computed. So under steady reads nobody waits for a recomputation, and no value older than `ttlMs` is answered: a
 * successor not computed by then is waited for. A value's age counts from when its computation started.
 */

export interface TtlCacheOptions {
  /** A milliseconds clock (tests). */
  now?: () => number;
  /** How long before a value expires a read starts computing its successor; default 0 (never ahead). */
  refreshAheadMs?: number;
  /** Keys kept at most (the least recently used go first); default 1,000. */
  max?: number;
}

/** lru-cache holds objects only; a value may be null. */
interface Kept<V> {
  value: V;
}

type Compute<V> = () => Promise<V>;

export class TtlCache<K extends NonNullable<unknown>, V> {
  readonly #cache: LRUCache<K, Kept<V>, Compute<V>>;
  readonly #ttlMs: number;
  readonly #refreshAheadMs: number;

  constructor(ttlMs: number, options: TtlCacheOptions = {}) {
    const { now } = options;
    this.#ttlMs = ttlMs;
    this.#refreshAheadMs = options.refreshAheadMs ?? 0;
    this.#cache = new LRUCache<K, Kept<V>, Compute<V>>({
      max: options.max ?? 1_000,
      // lru-cache reads a TTL of 0 as "forever"; here it means nothing is answered from the cache (#fresh).
      ttl: Math.max(1, ttlMs),
      // Every read looks at the clock: the TTLs here are a few hundred milliseconds.
      ttlResolution: 0,
      // lru-cache reads a start time of 0 as "no TTL": a clock that starts at 0 is moved on by one.
      ...(now ? { perf: { now: () => now() + 1 } } : {}),
      // A failed successor leaves the kept value until it expires.
      noDeleteOnFetchRejection: true,
      // clear() forgets the kept values; a computation already running still answers those waiting for it.
      ignoreFetchAbort: true,
      fetchMethod: async (_key, _kept, { options: setOptions, context: compute }) => {
        const clock = this.#cache.perf;
        const started = clock.now();
        const value = await compute();
        setOptions.ttl = Math.max(1, ttlMs - (clock.now() - started));
        return { value };
      },
    });
  }

  /** The value of `key`: the kept one while it is younger than the TTL or still being computed, else a new one. */
  get(key: K, compute: () => Promise<V>): Promise<V> {
    const kept = this.#fresh(key, compute);
    if (kept) return Promise.resolve(kept.value);
    // A kept value that reached its TTL is not answered: forceRefresh waits for its successor (or the running one).
    return this.#cache
      .fetch(key, { context: compute, forceRefresh: true })
      .then((fetched) => (fetched as Kept<V>).value);
  }

  /**
   * The value of `key` when one is kept, younger than the TTL and computed; undefined otherwise (no promise). With
   * `refresh`, a value in its last `refreshAheadMs` starts its successor, as `get` does.
   */
  peek(key: K, refresh?: () => Promise<V>): V | undefined {
    return this.#fresh(key, refresh)?.value;
  }

  clear(): void {
    this.#cache.clear();
  }

  /** The computed value of `key` while younger than the TTL, starting its successor in the last refreshAheadMs. */
  #fresh(key: K, refresh: Compute<V> | undefined): Kept<V> | undefined {
    const left = this.#cache.getRemainingTTL(key);
    if (left <= 0 || this.#ttlMs <= 0) return undefined;
    // allowStale: the kept value while its successor is computed (lru-cache's stale-while-fetching).
    const kept = this.#cache.peek(key, { allowStale: true });
    if (kept !== undefined && refresh !== undefined && left <= this.#refreshAheadMs) {
      void this.#cache.fetch(key, { context: refresh, forceRefresh: true, allowStale: true });
    }
    return kept;
  }
}
