/**
 * Values computed once per (block, key). The state of a block never changes, so a value read at one block can be
 * handed to every request that reads at that block; entries of older blocks are dropped when a newer block is asked
 * for, and a request for an older block (rare: the head moved on between two awaits) computes without caching.
 * Concurrent requests for one (block, key) share one computation; a failed one is not kept.
 */
export class PerBlockCache<V> {
  #block = -1;
  readonly #entries = new Map<string, Promise<V>>();
  readonly #settled = new Map<string, V>();

  /** The value of (block, key) when it is kept and computed; undefined otherwise (no promise). */
  peek(block: number, key: string): V | undefined {
    return block === this.#block ? this.#settled.get(key) : undefined;
  }

  get(block: number, key: string, compute: () => Promise<V>): Promise<V> {
    if (block > this.#block) {
      this.#block = block;
      this.#entries.clear();
      this.#settled.clear();
    }
    if (block < this.#block) return compute();
    let value = this.#entries.get(key);
    if (!value) {
      const computing = compute();
      value = computing;
      this.#entries.set(key, computing);
      computing.then(
        (result) => this.#block === block && this.#entries.get(key) === computing && this.#settled.set(key, result),
        () => this.#entries.get(key) === computing && this.#entries.delete(key),
      );
    }
    return value;
  }
}
