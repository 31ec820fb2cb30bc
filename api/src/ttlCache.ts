/**
 * A value computed at most once per `ttlMs` per key; concurrent callers share the computation, and a failed one is
 * not kept (the next caller computes again). Used wherever a hot read may be a little stale: the leaderboard and
 * statistics, the health probes, the chain head's latest block number and fee data.
 */
interface Entry<V> {
  at: number;
  value: Promise<V>;
  pending: boolean;
  /** The computed value, once there is one. */
  settled?: V;
}

export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();

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
    const fresh: Entry<V> = { at: now, value: compute(), pending: true };
    this.entries.set(key, fresh);
    fresh.value.then(
      (value) => {
        fresh.pending = false;
        fresh.settled = value;
      },
      () => this.entries.get(key) === fresh && this.entries.delete(key),
    );
    return fresh.value;
  }

  /** The value of `key` when one is kept, younger than the TTL and computed; undefined otherwise (no promise). */
  peek(key: K): V | undefined {
    const entry = this.entries.get(key);
    return entry && !entry.pending && this.now() - entry.at < this.ttlMs ? entry.settled : undefined;
  }

  clear(): void {
    this.entries.clear();
  }
}
