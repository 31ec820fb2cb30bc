import { LRUCache } from "lru-cache";

/** Distinct answers kept per block (the least recently used go first): per-address reads make the keys unbounded. */
const BLOCK_ANSWERS = 10_000;

/**
 * Per indexed block: every computed answer, dropped as a whole when the cursor moves. lru-cache's fetch shares one
 * computation among concurrent readers and forgets a failed one (the next reader computes again).
 */
export class BlockCache {
  readonly #answers = new LRUCache<string, { value: unknown }, () => Promise<unknown>>({
    max: BLOCK_ANSWERS,
    fetchMethod: async (_key, _kept, { context: compute }) => ({ value: await compute() }),
  });

  constructor(readonly height: number | null) {}

  get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    return this.#answers.fetch(key, { context: compute }).then((answer) => answer?.value as T);
  }

  /** The computed value of `key`, undefined while it is computing or was never asked for. */
  peek<T>(key: string): T | undefined {
    return this.#answers.peek(key)?.value as T | undefined;
  }
}
