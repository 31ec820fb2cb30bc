import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { ChainAccess } from "../chain";
import { getBlockNumber } from "../chain/rpc/actions";
import { inOneRound } from "../chain/rpc/round";
import { readChain } from "../chain/rpcErrors";
import type { Logger } from "../logger";
import type { IndexerCursor, IndexerHalt } from "../readmodel/records";
import type { ReadModelStore } from "../readmodel/store";
import { IndexedContracts, planBatch } from "./plan";
import { readBatch, type BatchReader } from "./readBatch";
import { headerOnChain, rewind, type Rewinder } from "./rewind";
import { VaultSampler } from "./sampler";
import { writeBatch } from "./writeBatch";
import { WrittenState } from "./written";

/**
 * The indexer: follows every contract of the deployment from its deployment block, one batch of `eth_getLogs` at a
 * time, up to the newest block treated as final (`head - finalityDepth`), and writes what it finds into the read
 * model (docs/data-api.md). A step is a pipeline of stages, as Ponder's sync is:
 *
 * - lease: one writer, the lease in the store, taken at a step and renewed every `leaseTtlMs / 3` while held (a long
 *   batch keeps it). An instance without it only reads; when the holder dies, its lease expires within `leaseTtlMs`
 *   and the next instance to step takes it (standby instances step every `pollMs`).
 * - head: the chain's newest block, and the cursor `{height, hash}` of the last batch written.
 * - plan: the next batch of blocks after the cursor (plan.ts).
 * - read: its logs, headers and vault samples (readBatch.ts). Its first block must have the cursor as parent; when it
 *   does not, the chain reorganised: the rewind goes back to the common ancestor (rewind.ts).
 * - write: in an order that a crash at any point cannot spoil (writeBatch.ts).
 * - notify: the feeds and the reads waiting for a block.
 *
 * It follows the chain as blocks come: `wake()` (a receipt this instance recorded, another instance's notice of a
 * mined block) starts a step at once; the poll every `pollMs` is the fallback.
 */

export interface IndexerSettings {
  /** Blocks below the head that are indexed (0: up to the head). */
  finalityDepth: number;
  /** Largest block range of one eth_getLogs. */
  batchBlocks: number;
  /**
   * Least seconds between a block's time stamp and its parent's (1 where a block must be later than its parent, 0
   * where blocks may share a time stamp): where the headers around a block allow one time stamp only, its own
   * header is not read (blockTimes.ts).
   */
  minBlockInterval: number;
  /** Pause between steps when caught up or in standby. */
  pollMs: number;
  /** Deepest reorg rewound; a deeper one halts. Also the number of checkpoints kept. */
  reorgWindow: number;
  leaseTtlMs: number;
}

export const DEFAULT_INDEXER_SETTINGS: IndexerSettings = {
  finalityDepth: 0,
  batchBlocks: 2_000,
  minBlockInterval: 1,
  pollMs: 1_000,
  reorgWindow: 128,
  // Renewed every third of it: a holder must miss two renewals in a row (a store away for over 2 s, a blocked event
  // loop) before another instance may take over, and a dead one is replaced within it plus one standby poll.
  leaseTtlMs: 3_000,
};

export type StepResult = "indexed" | "caught-up" | "standby" | "reorg" | "halted" | "no-deployment";

export interface IndexerStatus {
  /** writer: holds the lease; reader: another instance writes; halted: stopped by a deep reorg. */
  role: "writer" | "reader" | "halted";
  indexedBlock: number | null;
  indexedHash: string | null;
  headBlock: number | null;
  /** Blocks between the head and the indexed block (null when either is unknown). */
  lagBlocks: number | null;
  finalityDepth: number;
  halt: IndexerHalt | null;
  /** The last error of a step of this instance (cleared by the next good step). */
  lastError: string | null;
}

export interface IndexerDeps {
  chain: ChainAccess;
  store: ReadModelStore;
  logger: Logger;
  settings?: Partial<IndexerSettings>;
  clock?: () => Date;
  /** Lease holder name (default: host, process id and a random suffix). */
  holder?: string;
  /**
   * Called when the event log has grown (a batch with events indexed, or a reorg's removals written) and the cursor has
   * moved past it: the app wakes its feed and publishes the notice that wakes the other instances' feeds.
   */
  onIndexed?: (cursor: IndexerCursor) => void;
  /**
   * Called after every cursor write (a batch, with or without events, or a rewind), for the reads waiting for a block;
   * `grewLog`: `onIndexed` follows.
   */
  onProgress?: (cursor: IndexerCursor, grewLog: boolean) => void;
}

