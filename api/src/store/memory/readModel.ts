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
import { plainCopy } from "./plainCopy";

/** The read model in memory (one process; records copied in and out, so no caller holds the store's own objects). */

const copy = plainCopy;

function chainOrder(a: IndexedEvent, b: IndexedEvent): number {
  return a.block - b.block || a.logIndex - b.logIndex;
}

export class MemoryReadModelStore implements ReadModelStore {
  readonly #events = new Map<string, IndexedEvent>();
  readonly #snapshots = new Map<string, VaultSnapshot>();
  readonly #vaults = new Map<string, VaultRecord>();
  readonly #checkpoints = new Map<number, IndexerCursor>();
  readonly #log: EventLogEntry[] = [];
  /** The (block hash, action) pairs logged per event id: each (event, block hash, action) is logged once. */
  readonly #logged = new Map<string, { blockHash: string; action: EventLogEntry["action"] }[]>();
  #cursor: IndexerCursor | null = null;
  #halt: IndexerHalt | null = null;
  #lease: IndexerLease | null = null;

  async events(query: EventQuery): Promise<IndexedEvent[]> {
    const addresses = query.addresses && new Set(query.addresses);
    const names = query.names && new Set(query.names);
    const contracts = query.contracts && new Set(query.contracts);
    return [...this.#events.values()]
      .filter(
        (event) =>
          (query.aboveBlock === undefined || event.block > query.aboveBlock) &&
          (!query.user || event.users.includes(query.user)) &&
          (!addresses || addresses.has(event.address)) &&
          (!names || names.has(event.name)) &&
          (!contracts || contracts.has(event.contract)),
      )
      .sort(chainOrder)
      .map(copy);
  }

  async vaults(): Promise<VaultRecord[]> {
    return [...this.#vaults.values()].map(copy);
  }

  async snapshots(vault: string, resolution: SnapshotResolution, fromTimestamp: number): Promise<VaultSnapshot[]> {
    return [...this.#snapshots.values()]
      .filter((s) => s.vault === vault && s.resolution === resolution && s.timestamp >= fromTimestamp)
      .sort((a, b) => a.timestamp - b.timestamp || a.block - b.block)
      .map(copy);
  }

  async firstSnapshot(vault: string): Promise<VaultSnapshot | null> {
    let first: VaultSnapshot | null = null;
    for (const s of this.#snapshots.values()) {
      if (s.vault === vault && (!first || s.block < first.block)) first = s;
    }
    return first && copy(first);
  }

  async cursor(): Promise<IndexerCursor | null> {
    return this.#cursor && copy(this.#cursor);
  }

  async halt(): Promise<IndexerHalt | null> {
    return this.#halt && copy(this.#halt);
  }

  async lease(): Promise<IndexerLease | null> {
    return this.#lease && copy(this.#lease);
  }

  async eventLog(afterSeq: number, limit: number): Promise<EventLogEntry[]> {
    // Entry i holds seq i + 1 (appended without gaps), so the page is a slice, not a scan of the whole log.
    return this.#log.slice(Math.max(0, afterSeq), Math.max(0, afterSeq) + Math.max(0, limit)).map(copy);
  }

  async lastEventSeq(): Promise<number> {
    return this.#log.length;
  }

  async putEvents(events: readonly IndexedEvent[]): Promise<void> {
    for (const event of events) if (!this.#events.has(event.id)) this.#events.set(event.id, copy(event));
  }

  async deleteEventsAbove(height: number): Promise<IndexedEvent[]> {
    const removed = [...this.#events.values()].filter((event) => event.block > height).sort(chainOrder);
    for (const event of removed) this.#events.delete(event.id);
    return removed.map(copy);
  }

  async putSnapshots(snapshots: readonly VaultSnapshot[]): Promise<void> {
    for (const snapshot of snapshots) {
      const key = `${snapshot.vault}:${snapshot.resolution}:${snapshot.key}`;
      const stored = this.#snapshots.get(key);
      if (!stored || stored.block <= snapshot.block) this.#snapshots.set(key, copy(snapshot));
    }
  }

  async deleteSnapshotsAbove(height: number): Promise<void> {
    for (const [key, snapshot] of this.#snapshots) if (snapshot.block > height) this.#snapshots.delete(key);
  }

  async putVaults(vaults: readonly VaultRecord[]): Promise<void> {
    for (const vault of vaults) this.#vaults.set(vault.address, copy(vault));
  }

  async deleteVaultsAbove(height: number): Promise<void> {
    for (const [address, vault] of this.#vaults) if (vault.block > height) this.#vaults.delete(address);
  }

  async setCursor(cursor: IndexerCursor): Promise<void> {
    this.#cursor = copy(cursor);
  }

  async putCheckpoint(cursor: IndexerCursor, keep: number): Promise<void> {
    this.#checkpoints.set(cursor.height, copy(cursor));
    const heights = [...this.#checkpoints.keys()].sort((a, b) => b - a);
    for (const height of heights.slice(keep)) this.#checkpoints.delete(height);
  }

  async checkpoints(height: number): Promise<IndexerCursor[]> {
    return [...this.#checkpoints.values()]
      .filter((c) => c.height <= height)
      .sort((a, b) => b.height - a.height)
      .map(copy);
  }

  async deleteCheckpointsAbove(height: number): Promise<void> {
    for (const key of [...this.#checkpoints.keys()]) if (key > height) this.#checkpoints.delete(key);
  }

  async setHalt(halt: IndexerHalt | null): Promise<void> {
    this.#halt = halt && copy(halt);
  }

  async appendEventLog(entries: readonly Omit<EventLogEntry, "seq">[]): Promise<void> {
    for (const entry of entries) {
      const { id, blockHash } = entry.event;
      const logged = this.#logged.get(id);
      if (logged?.some((seen) => seen.blockHash === blockHash && seen.action === entry.action)) continue;
      if (logged) logged.push({ blockHash, action: entry.action });
      else this.#logged.set(id, [{ blockHash, action: entry.action }]);
      // The log's event is the stored record when that is the same log (same id and block hash): records are never
      // changed in place and are copied on the way out, so the two may share one copy.
      const stored = this.#events.get(entry.event.id);
      const event = stored?.blockHash === entry.event.blockHash ? stored : copy(entry.event);
      this.#log.push({ seq: this.#log.length + 1, action: entry.action, event });
    }
  }

  async acquireLease(holder: string, ttlMs: number, now: Date): Promise<boolean> {
    const lease = this.#lease;
    if (lease && lease.holder !== holder && lease.expiresAt.getTime() > now.getTime()) return false;
    this.#lease = { holder, expiresAt: new Date(now.getTime() + ttlMs) };
    return true;
  }

  async releaseLease(holder: string): Promise<void> {
    if (this.#lease?.holder === holder) this.#lease = null;
  }
}
