import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { ChainAccess } from "../chain";
import type { VaultAddress } from "../chain/contracts";
import { readChain } from "../chain/rpcErrors";
import { inOneRound, RpcRound } from "../chain/rpcRound";
import type { Logger } from "../logger";
import type { IndexedEvent, IndexerCursor, IndexerHalt, VaultRecord } from "../readmodel/records";
import type { ReadModelStore } from "../readmodel/store";
import { FIGURES_ONLY_EVENTS, indexedEvent, PRICE_MOVING_EVENTS } from "./facts";
import { blockTimes, probes } from "./blockTimes";
import { getHeader, getHeaders, getLogs, type BlockHeader, type RangeLog } from "./rpc";
import { firstPoints, hourEndPoints, snapshotsOf, VaultSampler, type SamplePoint, type VaultSample } from "./sampler";

/**
 * The indexer: follows every contract of the deployment from its deployment block, one batch of `eth_getLogs` at a
 * time, up to `head - finalityDepth`, and writes what it finds into the read model (docs/data-api.md).
 *
 * - The cursor `{height, hash}` moves after each batch; the next batch's first block must have it as parent. When it
 *   does not (or the chain's head is below the cursor and its block is gone), the chain reorganised: the indexer walks
 *   its checkpoints (the hashes of recent batch ends) down to one the chain still has, deletes everything above it,
 *   writes the vaults' records as of that block, and indexes again from there. A reorg deeper than `reorgWindow`
 *   blocks (or past every checkpoint) halts the indexer with the reason in the store, where /health and /v1/status of
 *   every instance read it.
 * - Each batch is written in an order that a crash at any point cannot spoil: events, snapshots, vault states and
 *   the event log (all idempotent), then the cursor. A restart re-reads the batch and writes the same records again.
 * - One writer: the lease in the store, taken at a step and renewed every `leaseTtlMs / 3` while held (a long batch
 *   keeps it). An instance without it only reads; when the holder dies, its lease expires within `leaseTtlMs` and
 *   the next instance to step takes it (standby instances step every `pollMs`).
 * - It follows the chain as blocks come: `wake()` (a receipt this instance recorded, another instance's notice of a
 *   mined block) starts a step at once; the poll every `pollMs` is the fallback.
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

/**
 * Resolves once the event loop has turned: a JSON-RPC round's HTTP request is written when its socket is handed over,
 * a tick after the flush. Awaited after a flush and before CPU-bound work that does not need the answers, so the node
 * works on them meanwhile.
 */
const requestsLeave = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The pieces a batch's logs are asked in, each in its own request: the node answers them in turn, and this process
 * reads each piece (checks, classifies and decodes its logs, asks for the first points it shows) while the node works
 * on the next, instead of waiting for all of them before any of that work starts. At most `LOG_PIECES`, each of at
 * least `LOG_PIECE_BLOCKS` blocks (a batch of a block or a few, the usual one when following the head, is one piece).
 */
const LOG_PIECES = 2;
const LOG_PIECE_BLOCKS = 64;

/** The block ranges `[low, high]` that cover `from`..`to` in order (logPieces above). */
export function logPieces(from: number, to: number): [number, number][] {
  const count = Math.max(1, Math.min(LOG_PIECES, Math.floor((to - from + 1) / LOG_PIECE_BLOCKS)));
  const size = Math.ceil((to - from + 1) / count);
  return Array.from({ length: count }, (_, i): [number, number] => [
    from + i * size,
    Math.min(to, from + (i + 1) * size - 1),
  ]);
}

