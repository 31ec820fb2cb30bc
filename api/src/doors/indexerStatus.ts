import type { ChainAccess } from "../chain";
import type { Indexer, IndexerStatus } from "../indexer/indexer";
import type { DataQueries } from "../readmodel/queries";

/** The indexer's status from this instance's indexer, or (without one) from the store and the chain. */
export async function indexerStatus(
  queries: DataQueries,
  chain: ChainAccess,
  indexer: Indexer | null,
): Promise<IndexerStatus> {
  if (indexer) return indexer.status();
  const [cursor, halt, head] = await Promise.all([
    queries.cursor(),
    queries.halt(),
    chain.head.latest().catch(() => null),
  ]);
  return {
    role: "reader",
    indexedBlock: cursor?.height ?? null,
    indexedHash: cursor?.hash ?? null,
    headBlock: head,
    lagBlocks: cursor && head !== null ? Math.max(0, head - cursor.height) : null,
    finalityDepth: 0,
    halt,
    lastError: null,
  };
}
