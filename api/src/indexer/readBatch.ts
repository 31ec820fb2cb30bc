import type { ChainAccess } from "../chain";
import type { VaultAddress } from "../chain/contracts";
import { getBlockHeaders, getLogs, type BlockHeader, type ChainLog } from "../chain/rpc/actions";
import { inOneRound, RpcRound } from "../chain/rpc/round";
import type { IndexedEvent, VaultRecord, VaultSnapshot } from "../readmodel/records";
import { blockTimes, probes } from "./blockTimes";
import { FIGURES_ONLY_EVENTS, indexedEvent, PRICE_MOVING_EVENTS } from "./facts";
import type { BatchRange, IndexedContracts } from "./plan";
import {
  firstPoints,
  hourEndPoints,
  snapshotsOf,
  type SamplePoint,
  type VaultSample,
  type VaultSampler,
} from "./sampler";
import type { WrittenState } from "./written";

/**
 * The batch read: everything the read model gets from a range of blocks (its events with their blocks' time stamps,
 * the vaults' records at its last block, snapshot points), in few JSON-RPC rounds, each sent as soon as it is complete
 * (chain/rpc/round.ts).
 *
 * At once, in requests of their own that the node answers in turn: a few headers (the batch's ends and probes
 * between), the logs in pieces (logPieces), the records of the vaults this instance keeps none of (read whole whatever
 * the logs say) and the figures of the others at the batch's last block. Each piece of logs is checked, classified and
 * decoded while the node works on the next, and a vault's first price-moving block is asked for as soon as a piece
 * shows it. Once every piece is in: the records of the kept vaults whose logs may have changed more than their figures
 * (recordPlan), then the headers still needed to decide the time stamps of the blocks with a log (often none,
 * blockTimes.ts) with the hours' last points.
 */

/** What a batch gives the read model (writeBatch.ts writes it). */
export interface BatchRead {
  /** The batch's last block: the cursor once written. */
  readonly last: BlockHeader;
  readonly events: IndexedEvent[];
  /** The vaults' records at the last block. */
  readonly records: VaultRecord[];
  /** Snapshot points and the hour and day buckets of the records. */
  readonly snapshots: VaultSnapshot[];
  /** The vaults a snapshot point was taken of. */
  readonly pointed: Set<string>;
}

/**
 * Why a batch was not read: `missing-block`, a block below the head read has gone; `new-branch`, the first block's
 * parent is not the cursor (the chain reorganised below the batch: rewind.ts); `changing`, a block's hash changed
 * while the batch was read (a reorganisation under way, which the next step sees as a new branch).
 */
export type BatchRefusal = "missing-block" | "new-branch" | "changing";

export interface BatchReader {
  readonly chain: ChainAccess;
  readonly contracts: IndexedContracts;
  readonly sampler: VaultSampler;
  readonly written: WrittenState;
  /** IndexerSettings.minBlockInterval. */
  readonly minBlockInterval: number;
}

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

/** A read awaited later, unless the batch ends first: its failure is not left unhandled meanwhile. */
function later<T>(pending: Promise<T>): Promise<T> {
  pending.catch(() => undefined);
  return pending;
}

