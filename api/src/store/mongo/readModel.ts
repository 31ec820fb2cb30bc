import type { AnyBulkWriteOperation, Collection, Db } from "mongodb";
import type {
  EventLogEntry,
  IndexedEvent,
  IndexerCursor,
  IndexerHalt,
  IndexerLease,
  SnapshotResolution,
  VaultRecord,
  VaultSnapshot,
} from "../../readmodel/records";
import type { EventQuery, ReadModelStore } from "../../readmodel/store";
import { retryBusy } from "./busy";
import { isDuplicate } from "./duplicate";

/**
 * The read model in MongoDB. Idempotent writes without transactions (FerretDB v1 has none): events are inserted
 * with `$setOnInsert` upserts by id; a snapshot bucket is replaced under the filter "stored block <= new block", and
 * an upsert that finds a newer sample collides on _id and is dropped; the event log's unique `key` refuses a second
 * entry for one (event, block hash, action). The lease is a series of epochs as in the transaction journal: taking a
 * free lease inserts the next epoch, and the unique _id lets exactly one taker win.
 */

type EventDoc = Omit<IndexedEvent, "id"> & { _id: string };
type SnapshotDoc = VaultSnapshot & { _id: string };
type VaultDoc = VaultRecord & { _id: string };
interface StateDoc {
  _id: "cursor" | "halt";
  cursor?: IndexerCursor;
  halt?: IndexerHalt | null;
}
interface CheckpointDoc {
  _id: number;
  hash: string;
}
type LogDoc = { _id: number; key: string } & Omit<EventLogEntry, "seq">;
interface LeaseDoc {
  _id: string;
  epoch: number;
  holder: string;
  expiresAt: Date;
  released: boolean;
}

const LEASE = "indexer";

function toEvent({ _id, ...rest }: EventDoc): IndexedEvent {
  return { id: _id, ...rest };
}

function withoutId<T extends { _id: unknown }>({ _id, ...rest }: T): Omit<T, "_id"> {
  void _id;
  return rest;
}

function snapshotId(s: VaultSnapshot): string {
  return `${s.vault}:${s.resolution}:${s.key}`;
}

export class MongoReadModelStore implements ReadModelStore {
  readonly #events: Collection<EventDoc>;
  readonly #snapshots: Collection<SnapshotDoc>;
  readonly #vaults: Collection<VaultDoc>;
  readonly #state: Collection<StateDoc>;
  readonly #checkpoints: Collection<CheckpointDoc>;
  readonly #log: Collection<LogDoc>;
  readonly #leases: Collection<LeaseDoc>;

  constructor(db: Db) {
    this.#events = db.collection("rm_events");
    this.#snapshots = db.collection("rm_snapshots");
    this.#vaults = db.collection("rm_vaults");
    this.#state = db.collection("rm_state");
    this.#checkpoints = db.collection("rm_checkpoints");
    this.#log = db.collection("rm_event_log");
    this.#leases = db.collection("rm_leases");
  }

