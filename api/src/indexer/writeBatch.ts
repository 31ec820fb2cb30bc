import type { IndexerCursor } from "../readmodel/records";
import type { ReadModelStore } from "../readmodel/store";
import type { BatchRead } from "./readBatch";

/**
 * The write of a batch, in an order that a crash at any point cannot spoil: the events, the snapshots and the vaults'
 * records, the event log (all idempotent: a restart re-reads the batch and writes the same records again), then the
 * cursor, which marks the batch done, then its block as a checkpoint, where a rewind may stop (rewind.ts). Answers
 * the new cursor.
 */
export async function writeBatch(store: ReadModelStore, batch: BatchRead, reorgWindow: number): Promise<IndexerCursor> {
  await store.putEvents(batch.events);
  await Promise.all([store.putSnapshots(batch.snapshots), store.putVaults(batch.records)]);
  await store.appendEventLog(batch.events.map((event) => ({ action: "added" as const, event })));
  const cursor: IndexerCursor = { height: batch.last.number, hash: batch.last.hash };
  await store.setCursor(cursor);
  await store.putCheckpoint(cursor, reorgWindow);
  return cursor;
}
