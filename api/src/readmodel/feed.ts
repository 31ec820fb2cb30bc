import type { EventLogEntry } from "./records";
import type { ReadModelReader } from "./store";

/**
 * The tail of the read model's durable, ordered event log, for the push doors (GraphQL subscriptions, /ws).
 *
 * Every instance reads the log from the store, whichever instance's indexer wrote it, so several instances fan out
 * the same events in the same order. `wake()` reads it at once: the indexer of the same process calls it after each
 * batch, and a notice on Redis (notice.ts) from another instance's indexer does. The feed also polls the log every
 * `pollMs` while anyone listens, so that a notice lost while Redis is down delays an event by one poll at most and
 * never loses it (the log is durable and read by seq).
 *
 * A listener may start after a sequence number it already has (a client resuming after a reconnect): it first gets
 * the log's entries after it, page by page, then the live ones, each entry once and in order.
 */

export interface FeedOptions {
  /** How often the log is read while someone listens. Default 250 ms. */
  pollMs?: number;
  /** Entries read per store call. Default 500. */
  pageSize?: number;
}

export interface FeedListener {
  (entry: EventLogEntry): void;
}

export class EventFeed {
  readonly #store: ReadModelReader;
  readonly #pollMs: number;
  readonly #pageSize: number;
  readonly #listeners = new Set<FeedListener>();
  /** The last seq read from the log (null until the first read found the tail). */
  #tail: number | null = null;
  #timer: NodeJS.Timeout | undefined;
  #starting: Promise<void> | undefined;
  #reading: Promise<void> | undefined;
  #again = false;
  /** A wake came while the tail was being read at start: read again once the listener is in place. */
  #wokenWhileStarting = false;
  #errors = 0;

  constructor(store: ReadModelReader, options: FeedOptions = {}) {
    this.#store = store;
    this.#pollMs = options.pollMs ?? 250;
    this.#pageSize = options.pageSize ?? 500;
  }

  /** Failed reads of the log since the last good one (the feed retries at the next poll). */
  get failures(): number {
    return this.#errors;
  }

  /** The newest seq in the log (0 when empty). */
  lastSeq(): Promise<number> {
    return this.#store.lastEventSeq();
  }

  /**
   * The seq a listener starts after to get every entry of block `block` and later (read-your-writes on /ws): the
   * entry before the first such one among the newest `maxEntries` (the log's newest seq when none is).
   */
  async seqBeforeBlock(block: number, maxEntries: number): Promise<number> {
    const last = await this.lastSeq();
    const floor = Math.max(0, last - maxEntries);
    let start = last;
    // Pages backwards from the tail: the entries of a write just indexed are among the newest.
    while (start > floor) {
      const from = Math.max(floor, start - this.#pageSize);
      const page = await this.#store.eventLog(from, start - from);
      const older = page.filter((entry) => entry.event.block < block);
      if (older.length > 0) return older[older.length - 1].seq;
      start = from;
    }
    return floor;
  }

  /**
   * Listens from `afterSeq` (replaying the entries after it), or from the log's tail when it is omitted. Answers the
   * function that stops listening. Resolves once the listener is in place (replayed entries may follow).
   */
  async listen(listener: FeedListener, afterSeq?: number): Promise<() => void> {
    await this.#start();
    let delivered = afterSeq ?? (this.#tail as number);
    const live: EventLogEntry[] = [];
    let replaying = afterSeq !== undefined && afterSeq < (this.#tail as number);
    const wrapped: FeedListener = (entry) => {
      if (replaying) live.push(entry);
      else if (entry.seq > delivered) {
        delivered = entry.seq;
        listener(entry);
      }
    };
    this.#listeners.add(wrapped);
    if (this.#wokenWhileStarting) {
      this.#wokenWhileStarting = false;
      this.wake();
    }
    if (replaying) {
      void (async () => {
        // Pages up to the tail seen when listening began; entries after it arrive live (buffered meanwhile). A failed
        // read is retried after a poll interval, from the last entry delivered.
        const until = this.#tail as number;
        while (delivered < until && this.#listeners.has(wrapped)) {
          try {
            const page = await this.#store.eventLog(delivered, Math.min(this.#pageSize, until - delivered));
            if (page.length === 0) break;
            for (const entry of page) {
              delivered = entry.seq;
              listener(entry);
            }
          } catch {
            await new Promise((resolve) => setTimeout(resolve, this.#pollMs));
          }
        }
        replaying = false;
        for (const entry of live.splice(0)) wrapped(entry);
      })();
    }
    return () => {
      this.#listeners.delete(wrapped);
      if (this.#listeners.size === 0) this.#stopTimer();
    };
  }

  /** Reads the log now (coalesced with a read already running). */
  wake(): void {
    if (this.#tail === null || this.#listeners.size === 0) {
      // The entry that woke it may be past the tail being read at start: the first listener must not miss it.
      if (this.#starting) this.#wokenWhileStarting = true;
      return;
    }
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = this.#read().finally(() => {
      this.#reading = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** Stops polling (listeners stay registered but hear nothing more). */
  close(): void {
    this.#stopTimer();
    this.#listeners.clear();
  }

  /** Starts polling from the log's tail as it is now (after a pause without listeners, the tail is read again). */
  async #start(): Promise<void> {
    if (this.#timer) return;
    this.#starting ??= (async () => {
      this.#tail = await this.lastSeq();
      this.#timer = setInterval(() => this.wake(), this.#pollMs);
      this.#timer.unref();
    })().finally(() => {
      this.#starting = undefined;
    });
    await this.#starting;
  }

  #stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #read(): Promise<void> {
    try {
      for (;;) {
        const page = await this.#store.eventLog(this.#tail as number, this.#pageSize);
        for (const entry of page) {
          this.#tail = entry.seq;
          for (const listener of [...this.#listeners]) listener(entry);
        }
        if (page.length < this.#pageSize) break;
      }
      this.#errors = 0;
    } catch {
      // The store is unreachable: the next poll reads from the same tail, so nothing is skipped.
      this.#errors += 1;
    }
  }
}
