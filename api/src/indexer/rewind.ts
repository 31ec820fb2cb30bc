import type { ChainAccess } from "../chain";
import { getBlockHeader, type BlockHeader } from "../chain/rpc/actions";
import { readChain } from "../chain/rpcErrors";
import type { Logger } from "../logger";
import type { IndexerCursor } from "../readmodel/records";
import type { ReadModelStore } from "../readmodel/store";
import type { IndexedContracts } from "./plan";
import { snapshotsOf, type VaultSampler } from "./sampler";

/**
 * The rewind after a reorganisation: the newest checkpoint (the end of a batch written) that the chain still has is
 * the common ancestor of the branch indexed and the chain's; everything above it is deleted and the vaults' records
 * are written as of it. One deeper than `reorgWindow` blocks (or past every checkpoint) halts the indexer with the
 * reason in the store, where /health and /v1/status of every instance read it.
 */

export interface Rewinder {
  readonly chain: ChainAccess;
  readonly store: ReadModelStore;
  readonly logger: Logger;
  readonly contracts: IndexedContracts;
  readonly sampler: VaultSampler;
  readonly reorgWindow: number;
  readonly clock: () => Date;
}

/** The header of block `point.height` when the chain has it with hash `point.hash`; null otherwise. */
export async function headerOnChain(chain: ChainAccess, point: IndexerCursor): Promise<BlockHeader | null> {
  const header = await readChain("a block header", () => getBlockHeader(chain.rpc, point.height));
  return header?.hash === point.hash ? header : null;
}

/** The newest checkpoint at or below `cursor`, within the window, that the chain still has; null when none is. */
async function commonAncestor(rewinder: Rewinder, cursor: IndexerCursor): Promise<BlockHeader | null> {
  for (const checkpoint of await rewinder.store.checkpoints(cursor.height)) {
    if (cursor.height - checkpoint.height > rewinder.reorgWindow) return null;
    const header = await headerOnChain(rewinder.chain, checkpoint);
    if (header) return header;
  }
  return null;
}

/**
 * Rewinds the read model from `cursor`, which the chain no longer has, to the common ancestor; answers the ancestor
 * and whether the event log grew (its "removed" entries), or null when the indexer halted instead.
 */
export async function rewind(
  rewinder: Rewinder,
  cursor: IndexerCursor,
): Promise<{ ancestor: IndexerCursor; grewLog: boolean } | null> {
  const { store, logger } = rewinder;
  const header = await commonAncestor(rewinder, cursor);
  if (!header) {
    const reason =
      `reorg deeper than the window: block ${cursor.height} (${cursor.hash}) is no longer on the chain and no ` +
      `checkpoint within ${rewinder.reorgWindow} blocks below it is; the read model stays at block ` +
      `${cursor.height} until an operator re-indexes`;
    await store.setHalt({ reason, at: rewinder.clock() });
    logger.error({ cursor }, reason);
    return null;
  }
  const ancestor: IndexerCursor = { height: header.number, hash: header.hash };
  logger.warn({ from: cursor.height, to: ancestor.height }, "reorg: rewinding the read model");
  // The log's "removed" entries first: a crash before the delete repeats both, and the log keeps one of each.
  const doomed = (await store.events({ aboveBlock: ancestor.height })).reverse();
  await store.appendEventLog(doomed.map((event) => ({ action: "removed" as const, event })));
  await store.deleteEventsAbove(ancestor.height);
  await store.deleteSnapshotsAbove(ancestor.height);
  await store.deleteCheckpointsAbove(ancestor.height);
  // The vaults' records are replaced by those at the ancestor first, so readers never find a vault the chain still
  // has unlisted; what is left above it then is a vault deployed on the lost branch. Both before the cursor moves: a
  // process that dies before it still has the cursor's block gone and rewinds again, whereas one that died after
  // would find nothing to index and serve what the rewind had not yet written.
  await rewriteVaultsAt(rewinder, header);
  await store.deleteVaultsAbove(ancestor.height);
  await store.setCursor(ancestor);
  return { ancestor, grewLog: doomed.length > 0 };
}

/**
 * The vaults' records (and their hour and day snapshots) as the chain has them at the common ancestor: those written
 * last came from the branch that is gone, and the next batch, which writes them again, waits for a block past this
 * one, which a chain that lost its newest blocks may not make soon.
 */
async function rewriteVaultsAt(rewinder: Rewinder, header: BlockHeader): Promise<void> {
  const vaults = rewinder.contracts.vaultsAt(header.number);
  const records = (await rewinder.sampler.read(vaults, header.number)).map((record) => ({
    ...record,
    timestamp: header.timestamp,
  }));
  const snapshots = records.flatMap((record) => snapshotsOf(record, false));
  await Promise.all([rewinder.store.putSnapshots(snapshots), rewinder.store.putVaults(records)]);
}
