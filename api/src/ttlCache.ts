/**
 * A value computed at most once per `ttlMs` per key; concurrent callers share the computation, and a failed one is
 * not kept (the next caller computes again). Used wherever a hot read may be a little stale: the leaderboard and
 * statistics, the health probes, the latest block number of the vault list.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { at: number; value: Promise<V>; pending: boolean }>();

  /** `now`: a milliseconds clock (tests). The age of an entry counts from when its computation started. */
  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The value of `key`: the kept one while it is younger than the TTL or still being computed, else a new one. */
  get(key: K, compute: () => Promise<V>): Promise<V> {
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry && (entry.pending || now - entry.at < this.ttlMs)) return entry.value;
    const fresh = { at: now, value: compute(), pending: true };
    this.entries.set(key, fresh);
    fresh.value.then(
      () => (fresh.pending = false),
      () => this.entries.get(key) === fresh && this.entries.delete(key),
    );
    return fresh.value;
  }

  clear(): void {
    this.entries.clear();
  }
}
