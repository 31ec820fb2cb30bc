/**
 * A value computed at most once per `ttlMs` per key; concurrent callers share the computation, and a failed one is
 * not kept (the next caller computes again). Used wherever a hot read may be a little stale: the leaderboard and
 * statistics, the health probes, the chain head's latest block number and fee data.
 *
 * With `refreshAheadMs`, a read in the last `refreshAheadMs` of a value's life starts its successor in the background
 * and still gets the kept value; the successor replaces it when computed. So under steady reads nobody waits for a
 * recomputation, and no value older than `ttlMs` is answered: a successor not computed by then is waited for.
 */
interface Entry<V> {
  at: number;
  value: Promise<V>;
  pending: boolean;
  /** The computed value, once there is one. */
  settled?: V;
  /** The successor being computed ahead of this entry's expiry. */
  next?: Entry<V>;
}

export interface TtlCacheOptions {
  /** A milliseconds clock (tests). */
  now?: () => number;
  /** How long before a value expires a read starts computing its successor; default 0 (never ahead). */
  refreshAheadMs?: number;
}

export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly now: () => number;
  private readonly refreshFrom: number;

  /** The age of an entry counts from when its computation started. */
  constructor(
    private readonly ttlMs: number,
    options: TtlCacheOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.refreshFrom = options.refreshAheadMs ? ttlMs - options.refreshAheadMs : Infinity;
  }

  /** The value of `key`: the kept one while it is younger than the TTL or still being computed, else a new one. */
  get(key: K, compute: () => Promise<V>): Promise<V> {
    const now = this.now();
    const entry = this.current(key, now);
    if (entry && (entry.pending || now - entry.at < this.ttlMs)) {
      this.refreshAhead(key, entry, compute, now);
      return entry.value;
    }
    const fresh = this.start(key, compute, now, undefined);
    this.entries.set(key, fresh);
    return fresh.value;
  }

  /**
   * The value of `key` when one is kept, younger than the TTL and computed; undefined otherwise (no promise). With
   * `refresh`, a value in its last `refreshAheadMs` starts its successor, as `get` does.
   */
  peek(key: K, refresh?: () => Promise<V>): V | undefined {
    const now = this.now();
    const entry = this.current(key, now);
    if (!entry || entry.pending || now - entry.at >= this.ttlMs) return undefined;
    if (refresh) this.refreshAhead(key, entry, refresh, now);
    return entry.settled;
  }

  clear(): void {
    this.entries.clear();
  }

  /** The entry of `key`, replaced by its successor once that is computed or once the entry has expired. */
  private current(key: K, now: number): Entry<V> | undefined {
    const entry = this.entries.get(key);
    const next = entry?.next;
    if (entry === undefined || next === undefined || (next.pending && now - entry.at < this.ttlMs)) return entry;
    this.entries.set(key, next);
    return next;
  }

  /** Starts the successor of a computed entry that has entered its last `refreshAheadMs`, unless one is running. */
  private refreshAhead(key: K, entry: Entry<V>, compute: () => Promise<V>, now: number): void {
    if (!entry.pending && entry.next === undefined && now - entry.at >= this.refreshFrom) {
      entry.next = this.start(key, compute, now, entry);
    }
  }

  /** Starts computing a value; `before`: the entry it will succeed (computed ahead of its expiry). */
  private start(key: K, compute: () => Promise<V>, now: number, before: Entry<V> | undefined): Entry<V> {
    const fresh: Entry<V> = { at: now, value: compute(), pending: true };
    fresh.value.then(
      (value) => {
        fresh.pending = false;
        fresh.settled = value;
      },
      () => {
        // A failed successor is forgotten (a later read tries again); a failed kept value is dropped.
        if (before?.next === fresh) before.next = undefined;
        if (this.entries.get(key) === fresh) this.entries.delete(key);
      },
    );
    return fresh;
  }
}