  async init(): Promise<void> {
    await retryBusy(() => this.#events.createIndex({ block: 1, logIndex: 1 }, { name: "by_position" }));
    await retryBusy(() => this.#events.createIndex({ users: 1, block: 1 }, { name: "by_user" }));
    await retryBusy(() => this.#events.createIndex({ address: 1, block: 1 }, { name: "by_address" }));
    await retryBusy(() => this.#events.createIndex({ contract: 1, block: 1 }, { name: "by_contract" }));
    await retryBusy(() =>
      this.#snapshots.createIndex({ vault: 1, resolution: 1, timestamp: 1 }, { name: "by_vault_time" }),
    );
    await retryBusy(() => this.#snapshots.createIndex({ block: 1 }, { name: "by_block" }));
    await retryBusy(() => this.#log.createIndex({ key: 1 }, { name: "by_key", unique: true }));
  }

  async events(query: EventQuery): Promise<IndexedEvent[]> {
    const filter: Record<string, unknown> = {};
    if (query.user) filter.users = query.user;
    if (query.addresses) filter.address = { $in: [...query.addresses] };
    if (query.names) filter.name = { $in: [...query.names] };
    if (query.contracts) filter.contract = { $in: [...query.contracts] };
    if (query.aboveBlock !== undefined) filter.block = { $gt: query.aboveBlock };
    const docs = await this.#events.find(filter).sort({ block: 1, logIndex: 1 }).toArray();
    return docs.map(toEvent);
  }

  async vaults(): Promise<VaultRecord[]> {
    return (await this.#vaults.find({}).toArray()).map(withoutId);
  }

  async snapshots(vault: string, resolution: SnapshotResolution, fromTimestamp: number): Promise<VaultSnapshot[]> {
    const docs = await this.#snapshots
      .find({ vault, resolution, timestamp: { $gte: fromTimestamp } })
      .sort({ timestamp: 1, block: 1 })
      .toArray();
    return docs.map(withoutId);
  }

  async firstSnapshot(vault: string): Promise<VaultSnapshot | null> {
    const doc = await this.#snapshots.find({ vault }).sort({ block: 1 }).limit(1).next();
    return doc && withoutId(doc);
  }

  async cursor(): Promise<IndexerCursor | null> {
    return (await this.#state.findOne({ _id: "cursor" }))?.cursor ?? null;
  }

  async halt(): Promise<IndexerHalt | null> {
    return (await this.#state.findOne({ _id: "halt" }))?.halt ?? null;
  }

  async lease(): Promise<IndexerLease | null> {
    const latest = await this.#latestLease();
    return latest && !latest.released ? { holder: latest.holder, expiresAt: latest.expiresAt } : null;
  }

  async eventLog(afterSeq: number, limit: number): Promise<EventLogEntry[]> {
    if (limit <= 0) return []; // MongoDB reads limit(0) as no limit
    const docs = await this.#log
      .find({ _id: { $gt: afterSeq } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map(({ _id, action, event }) => ({ seq: _id, action, event }));
  }

  async lastEventSeq(): Promise<number> {
    const last = await this.#log
      .find({}, { projection: { _id: 1 } })
      .sort({ _id: -1 })
      .limit(1)
      .next();
    return last?._id ?? 0;
  }

  async putEvents(events: readonly IndexedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const operations: AnyBulkWriteOperation<EventDoc>[] = events.map(({ id, ...rest }) => ({
      updateOne: { filter: { _id: id }, update: { $setOnInsert: rest }, upsert: true },
    }));
    await retryBusy(() => this.#events.bulkWrite(operations, { ordered: false }));
  }

  async deleteEventsAbove(height: number): Promise<IndexedEvent[]> {
    const docs = await this.#events
      .find({ block: { $gt: height } })
      .sort({ block: 1, logIndex: 1 })
      .toArray();
    if (docs.length > 0) await retryBusy(() => this.#events.deleteMany({ block: { $gt: height } }));
    return docs.map(toEvent);
  }

  async putSnapshots(snapshots: readonly VaultSnapshot[]): Promise<void> {
    for (const snapshot of snapshots) {
      const _id = snapshotId(snapshot);
      try {
        await retryBusy(() =>
          this.#snapshots.replaceOne({ _id, block: { $lte: snapshot.block } }, { ...snapshot }, { upsert: true }),
        );
      } catch (error) {
        // A sample of a later block holds the bucket: this older one is not wanted.
        if (!isDuplicate(error)) throw error;
      }
    }
  }

  async deleteSnapshotsAbove(height: number): Promise<void> {
    await retryBusy(() => this.#snapshots.deleteMany({ block: { $gt: height } }));
  }

  async putVaults(vaults: readonly VaultRecord[]): Promise<void> {
    for (const vault of vaults) {
      await retryBusy(() => this.#vaults.replaceOne({ _id: vault.address }, { ...vault }, { upsert: true }));
    }
  }

  async deleteVaultsAbove(height: number): Promise<void> {
    await retryBusy(() => this.#vaults.deleteMany({ block: { $gt: height } }));
  }

  async setCursor(cursor: IndexerCursor): Promise<void> {
    await retryBusy(() => this.#state.replaceOne({ _id: "cursor" }, { cursor }, { upsert: true }));
  }

  async putCheckpoint(cursor: IndexerCursor, keep: number): Promise<void> {
    await retryBusy(() =>
      this.#checkpoints.replaceOne({ _id: cursor.height }, { hash: cursor.hash }, { upsert: true }),
    );
    const stale = await this.#checkpoints.find({}).sort({ _id: -1 }).skip(keep).limit(1).next();
    if (stale) await retryBusy(() => this.#checkpoints.deleteMany({ _id: { $lte: stale._id } }));
  }

  async checkpoints(height: number): Promise<IndexerCursor[]> {
    const docs = await this.#checkpoints
      .find({ _id: { $lte: height } })
      .sort({ _id: -1 })
      .toArray();
    return docs.map((doc) => ({ height: doc._id, hash: doc.hash }));
  }

  async deleteCheckpointsAbove(height: number): Promise<void> {
    await retryBusy(() => this.#checkpoints.deleteMany({ _id: { $gt: height } }));
  }

  async setHalt(halt: IndexerHalt | null): Promise<void> {
    await retryBusy(() => this.#state.replaceOne({ _id: "halt" }, { halt }, { upsert: true }));
  }

  async appendEventLog(entries: readonly Omit<EventLogEntry, "seq">[]): Promise<void> {
    if (entries.length === 0) return;
    const keyed = entries.map((entry) => ({
      key: `${entry.event.id}:${entry.event.blockHash}:${entry.action}`,
      entry,
    }));
    const present = new Set(
      (await this.#log.find({ key: { $in: keyed.map((k) => k.key) } }, { projection: { key: 1 } }).toArray()).map(
        (doc) => doc.key,
      ),
    );
    const missing = keyed.filter((k) => !present.has(k.key));
    if (missing.length === 0) return;
    let seq = await this.lastEventSeq();
    const docs: LogDoc[] = missing.map(({ key, entry }) => ({ _id: ++seq, key, ...entry }));
    await retryBusy(() => this.#log.insertMany(docs, { ordered: true }));
  }

  async acquireLease(holder: string, ttlMs: number, now: Date): Promise<boolean> {
    const expiresAt = new Date(now.getTime() + ttlMs);
    const latest = await this.#latestLease();
    if (latest && !latest.released && latest.holder === holder) {
      await retryBusy(() => this.#leases.updateOne({ _id: latest._id }, { $set: { expiresAt } }));
      return (await this.#leases.findOne({ _id: `${LEASE}#${latest.epoch + 1}` })) === null;
    }
    if (latest && !latest.released && latest.expiresAt.getTime() > now.getTime()) return false;
    const epoch = (latest?.epoch ?? 0) + 1;
    try {
      await retryBusy(() =>
        this.#leases.insertOne({ _id: `${LEASE}#${epoch}`, epoch, holder, expiresAt, released: false }),
      );
    } catch (error) {
      if (isDuplicate(error)) return false;
      throw error;
    }
    await retryBusy(() => this.#leases.deleteMany({ epoch: { $lt: epoch - 1 } }));
    return true;
  }

  async releaseLease(holder: string): Promise<void> {
    const latest = await this.#latestLease();
    if (latest && latest.holder === holder && !latest.released) {
      await retryBusy(() => this.#leases.updateOne({ _id: latest._id }, { $set: { released: true } }));
    }
  }

  async #latestLease(): Promise<LeaseDoc | null> {
    return this.#leases.find({}).sort({ epoch: -1 }).limit(1).next();
  }
}