export class Indexer {
  readonly settings: IndexerSettings;
  readonly holder: string;
  readonly #chain: ChainAccess;
  readonly #store: ReadModelStore;
  readonly #logger: Logger;
  readonly #clock: () => Date;
  readonly #contracts: IndexedContracts;
  readonly #reader: BatchReader;
  readonly #rewinder: Rewinder;
  readonly #onIndexed: (cursor: IndexerCursor) => void;
  readonly #onProgress: (cursor: IndexerCursor, grewLog: boolean) => void;
  #onStep: (result: StepResult | "error", seconds: number) => void = () => undefined;
  /** A wake that came while a step ran: the loop steps again at once (the step may have asked the head before it). */
  #wokenDuringStep = false;
  #renewal: NodeJS.Timeout | undefined;
  /** The renewal in flight, awaited before the lease is given up (else it could take the lease back). */
  #renewing: Promise<void> = Promise.resolve();
  #running: Promise<void> | undefined;
  #stopped = false;
  #wake: (() => void) | undefined;
  #writer = false;
  #lastError: string | null = null;
  readonly #written = new WrittenState();
  /** The head this instance read last (eth_blockNumber). */
  #knownHead: number | null = null;

  constructor(deps: IndexerDeps) {
    this.settings = { ...DEFAULT_INDEXER_SETTINGS, ...deps.settings };
    this.holder = deps.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.#chain = deps.chain;
    this.#store = deps.store;
    this.#logger = deps.logger;
    this.#clock = deps.clock ?? (() => new Date());
    this.#contracts = new IndexedContracts(deps.chain);
    const sampler = new VaultSampler(deps.chain.contracts, deps.chain.rpc);
    this.#reader = {
      chain: deps.chain,
      contracts: this.#contracts,
      sampler,
      written: this.#written,
      minBlockInterval: this.settings.minBlockInterval,
    };
    this.#rewinder = {
      chain: deps.chain,
      store: deps.store,
      logger: deps.logger,
      contracts: this.#contracts,
      sampler,
      reorgWindow: this.settings.reorgWindow,
      clock: this.#clock,
    };
    this.#onIndexed = deps.onIndexed ?? (() => undefined);
    this.#onProgress = deps.onProgress ?? (() => undefined);
  }

  /** A new block may be there (a receipt, another instance's notice): step now instead of at the next poll. */
  wake(): void {
    if (!this.#running || this.#stopped) return;
    if (this.#wake) this.#wake();
    else this.#wokenDuringStep = true;
  }

  /** Tells `observer` each step of the background loop, with its result and its time (the service's metrics). */
  observeSteps(observer: (result: StepResult | "error", seconds: number) => void): void {
    this.#onStep = observer;
  }

  /** True while this instance holds the writer's lease (as of its last step). */
  get isWriter(): boolean {
    return this.#writer;
  }

  /** Runs steps in the background until `stop`. */
  start(): void {
    if (this.#running) return;
    this.#stopped = false;
    this.#running = (async () => {
      while (!this.#stopped) {
        let result: StepResult | "error";
        this.#wokenDuringStep = false;
        const started = performance.now();
        try {
          result = await this.step();
          this.#lastError = null;
        } catch (error) {
          result = "error";
          this.#lastError = error instanceof Error ? error.message : String(error);
          this.#logger.warn({ err: error }, "indexer step failed; retrying");
        }
        this.#onStep(result, (performance.now() - started) / 1000);
        this.#keepLease();
        if (result === "indexed" || result === "reorg" || (this.#wokenDuringStep && result === "caught-up")) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.settings.pollMs);
          this.#wake = () => (clearTimeout(timer), resolve());
        });
        this.#wake = undefined;
      }
    })();
  }

  /** Stops the loop after the running step and gives the lease up. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#running;
    this.#running = undefined;
    this.#keepLease();
    await this.#renewing;
    if (this.#writer) await this.#store.releaseLease(this.holder).catch(() => undefined);
    this.#writer = false;
  }

  /** Starts a run over a halt left by an earlier process (its deep reorg is checked again on the first batch). */
  async clearHalt(): Promise<void> {
    await this.#store.setHalt(null);
  }

  async status(): Promise<IndexerStatus> {
    const [cursor, halt, head] = await Promise.all([
      this.#store.cursor(),
      this.#store.halt(),
      this.#chain.head.latest().catch(() => null),
    ]);
    return {
      role: halt ? "halted" : this.#writer ? "writer" : "reader",
      indexedBlock: cursor?.height ?? null,
      indexedHash: cursor?.hash ?? null,
      headBlock: head,
      lagBlocks: cursor && head !== null ? Math.max(0, head - cursor.height) : null,
      finalityDepth: this.settings.finalityDepth,
      halt,
      lastError: this.#lastError,
    };
  }

  /** One step: lease, head, plan, read, write, notify (one batch at most). */
  async step(): Promise<StepResult> {
    if (!this.#chain.deployment) return "no-deployment";
    if (await this.#store.halt()) return "halted";
    if (!(await this.#takeLease())) return "standby";
    const [{ head, askedNow }, stored] = await Promise.all([this.#head(), this.#store.cursor()]);
    const range = planBatch(stored ?? { height: this.#contracts.startBlock() - 1, hash: "" }, head, this.settings);
    if (!range) return stored && head < stored.height ? this.#checkShorterChain(stored) : "caught-up";
    const batch = await readBatch(this.#reader, range);
    if (batch === "new-branch") return this.#rewind(range.cursor);
    if (batch === "missing-block") {
      // A block below the head read has gone: the chain changed under the batch. When that head was the one read
      // last, it is asked again at once.
      this.#knownHead = null;
      return askedNow ? "caught-up" : "reorg";
    }
    if (batch === "changing") return "reorg";
    const cursor = await writeBatch(this.#store, batch, this.settings.reorgWindow);
    this.#written.remember({ height: cursor.height, records: batch.records, pointed: batch.pointed });
    this.#notify(cursor, batch.events.length > 0);
    this.#logger.debug({ from: range.from, to: range.to, events: batch.events.length }, "indexed");
    return "indexed";
  }

  /** Takes or renews the writer's lease; what this instance wrote is forgotten when it takes the lease anew. */
  async #takeLease(): Promise<boolean> {
    const wasWriter = this.#writer;
    this.#writer = await this.#store.acquireLease(this.holder, this.settings.leaseTtlMs, this.#clock());
    if (this.#writer && !wasWriter) this.#written.forget();
    return this.#writer;
  }

  /**
   * The chain's head, asked of the node, not taken from the head kept for reads (250 ms): a kept head would hold each
   * new block back by up to its age (the delay subscribers see). It is not asked while this instance is behind the
   * head it read last (catching up, a batch after another): the blocks up to it are there to index, and the round
   * saved is one of the few a batch waits for. Once caught up with it, every step asks.
   */
  async #head(): Promise<{ head: number; askedNow: boolean }> {
    const lastHead = this.#knownHead;
    const written = this.#written.height;
    if (lastHead !== null && written !== null && written < lastHead - this.settings.finalityDepth) {
      return { head: lastHead, askedNow: false };
    }
    const head = await readChain("the block number", () =>
      inOneRound(this.#chain.rpc, (round) => getBlockNumber(round)),
    );
    this.#knownHead = head;
    return { head, askedNow: true };
  }

  /**
   * A head below the cursor: the chain may have lost blocks the read model holds (a reorg to a shorter branch, a
   * restarted development chain). Its cursor block is looked for at once rather than when the chain grows past it
   * again, which may take long or never come; a node whose head report lags keeps the block, and nothing moves.
   */
  async #checkShorterChain(stored: IndexerCursor): Promise<StepResult> {
    if (await headerOnChain(this.#chain, stored)) return "caught-up";
    return this.#rewind(stored);
  }

  /** Rewinds to the common ancestor of the branch indexed and the chain's (rewind.ts). */
  async #rewind(cursor: IndexerCursor): Promise<StepResult> {
    const rewound = await rewind(this.#rewinder, cursor);
    if (rewound) {
      this.#written.forget();
      this.#notify(rewound.ancestor, rewound.grewLog);
    }
    return "reorg";
  }

  /** The reads waiting for a block, and the feeds when the event log grew. */
  #notify(cursor: IndexerCursor, grewLog: boolean): void {
    this.#onProgress(cursor, grewLog);
    if (grewLog) this.#onIndexed(cursor);
  }

  /**
   * Renews the lease every third of its time to live while this instance holds it and runs, independently of the
   * steps, so that a batch longer than the lease does not hand it over; stopped once not held or stopped.
   */
  #keepLease(): void {
    const holding = this.#writer && !this.#stopped;
    if (holding === (this.#renewal !== undefined)) return;
    if (!holding) {
      clearInterval(this.#renewal);
      this.#renewal = undefined;
      return;
    }
    this.#renewal = setInterval(
      () => {
        this.#renewing = this.#store.acquireLease(this.holder, this.settings.leaseTtlMs, this.#clock()).then(
          (held) => {
            if (!held) this.#writer = false;
          },
          (error: unknown) => this.#logger.warn({ err: error }, "indexer lease not renewed; retrying"),
        );
      },
      Math.max(1, Math.floor(this.settings.leaseTtlMs / 3)),
    );
    this.#renewal.unref();
  }
}
