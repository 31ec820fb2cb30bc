/**
 * Values computed once per (block, key). The state of a block never changes, so a value read at one block can be
 * handed to every request that reads at that block; entries of older blocks are dropped when a newer block is asked
 * for, and a request for an older block (rare: the head moved on between two awaits) computes without caching.
 * Concurrent requests for one (block, key) share one computation; a failed one is not kept.
 */
export class PerBlockCache<V> {
  #block = -1;
  readonly #entries = new Map<string, Promise<V>>();

  get(block: number, key: string, compute: () => Promise<V>): Promise<V> {
    if (block > this.#block) {
      this.#block = block;
      this.#entries.clear();
    }
    if (block < this.#block) return compute();
    let value = this.#entries.get(key);
    if (!value) {
      value = compute();
      this.#entries.set(key, value);
      value.catch(() => this.#entries.get(key) === value && this.#entries.delete(key));
    }
    return value;
  }
}