/** How a batch's vault records are made (`Indexer.#recordPlan`). */
interface RecordPlan {
  /** The vaults the lens reads at the batch's last block, in order. */
  vaults: VaultAddress[];
  /** Those with a record kept by this instance that a log of the batch may have changed: read whole again. */
  reread: VaultAddress[];
  /** Those with a record kept that only the figures change: the record this instance wrote last, by address. */
  kept: Map<string, VaultRecord>;
}

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
  readonly #sampler: VaultSampler;
  readonly #onIndexed: (cursor: IndexerCursor) => void;
  readonly #onProgress: (cursor: IndexerCursor, grewLog: boolean) => void;
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
  /**
   * The vault records this instance last wrote, by address: a vault whose logs in a batch change only its figures
   * keeps the rest of its record (FIGURES_ONLY_EVENTS). Forgotten on a rewind (the chain's branch changed) and when
   * the lease is taken (another instance may have written since).
   */
  readonly #records = new Map<string, VaultRecord>();
  /**
   * The vaults this instance has written a snapshot point of: each has its inception (its oldest snapshot) at or
   * before that point, so its first price-moving block of a later batch needs no point of its own (an hour's or the
   * batch's last sample covers it). Forgotten with `#records`.
   */
  readonly #pointed = new Set<string>();
  /** The head this instance read last (eth_blockNumber), and the height of the cursor it wrote last (forgotten with
   * `#records`): while the second is below the first, less the finality depth, a step does not ask the head. */
  #knownHead: number | null = null;
  #writtenHeight: number | null = null;

  constructor(deps: IndexerDeps) {
    this.settings = { ...DEFAULT_INDEXER_SETTINGS, ...deps.settings };
    this.holder = deps.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.#chain = deps.chain;
    this.#store = deps.store;
    this.#logger = deps.logger;
    this.#clock = deps.clock ?? (() => new Date());
    this.#sampler = new VaultSampler(deps.chain.contracts, deps.chain.provider);
    this.#onIndexed = deps.onIndexed ?? (() => undefined);
    this.#onProgress = deps.onProgress ?? (() => undefined);
  }

  /** A new block may be there (a receipt, another instance's notice): step now instead of at the next poll. */
  wake(): void {
    if (!this.#running || this.#stopped) return;
    if (this.#wake) this.#wake();
    else this.#wokenDuringStep = true;
  }

  /** Runs steps in the background until `stop`. A halt left by an earlier run is cleared: the check runs again. */
  /** True while this instance holds the writer's lease (as of its last step). */
  get isWriter(): boolean {
    return this.#writer;
  }

  start(): void {
    if (this.#running) return;
    this.#stopped = false;
    this.#running = (async () => {
      while (!this.#stopped) {
        let result: StepResult | "error";
        this.#wokenDuringStep = false;
        try {
          result = await this.step();
          this.#lastError = null;
        } catch (error) {
          result = "error";
          this.#lastError = error instanceof Error ? error.message : String(error);
          this.#logger.warn({ err: error }, "indexer step failed; retrying");
        }
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

  /** One step: takes or renews the lease, then indexes one batch if there is one. */
  async step(): Promise<StepResult> {
    const deployment = this.#chain.deployment;
    if (!deployment) return "no-deployment";
    if (await this.#store.halt()) return "halted";
    const wasWriter = this.#writer;
    this.#writer = await this.#store.acquireLease(this.holder, this.settings.leaseTtlMs, this.#clock());
    if (!this.#writer) return "standby";
    if (!wasWriter) this.#forgetWritten();

    const provider = this.#chain.provider;
    // The head is asked of the node, not taken from the head kept for reads (250 ms): a kept head would hold each new
    // block back by up to its age (the delay subscribers see). It is not asked while this instance is behind the head
    // it read last (catching up, a batch after another): the blocks up to it are there to index, and the round saved
    // is one of the few a batch waits for. Once caught up with it, every step asks.
    const lastHead = this.#knownHead;
    const behind =
      lastHead !== null && this.#writtenHeight !== null && this.#writtenHeight < lastHead - this.settings.finalityDepth;
    const [head, stored] = await Promise.all([
      behind
        ? lastHead
        : readChain("the block number", async () =>
            Number(await inOneRound(provider, (round) => round.send("eth_blockNumber", []))),
          ),
      this.#store.cursor(),
    ]);
    this.#knownHead = head;
    const target = head - this.settings.finalityDepth;
    const cursor = stored ?? { height: this.#startBlock() - 1, hash: "" };
    if (cursor.height >= target) {
      // A head below the cursor: the chain may have lost blocks the read model holds (a reorg to a shorter branch, a
      // restarted development chain). Its cursor block is looked for at once rather than when the chain grows past
      // it again, which may take long or never come; a node whose head report lags keeps the block, and nothing moves.
      if (stored && head < stored.height && !(await this.#headerOnChain(stored))) {
        await this.#rewind(stored);
        return "reorg";
      }
      return "caught-up";
    }
    const from = cursor.height + 1;
    const to = Math.min(from + this.settings.batchBlocks - 1, target);

    // JSON-RPC in few rounds, each sent as soon as it is complete (chain/rpcRound.ts). At once, in requests of their
    // own that the node answers in turn: a few headers (the batch's ends and probes between), the logs in pieces
    // (logPieces), the records of the vaults this instance keeps none of (read whole whatever the logs say) and the
    // figures of the others at the batch's last block. Each piece of logs is checked, classified and decoded while
    // the node works on the next, and a vault's first price-moving block is asked for as soon as a piece shows it.
    // Once every piece is in: the records of the kept vaults whose logs may have changed more than their figures
    // (#recordPlan), then the headers still needed to decide the time stamps of the blocks with a log (often none,
    // blockTimes.ts) with the hours' last points.
    const probing = inOneRound(provider, (round) => getHeaders(round, probes(from, to)));
    const addresses = this.#addresses();
    const readings = logPieces(from, to).map(([low, high]) =>
      inOneRound(provider, (round) => getLogs(round, addresses, low, high)),
    );
    const vaults = this.#vaultsAt(to);
    const unkept: VaultAddress[] = [];
    const keptAtEnd: SamplePoint[] = [];
    for (const vault of vaults) {
      const address = vault.address.toLowerCase();
      if (this.#records.has(address)) keptAtEnd.push({ address, block: to });
      else unkept.push(vault);
    }
    const unkeptRecords = inOneRound(provider, (round) => this.#sampler.read(unkept, to, round));
    const keptFigures = inOneRound(provider, (round) => this.#sampler.readPoints(keptAtEnd, round));
    // Awaited below, unless the step ends first.
    for (const pending of [...readings, unkeptRecords, keptFigures]) pending.catch(() => undefined);
    const probed = await probing;
    const first = probed.get(from);
    const last = probed.get(to);
    if (!first || !last) {
      // A block below the head read has gone: the chain changed under the batch. When that head was the one read last,
      // it is asked again at once.
      this.#knownHead = null;
      return behind ? "reorg" : "caught-up";
    }
    if (cursor.hash && first.parentHash !== cursor.hash) {
      await this.#rewind(cursor);
      return "reorg";
    }
    const chainId = this.#chain.chainId;
    // Every log's block must keep one hash, and the hash of each header read: a log of a block whose hash changed
    // meanwhile means a reorg is happening under this batch; the next step sees it through the parent check.
    const hashes = new Map<number, string>();
    const moving: RangeLog[] = [];
    const changed = new Set<string>();
    const events: IndexedEvent[] = [];
    const firsts: SamplePoint[] = [];
    // The vaults whose first point is written already or asked for in this step.
    const pointedOrAsked = new Set(this.#pointed);
    const firstReads: Promise<Omit<VaultSample, "timestamp">[]>[] = [];
    for (const reading of readings) {
      const logs = await reading;
      for (const log of logs) {
        if ((hashes.get(log.blockNumber) ?? log.blockHash) !== log.blockHash) return "reorg";
        hashes.set(log.blockNumber, log.blockHash);
      }
      const piece = this.#classify(logs);
      moving.push(...piece.moving);
      for (const address of piece.changed) changed.add(address);
      const fresh = firstPoints(piece.moving).filter((point) => !pointedOrAsked.has(point.address));
      if (fresh.length > 0) {
        for (const point of fresh) pointedOrAsked.add(point.address);
        firsts.push(...fresh);
        const reading = inOneRound(provider, (round) => this.#sampler.readPoints(fresh, round));
        reading.catch(() => undefined); // awaited below, once the events are written
        firstReads.push(reading);
        await requestsLeave();
      }
      // Each event gets its block's time stamp once the headers are in.
      for (const event of this.#chain.events.decodeAll(logs)) {
        events.push(indexedEvent(chainId, event, { hash: hashes.get(event.blockNumber) as string, timestamp: 0 }));
      }
    }
    const plan = this.#recordPlan(vaults, changed);
    const rereadRecords = inOneRound(provider, (round) => this.#sampler.read(plan.reread, to, round));
    const views = this.#vaultsAtEnd(plan, unkeptRecords, rereadRecords, keptFigures);
    views.catch(() => undefined); // awaited below, unless the step ends first
    const { minBlockInterval } = this.settings;
    // The last round; what is asked once it has gone (headers of a further round, points that waited for them) goes
    // out at once in a round of its own.
    const pointsRound = new RpcRound(provider);
    const inRound = <T>(ask: (round: RpcRound) => Promise<T>): Promise<T> =>
      pointsRound.sent ? inOneRound(provider, ask) : ask(pointsRound);
    const times = blockTimes(hashes.keys(), probed, minBlockInterval, (numbers) =>
      inRound((round) => getHeaders(round, numbers)),
    );
    times.catch(() => undefined); // awaited below
    // The last sample of each hour before the batch's last needs the time stamps of the blocks with a price-moving
    // event: when the headers read with the logs decide them all (no header is asked for), those points are read at
    // once, else once the remaining headers are in.
    const probedTimes = await blockTimes(
      moving.map((log) => log.blockNumber),
      probed,
      minBlockInterval,
      async () => new Map(),
    );
    const hourPoints = (timestamps: ReadonlyMap<number, number>) => {
      const points = hourEndPoints(moving, timestamps, last.timestamp, firsts);
      const reading = inRound((round) => this.#sampler.readPoints(points, round));
      reading.catch(() => undefined); // awaited below, once the events are written
      return reading;
    };
    let hourSamples = probedTimes && hourPoints(probedTimes.timestamps);
    pointsRound.flush();
    const known = await times;
    if (!known || [...hashes].some(([block, hash]) => (known.headers.get(block)?.hash ?? hash) !== hash)) {
      return "reorg";
    }
    hourSamples ??= hourPoints(known.timestamps);
    for (const event of events) event.timestamp = known.timestamps.get(event.block) as number;
    await this.#store.putEvents(events);
    const latest = (await views).map((record) => ({ ...record, timestamp: last.timestamp }));
    const samples = [...(await Promise.all(firstReads)).flat(), ...(await hourSamples)];
    const points = samples.flatMap((sample) =>
      snapshotsOf({ ...sample, timestamp: known.timestamps.get(sample.block) as number }, true),
    );
    const snapshots = [...points, ...latest.flatMap((record) => snapshotsOf(record, false))];
    await Promise.all([this.#store.putSnapshots(snapshots), this.#store.putVaults(latest)]);
    for (const record of latest) this.#records.set(record.address, record);
    for (const sample of samples) this.#pointed.add(sample.address);
    await this.#store.appendEventLog(events.map((event) => ({ action: "added" as const, event })));
    const next: IndexerCursor = { height: to, hash: last.hash };
    await this.#store.setCursor(next);
    this.#writtenHeight = to;
    this.#onProgress(next, events.length > 0);
    if (events.length > 0) this.#onIndexed(next);
    await this.#store.putCheckpoint(next, this.settings.reorgWindow);
    this.#logger.debug({ from, to, events: events.length }, "indexed");
    return "indexed";
  }

  /**
   * How each vault's record at `to` is made: read whole (one VaultLens `records` call) when this instance keeps none
   * of it (asked before the logs are in) or the batch has a log of it that may change more than its figures; else the
   * record this instance wrote last, with its figures read anew (VaultLens `samples`, a small part of the node's work).
   */
  #recordPlan(vaults: VaultAddress[], changed: ReadonlySet<string>): RecordPlan {
    const reread: VaultAddress[] = [];
    const kept = new Map<string, VaultRecord>();
    for (const vault of vaults) {
      const address = vault.address.toLowerCase();
      const record = this.#records.get(address);
      if (!record) continue;
      if (changed.has(address)) reread.push(vault);
      else kept.set(address, record);
    }
    return { vaults, reread, kept };
  }

  /**
   * The vaults' records at the batch's last block (its time stamp left to the caller), in the plan's order: those read
   * whole, and the kept records with their figures read anew (`keptFigures` holds every kept vault's; those of the
   * vaults read whole again are not used).
   */
  async #vaultsAtEnd(
    plan: RecordPlan,
    unkeptRecords: Promise<Omit<VaultRecord, "timestamp">[]>,
    rereadRecords: Promise<Omit<VaultRecord, "timestamp">[]>,
    keptFigures: Promise<Omit<VaultSample, "timestamp">[]>,
  ): Promise<Omit<VaultRecord, "timestamp">[]> {
    const [unkept, reread, figures] = await Promise.all([unkeptRecords, rereadRecords, keptFigures]);
    const records = new Map<string, Omit<VaultRecord, "timestamp">>(
      [...unkept, ...reread].map((view) => [view.address, view]),
    );
    for (const sample of figures) {
      const kept = plan.kept.get(sample.address);
      if (!kept) continue;
      const { timestamp: _, ...record } = kept;
      records.set(sample.address, { ...record, ...sample });
    }
    return plan.vaults.map((vault) => records.get(vault.address.toLowerCase()) as Omit<VaultRecord, "timestamp">);
  }

  /**
   * What the batch's logs mean for its samples, from one look at each: the price-moving vault logs (a snapshot point
   * is taken at them, once the lens is up), and the addresses with a log that may change more than a vault's figures
   * (a vault among them has its whole view read).
   */
  #classify(logs: readonly RangeLog[]): { moving: RangeLog[]; changed: Set<string> } {
    const moving: RangeLog[] = [];
    const changed = new Set<string>();
    for (const log of logs) {
      const event = this.#chain.events.identify(log);
      const vaultEvent = event?.contract.startsWith("NapVault:") ? event.name : undefined;
      if (vaultEvent && PRICE_MOVING_EVENTS.has(vaultEvent) && this.#lensAt(log.blockNumber)) moving.push(log);
      if (!vaultEvent || !FIGURES_ONLY_EVENTS.has(vaultEvent)) changed.add(log.address.toLowerCase());
    }
    return { moving, changed };
  }

  /** The header of block `point.height` when the chain has it with hash `point.hash`; null otherwise. */
  async #headerOnChain(point: IndexerCursor): Promise<BlockHeader | null> {
    const header = await readChain("a block header", () => getHeader(this.#chain.provider, point.height));
    return header?.hash === point.hash ? header : null;
  }

  /** Finds the newest checkpoint the chain still has and deletes everything above it; halts past the window. */
  async #rewind(cursor: IndexerCursor): Promise<void> {
    let ancestorHeader: BlockHeader | null = null;
    for (const checkpoint of await this.#store.checkpoints(cursor.height)) {
      if (cursor.height - checkpoint.height > this.settings.reorgWindow) break;
      ancestorHeader = await this.#headerOnChain(checkpoint);
      if (ancestorHeader) break;
    }
    if (!ancestorHeader) {
      const reason =
        `reorg deeper than the window: block ${cursor.height} (${cursor.hash}) is no longer on the chain and no ` +
        `checkpoint within ${this.settings.reorgWindow} blocks below it is; the read model stays at block ` +
        `${cursor.height} until an operator re-indexes`;
      await this.#store.setHalt({ reason, at: this.#clock() });
      this.#logger.error({ cursor }, reason);
      return;
    }
    const ancestor: IndexerCursor = { height: ancestorHeader.number, hash: ancestorHeader.hash };
    this.#logger.warn({ from: cursor.height, to: ancestor.height }, "reorg: rewinding the read model");
    // The log's "removed" entries first: a crash before the delete repeats both, and the log keeps one of each.
    const doomed = (await this.#store.events({ aboveBlock: ancestor.height })).reverse();
    await this.#store.appendEventLog(doomed.map((event) => ({ action: "removed" as const, event })));
    await this.#store.deleteEventsAbove(ancestor.height);
    await this.#store.deleteSnapshotsAbove(ancestor.height);
    await this.#store.deleteCheckpointsAbove(ancestor.height);
    // The vaults' records are replaced by those at the ancestor first, so readers never find a vault the chain still
    // has unlisted; what is left above it then is a vault deployed on the lost branch. Both before the cursor moves: a
    // process that dies before it still has the cursor's block gone and rewinds again, whereas one that died after
    // would find nothing to index and serve what the rewind had not yet written.
    await this.#rewriteVaultsAt(ancestorHeader);
    await this.#store.deleteVaultsAbove(ancestor.height);
    await this.#store.setCursor(ancestor);
    this.#onProgress(ancestor, doomed.length > 0);
    this.#forgetWritten();
    if (doomed.length > 0) this.#onIndexed(ancestor);
  }

  /**
   * The vaults' records (and their hour and day snapshots) as the chain has them at the block a rewind went back to:
   * those written last came from the branch that is gone, and the next batch, which writes them again, waits for a
   * block past this one, which a chain that lost its newest blocks may not make soon.
   */
  async #rewriteVaultsAt(header: BlockHeader): Promise<void> {
    const records = (await this.#sampler.read(this.#vaultsAt(header.number), header.number)).map((record) => ({
      ...record,
      timestamp: header.timestamp,
    }));
    const snapshots = records.flatMap((record) => snapshotsOf(record, false));
    await Promise.all([this.#store.putSnapshots(snapshots), this.#store.putVaults(records)]);
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

  /** Forgets what this instance wrote (another branch of the chain, or another writer, may have replaced it). */
  #forgetWritten(): void {
    this.#records.clear();
    this.#pointed.clear();
    this.#writtenHeight = null;
  }

  #startBlock(): number {
    const deployment = this.#chain.deployment;
    if (!deployment) return 0;
    const blocks = [
      ...Object.values(deployment.contracts).map((c) => c.block),
      ...Object.values(deployment.vaults).map((v) => v?.block ?? Infinity),
    ];
    return Math.min(...blocks);
  }

  /** Every contract address of the deployment except the asset (its transfers are not the protocol's). */
  #addresses(): string[] {
    const deployment = this.#chain.deployment;
    if (!deployment) return [];
    return [
      ...Object.values(deployment.contracts).map((c) => c.address),
      ...this.#chain.contracts.vaultList().map((v) => v.address),
    ];
  }

  /** Whether the VaultLens is deployed at `block` (samples are taken from then on). */
  #lensAt(block: number): boolean {
    const lens = this.#chain.deployment?.contracts.VaultLens;
    return lens !== undefined && lens.block <= block;
  }

  /** The vaults the lens can read at `block` (both deployed by then). */
  #vaultsAt(block: number): VaultAddress[] {
    const deployment = this.#chain.deployment;
    if (!deployment || !this.#lensAt(block)) return [];
    return this.#chain.contracts
      .vaultList()
      .filter((vault) => (deployment.vaults[vault.id]?.block ?? Infinity) <= block);
  }
}
