import type Redis from "ioredis";
import type { ChainAccess } from "./chain";
import type { Config } from "./config";
import { indexerStatus } from "./doors/indexerStatus";
import { Indexer, type IndexerStatus } from "./indexer/indexer";
import type { Logger } from "./logger";
import { EventFeed, type FeedOptions } from "./readmodel/feed";
import { RedisFeedNotices } from "./readmodel/notice";
import { DataQueries } from "./readmodel/queries";
import type { ReadModelStore } from "./readmodel/store";

/**
 * The read side, built once beside the use cases (app.ts builds both) and handed to every door that reads indexed
 * data: the query layer, the event feed subscriptions fan out from, and this instance's indexer (not started: the
 * server starts it). Notices between instances (a block indexed, a block mined) travel through Redis when there is one.
 */

export interface ReadSideDeps {
  config: Pick<Config, "indexer">;
  logger: Logger;
  chain: ChainAccess;
  store: ReadModelStore;
  /** The Redis that shares rate limits, when there is one: instances tell each other what they indexed through it. */
  redis?: Redis;
  clock?: () => Date;
  /** The event feed's poll interval and page size (default: FeedOptions' defaults). */
  feed?: FeedOptions;
}

export interface ReadSide {
  queries: DataQueries;
  feed: EventFeed;
  /** This instance's indexer, or null when INDEXER_ENABLED is off. */
  indexer: Indexer | null;
  /** The indexer's status from this instance's indexer, or (without one) from the store and the chain. */
  indexerStatus(): Promise<IndexerStatus>;
  /** Stops timers, the feed, the indexer and the notices. */
  close(): Promise<void>;
}

export function createReadSide(deps: ReadSideDeps): ReadSide {
  const { config, logger, chain } = deps;
  const queries = new DataQueries(deps.store);
  // The feed reads the event log when this instance's indexer has written to it, when another instance's indexer
  // says so through Redis, and at every poll in case a notice was lost.
  const feed = new EventFeed(deps.store, deps.feed);
  const notices = deps.redis
    ? new RedisFeedNotices({
        redis: deps.redis,
        logger,
        onNotice: () => feed.wake(),
        onIndexedHeight: (height) => queries.indexedBlockMoved(height),
        onMined: () => indexer?.wake(),
      })
    : null;
  const indexer = config.indexer.enabled
    ? new Indexer({
        chain,
        store: deps.store,
        logger,
        clock: deps.clock,
        settings: {
          finalityDepth: config.indexer.finalityDepth ?? defaultFinalityDepth(chain.chainId),
          batchBlocks: config.indexer.batchBlocks,
          minBlockInterval: config.indexer.minBlockInterval,
          pollMs: config.indexer.pollMs,
          reorgWindow: config.indexer.reorgWindow,
          leaseTtlMs: config.indexer.leaseTtlMs,
        },
        onIndexed: (cursor) => {
          feed.wake();
          notices?.publish(cursor.height);
        },
        onProgress: (cursor, grewLog) => {
          queries.indexedBlockMoved(cursor.height);
          if (!grewLog) notices?.publish(cursor.height, false);
        },
      })
    : null;
  queries.indexedBlocks.followChainHead((fresh) => (fresh ? chain.head.checkBlock() : chain.head.latest()));
  // A block this instance mined into (a receipt) or read wakes the indexer at once, here or, through Redis, on the
  // instance that holds the lease: a write's block is indexed without waiting for a poll.
  const stopFollowing = chain.head.onNewBlock((block) => {
    indexer?.wake();
    if (!indexer?.isWriter) notices?.publishMined(block);
  });

  return {
    queries,
    feed,
    indexer,
    indexerStatus: () => indexerStatus(queries, chain, indexer),
    async close() {
      feed.close();
      stopFollowing();
      queries.indexedBlocks.close();
      await indexer?.stop();
      await notices?.close();
    },
  };
}

/** Blocks below the head the indexer stays by default: none on a local chain, DEFAULT_FINALITY_DEPTH elsewhere. */
export const DEFAULT_FINALITY_DEPTH = 10;

export function defaultFinalityDepth(chainId: number): number {
  return chainId === 31337 || chainId === 1337 ? 0 : DEFAULT_FINALITY_DEPTH;
}
