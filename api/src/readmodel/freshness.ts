/**
 * "At least block N" for every data door: a read that names the block its caller's write was mined in waits until
 * the read model is indexed up to it, for a bounded time, then answers from that block or later, or says it is not
 * there yet (the door's retryable refusal, NOT_YET_INDEXED).
 *
 * Waiting does not poll the store per request: a waiter sleeps until the indexed block moves, which this instance's
 * indexer tells at once (`advanced` after each cursor write) and another instance's through the Redis notice
 * (notice.ts). One shared read of the cursor then resolves every waiter it satisfies. While anyone waits, one read per
 * `fallbackMs` covers a notice lost while Redis was away, whatever the number of waiters.
 */

/** How long a read waits for the indexed block it asked for. */
export const MIN_BLOCK_WAIT_MS = 2_000;
/** While reads wait: at most one read of the cursor per this, in case a notice was lost. */
export const MIN_BLOCK_FALLBACK_MS = 250;
/** Reads waiting at once in one instance; past it a read is refused at once (retryable), not queued. */
export const MAX_MIN_BLOCK_WAITERS = 10_000;
/**
 * Blocks a minBlock may lie above the chain's head as this instance knows it (a client's node may be a little ahead
 * of ours); further above, no write of the client was mined there and the value is refused as invalid.
 */
export const MIN_BLOCK_HEAD_MARGIN = 16;
/** Seconds a NOT_YET_INDEXED answer tells the client to wait before asking again. */
export const NOT_YET_INDEXED_RETRY_SECONDS = 1;

/** The largest block number a minBlock may carry (JavaScript's safe integers). */
const MAX_BLOCK = Number.MAX_SAFE_INTEGER;

export interface IndexedBlockWatchOptions {
  fallbackMs?: number;
  maxWaiters?: number;
}

interface Waiter {
  block: number;
  resolve(height: number | null): void;
  timer: NodeJS.Timeout;
}

export class IndexedBlockWatch {
  readonly #readHeight: () => Promise<number | null>;
  readonly #fallbackMs: number;
  readonly #maxWaiters: number;
  readonly #waiters = new Set<Waiter>();
  #height: number | null = null;
  #reading: Promise<void> | undefined;
  #again = false;
  #fallback: NodeJS.Timeout | undefined;
  #chainHead: (fresh: boolean) => Promise<number | null> = async () => null;

  /** `readHeight`: a fresh read of the indexed block (not one kept for a while), as the reads that follow see it. */
  constructor(readHeight: () => Promise<number | null>, options: IndexedBlockWatchOptions = {}) {
    this.#readHeight = readHeight;
    this.#fallbackMs = options.fallbackMs ?? MIN_BLOCK_FALLBACK_MS;
    this.#maxWaiters = options.maxWaiters ?? MAX_MIN_BLOCK_WAITERS;
  }

  /** Tells the watch how to read the chain's head (for doors that hold no chain access of their own). */
  followChainHead(head: (fresh: boolean) => Promise<number | null>): void {
    this.#chainHead = head;
  }

  /** The chain's head as `followChainHead` reads it; null when unknown. */
  chainHead(fresh: boolean): Promise<number | null> {
    return this.#chainHead(fresh).catch(() => null);
  }

