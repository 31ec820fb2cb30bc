import type {
  EventLogEntry,
  IndexedEvent,
  IndexerCursor,
  IndexerHalt,
  IndexerLease,
  SnapshotResolution,
  VaultRecord,
  VaultSnapshot,
} from "./records";

/**
 * The read model's store, as its two users need it: the query layer reads (`ReadModelReader`), the indexer writes
 * (`ReadModelWriter`). Both adapters (store/memory, store/mongo) pass test/api/store/readModelConformance.ts.
 *
 * Every write is idempotent: events by id, snapshots by (vault, resolution, key), vaults by address, the event log
 * by (event id, block hash, action). A writer that dies anywhere in a batch and writes the batch again leaves the
 * same state as one that never died.
 */

export interface EventQuery {
  /** Only events that concern this lowercase address. */
  user?: string;
  /** Only events of these contracts' lowercase addresses. */
  addresses?: readonly string[];
  /** Only events of these names. */
  names?: readonly string[];
  /** Only events of these contracts (deployment names, e.g. "StrategyRegistryV3"). */
  contracts?: readonly string[];
  /** Only events of blocks above this height. */
  aboveBlock?: number;
}

export interface ReadModelReader {
  /** Events matching `query`, in chain order (block, log index). */
  events(query: EventQuery): Promise<IndexedEvent[]>;
  vaults(): Promise<VaultRecord[]>;
  /** Snapshots of `vault` at `resolution` with `fromTimestamp <= timestamp`, oldest first. */
  snapshots(vault: string, resolution: SnapshotResolution, fromTimestamp: number): Promise<VaultSnapshot[]>;
  /** The oldest snapshot of `vault` (any resolution), or null. */
  firstSnapshot(vault: string): Promise<VaultSnapshot | null>;
  cursor(): Promise<IndexerCursor | null>;
  halt(): Promise<IndexerHalt | null>;
  lease(): Promise<IndexerLease | null>;
  /** Log entries with `seq > afterSeq`, oldest first, at most `limit`. */
  eventLog(afterSeq: number, limit: number): Promise<EventLogEntry[]>;
  /** The newest log entry's seq, 0 while the log is empty. */
  lastEventSeq(): Promise<number>;
}

export interface ReadModelWriter {
  /** Stores events (an id already stored is left as it is). */
  putEvents(events: readonly IndexedEvent[]): Promise<void>;
  /** Deletes the events of blocks above `height` and returns them (a reorg's rewind). */
  deleteEventsAbove(height: number): Promise<IndexedEvent[]>;
  /** Inserts or replaces snapshots; an hour or day bucket is replaced only by a sample of a later or equal block. */
  putSnapshots(snapshots: readonly VaultSnapshot[]): Promise<void>;
  deleteSnapshotsAbove(height: number): Promise<void>;
  putVaults(vaults: readonly VaultRecord[]): Promise<void>;
  /** Deletes the vault records read at blocks above `height` (a reorg's rewind: they describe a branch that is gone). */
  deleteVaultsAbove(height: number): Promise<void>;
  setCursor(cursor: IndexerCursor): Promise<void>;
  /** Block hashes kept for finding the common ancestor after a reorg (the newest `keep` are kept). */
  putCheckpoint(cursor: IndexerCursor, keep: number): Promise<void>;
  /** Checkpoints at or below `height`, newest first. */
  checkpoints(height: number): Promise<IndexerCursor[]>;
  deleteCheckpointsAbove(height: number): Promise<void>;
  setHalt(halt: IndexerHalt | null): Promise<void>;
  /**
   * Appends entries for the (event, action) pairs not yet in the log, in the given order, each with the next seq.
   * Only the lease holder appends, so the next seq is the last one + 1.
   */
  appendEventLog(entries: readonly Omit<EventLogEntry, "seq">[]): Promise<void>;
  /**
   * Takes or renews the indexer lease for `holder` until now + ttlMs: succeeds when it is free, expired or already
   * held by `holder`; one of several concurrent callers wins.
   */
  acquireLease(holder: string, ttlMs: number, now: Date): Promise<boolean>;
  releaseLease(holder: string): Promise<void>;
}

export interface ReadModelStore extends ReadModelReader, ReadModelWriter {}