/** Reads the batch `range`; a refusal when the chain changed under it. */
export async function readBatch(reader: BatchReader, range: BatchRange): Promise<BatchRead | BatchRefusal> {
  const { chain, contracts, sampler, written, minBlockInterval } = reader;
  const { rpc } = chain;
  const { cursor, from, to } = range;

  const probing = inOneRound(rpc, (round) => getBlockHeaders(round, probes(from, to)));
  const addresses = contracts.addresses();
  const readings = logPieces(from, to).map(([low, high]) =>
    later(inOneRound(rpc, (round) => getLogs(round, addresses, low, high))),
  );
  const vaults = contracts.vaultsAt(to);
  const unkept: VaultAddress[] = [];
  const keptAtEnd: SamplePoint[] = [];
  for (const vault of vaults) {
    const address = vault.address.toLowerCase();
    if (written.records.has(address)) keptAtEnd.push({ address, block: to });
    else unkept.push(vault);
  }
  const unkeptRecords = later(inOneRound(rpc, (round) => sampler.read(unkept, to, round)));
  const keptFigures = later(inOneRound(rpc, (round) => sampler.readPoints(keptAtEnd, round)));
  const probed = await probing;
  const first = probed.get(from);
  const last = probed.get(to);
  if (!first || !last) return "missing-block";
  if (cursor.hash && first.parentHash !== cursor.hash) return "new-branch";

  // Every log's block must keep one hash, and the hash of each header read: a log of a block whose hash changed
  // meanwhile means a reorganisation is happening under this batch; the next step sees it through the parent check.
  const hashes = new Map<number, string>();
  const moving: ChainLog[] = [];
  const changed = new Set<string>();
  const events: IndexedEvent[] = [];
  const firsts: SamplePoint[] = [];
  // The vaults whose first point is written already or asked for in this batch.
  const pointedOrAsked = new Set(written.pointed);
  const firstReads: Promise<Omit<VaultSample, "timestamp">[]>[] = [];
  for (const reading of readings) {
    const logs = await reading;
    for (const log of logs) {
      if ((hashes.get(log.blockNumber) ?? log.blockHash) !== log.blockHash) return "changing";
      hashes.set(log.blockNumber, log.blockHash);
    }
    const piece = classify(reader, logs);
    moving.push(...piece.moving);
    for (const address of piece.changed) changed.add(address);
    const fresh = firstPoints(piece.moving).filter((point) => !pointedOrAsked.has(point.address));
    if (fresh.length > 0) {
      for (const point of fresh) pointedOrAsked.add(point.address);
      firsts.push(...fresh);
      firstReads.push(later(inOneRound(rpc, (round) => sampler.readPoints(fresh, round))));
      await requestsLeave();
    }
    // Each event gets its block's time stamp once the headers are in.
    for (const event of chain.events.decodeAll(logs)) {
      events.push(indexedEvent(chain.chainId, event, { hash: hashes.get(event.blockNumber) as string, timestamp: 0 }));
    }
  }
  const plan = recordPlan(written, vaults, changed);
  const rereadRecords = inOneRound(rpc, (round) => sampler.read(plan.reread, to, round));
  const views = later(vaultsAtEnd(plan, unkeptRecords, rereadRecords, keptFigures));
  // The last round; what is asked once it has gone (headers of a further round, points that waited for them) goes
  // out at once in a round of its own.
  const pointsRound = new RpcRound(rpc);
  const inRound = <T>(ask: (round: RpcRound) => Promise<T>): Promise<T> =>
    pointsRound.sent ? inOneRound(rpc, ask) : ask(pointsRound);
  const times = later(
    blockTimes(hashes.keys(), probed, minBlockInterval, (numbers) =>
      inRound((round) => getBlockHeaders(round, numbers)),
    ),
  );
  // The last sample of each hour before the batch's last needs the time stamps of the blocks with a price-moving
  // event: when the headers read with the logs decide them all (no header is asked for), those points are read at
  // once, else once the remaining headers are in.
  const probedTimes = await blockTimes(
    moving.map((log) => log.blockNumber),
    probed,
    minBlockInterval,
    async () => new Map(),
  );
  const hourPoints = (timestamps: ReadonlyMap<number, number>) =>
    later(inRound((round) => sampler.readPoints(hourEndPoints(moving, timestamps, last.timestamp, firsts), round)));
  let hourSamples = probedTimes && hourPoints(probedTimes.timestamps);
  pointsRound.flush();
  const known = await times;
  if (!known || [...hashes].some(([block, hash]) => (known.headers.get(block)?.hash ?? hash) !== hash)) {
    return "changing";
  }
  hourSamples ??= hourPoints(known.timestamps);
  for (const event of events) event.timestamp = known.timestamps.get(event.block) as number;
  const records = (await views).map((record) => ({ ...record, timestamp: last.timestamp }));
  const samples = [...(await Promise.all(firstReads)).flat(), ...(await hourSamples)];
  const points = samples.flatMap((sample) =>
    snapshotsOf({ ...sample, timestamp: known.timestamps.get(sample.block) as number }, true),
  );
  return {
    last,
    events,
    records,
    snapshots: [...points, ...records.flatMap((record) => snapshotsOf(record, false))],
    pointed: new Set(samples.map((sample) => sample.address)),
  };
}

/** How a batch's vault records are made (recordPlan). */
interface RecordPlan {
  /** The vaults the lens reads at the batch's last block, in order. */
  vaults: VaultAddress[];
  /** Those with a record kept by this instance that a log of the batch may have changed: read whole again. */
  reread: VaultAddress[];
  /** Those with a record kept that only the figures change: the record this instance wrote last, by address. */
  kept: Map<string, VaultRecord>;
}

/**
 * How each vault's record at the batch's end is made: read whole (one VaultLens `records` call) when this instance
 * keeps none of it (asked before the logs are in) or the batch has a log of it that may change more than its figures;
 * else the record this instance wrote last, with its figures read anew (VaultLens `samples`, a small part of the
 * node's work).
 */
function recordPlan(written: WrittenState, vaults: VaultAddress[], changed: ReadonlySet<string>): RecordPlan {
  const reread: VaultAddress[] = [];
  const kept = new Map<string, VaultRecord>();
  for (const vault of vaults) {
    const address = vault.address.toLowerCase();
    const record = written.records.get(address);
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
async function vaultsAtEnd(
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
function classify(reader: BatchReader, logs: readonly ChainLog[]): { moving: ChainLog[]; changed: Set<string> } {
  const moving: ChainLog[] = [];
  const changed = new Set<string>();
  for (const log of logs) {
    const event = reader.chain.events.identify(log);
    const vaultEvent = event?.contract.startsWith("NapVault:") ? event.name : undefined;
    if (vaultEvent && PRICE_MOVING_EVENTS.has(vaultEvent) && reader.contracts.lensAt(log.blockNumber)) moving.push(log);
    if (!vaultEvent || !FIGURES_ONLY_EVENTS.has(vaultEvent)) changed.add(log.address.toLowerCase());
  }
  return { moving, changed };
}