  /** Reads waiting now. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /**
   * The indexed block moved (to `height` when the caller knows it): the waiters it may satisfy are checked with one
   * read of the cursor, shared with a read already running. Nothing is read while no one waits for that block.
   * Answers whether a read was started (or joined).
   */
  advanced(height?: number): boolean {
    if (this.#waiters.size === 0) return false;
    if (height !== undefined && height < this.#lowestWaited()) return false;
    this.#check();
    return true;
  }

  /**
   * Waits up to `timeoutMs` for the indexed block to reach `block`; answers the indexed block then (below `block`
   * when the wait ran out, or at once when too many reads wait already). `current` is the height the caller read.
   */
  waitFor(block: number, current: number | null, timeoutMs = MIN_BLOCK_WAIT_MS): Promise<number | null> {
    if (current !== null && current >= block) return Promise.resolve(current);
    if (this.#height === null || (current !== null && current > this.#height)) this.#height = current;
    if (this.#waiters.size >= this.#maxWaiters || timeoutMs <= 0) return Promise.resolve(current);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        block,
        resolve: (height) => {
          clearTimeout(waiter.timer);
          this.#waiters.delete(waiter);
          if (this.#waiters.size === 0) this.#stopFallback();
          resolve(height);
        },
        timer: setTimeout(() => waiter.resolve(this.#height), timeoutMs),
      };
      this.#waiters.add(waiter);
      this.#startFallback();
    });
  }

  /** Answers every waiter (with the height known) and stops the fallback reads: the instance is closing. */
  close(): void {
    for (const waiter of [...this.#waiters]) waiter.resolve(this.#height);
    this.#stopFallback();
  }

  #lowestWaited(): number {
    let lowest = MAX_BLOCK;
    for (const waiter of this.#waiters) lowest = Math.min(lowest, waiter.block);
    return lowest;
  }

  #check(): void {
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = this.#read().finally(() => {
      this.#reading = undefined;
      if (this.#again) {
        this.#again = false;
        this.#check();
      }
    });
  }

  async #read(): Promise<void> {
    let height: number | null;
    try {
      height = await this.#readHeight();
    } catch {
      // The store is away: the fallback reads again, and each waiter's deadline answers it meanwhile.
      return;
    }
    if (height === null) return;
    if (this.#height === null || height > this.#height) this.#height = height;
    for (const waiter of [...this.#waiters]) if (waiter.block <= height) waiter.resolve(height);
  }

  #startFallback(): void {
    if (this.#fallback) return;
    this.#fallback = setInterval(() => this.#check(), this.#fallbackMs);
    this.#fallback.unref();
  }

  #stopFallback(): void {
    clearInterval(this.#fallback);
    this.#fallback = undefined;
  }
}

/** What a door makes of a minBlock the client sent (not sent: undefined). */
export type MinBlockProblem = { field: string; message: string };

/**
 * Parses a minBlock given as text (a query parameter or header) or a JSON number: a block number, or the problem
 * naming `field`.
 */
export function parseMinBlock(value: unknown, field: string): number | MinBlockProblem {
  const text = typeof value === "number" ? String(value) : value;
  if (typeof text !== "string" || !/^\d{1,16}$/.test(text) || Number(text) > MAX_BLOCK) {
    return { field, message: `${field}: must be a block number (an integer from 0 to ${MAX_BLOCK})` };
  }
  return Number(text);
}

/**
 * The minBlock of a read that may name it in two places (a query parameter or body field, and the X-Min-Block
 * header): every place given must hold a block number, so that a malformed one is never passed over, and the higher
 * block is the one waited for. Answers the raw value and its field for atLeastBlock, or the problem of the first
 * malformed place.
 */
export function chooseMinBlock(
  places: ReadonlyArray<readonly [raw: unknown, field: string]>,
): { raw: unknown; field: string } | MinBlockProblem {
  let chosen: { raw: unknown; field: string; block: number } | undefined;
  for (const [raw, field] of places) {
    if (raw === undefined || raw === null) continue;
    const block = parseMinBlock(raw, field);
    if (typeof block !== "number") return block;
    if (chosen === undefined || block > chosen.block) chosen = { raw, field, block };
  }
  return chosen ? { raw: chosen.raw, field: chosen.field } : { raw: undefined, field: places[0]?.[1] ?? "minBlock" };
}

/** The refusal of a minBlock above the chain's head (plus the margin), or null when it may be waited for. */
export function beyondHead(minBlock: number, head: number | null, field: string): MinBlockProblem | null {
  if (head === null || minBlock <= head + MIN_BLOCK_HEAD_MARGIN) return null;
  return {
    field,
    message: `${field}: block ${minBlock} is beyond the chain's head (${head}); send the block your write was mined in`,
  };
}

/** What a door needs to serve a minBlock: the wait, and the chain's head as this instance knows it. */
export interface MinBlockDeps {
  waitForBlock(block: number): Promise<number | null>;
  /** The chain's head, `fresh` asked of the node now; null when the node cannot be asked. */
  head(fresh: boolean): Promise<number | null>;
}

export type MinBlockOutcome =
  | { status: "none" }
  | { status: "invalid"; field: string; message: string }
  | { status: "reached"; minBlock: number; indexedBlock: number }
  | { status: "behind"; minBlock: number; indexedBlock: number | null };

/**
 * The whole "at least block N" of one read: `raw` absent (undefined or null) asks for nothing; malformed (an empty
 * header or parameter included: it was sent, with no block in it) or beyond the head is invalid; else the wait's
 * outcome, reached or still behind once the wait ran out.
 */
export async function atLeastBlock(deps: MinBlockDeps, raw: unknown, field: string): Promise<MinBlockOutcome> {
  if (raw === undefined || raw === null) return { status: "none" };
  const minBlock = parseMinBlock(raw, field);
  if (typeof minBlock !== "number") return { status: "invalid", ...minBlock };
  // The head kept for reads first; a block beyond it is checked against the node's head asked now before refusing.
  const kept = await deps.head(false);
  const far = beyondHead(minBlock, kept, field) && beyondHead(minBlock, await deps.head(true), field);
  if (far) return { status: "invalid", ...far };
  const indexedBlock = await deps.waitForBlock(minBlock);
  return indexedBlock !== null && indexedBlock >= minBlock
    ? { status: "reached", minBlock, indexedBlock }
    : { status: "behind", minBlock, indexedBlock };
}

/** The message of a NOT_YET_INDEXED answer. */
export function notYetIndexedMessage(minBlock: number, indexedBlock: number | null): string {
  return (
    `block ${minBlock} is not indexed yet (indexed: ${indexedBlock ?? "none"}); ` +
    `retry in ${NOT_YET_INDEXED_RETRY_SECONDS} s`
  );
}
