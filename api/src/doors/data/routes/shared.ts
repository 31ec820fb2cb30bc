import type { Context } from "koa";
import { isAddress } from "ethers";
import { z } from "zod";
import type { ChainAccess } from "../../../chain";
import type { Indexer } from "../../../indexer/indexer";
import type { DataQueries } from "../../../readmodel/queries";
import {
  atLeastBlock,
  chooseMinBlock,
  notYetIndexedMessage,
  NOT_YET_INDEXED_RETRY_SECONDS,
  type MinBlockDeps,
} from "../../../readmodel/freshness";
import { UnavailableError } from "../../../errors";
import { invalid } from "../errors";

/** What the data API's read routes need, and the checks they share. */

export interface DataRouteDeps {
  queries: DataQueries;
  chain: ChainAccess;
  /** The indexer of this instance (null: this instance runs none and reads the store's cursor only). */
  indexer: Indexer | null;
}

/** The tag and the answers every read route shares. */
export const DATA_TAG = "data";

export const MIN_BLOCK_DESCRIPTION =
  "the block your write was mined in: the answer waits (up to 2 s) until it is indexed, else 503 " +
  "NOT_YET_INDEXED with Retry-After; beyond the chain's head: 400 INVALID_MIN_BLOCK";

/** A query parameter as the query string gives it; `json` is what the OpenAPI document says it holds. */
export function queryParameter(description: string, json: Record<string, unknown> = {}) {
  return z
    .string()
    .optional()
    .meta({ description, ...json });
}

/** `minBlock` (query; X-Min-Block is its header form): read-your-writes. */
export const minBlockParameter = queryParameter(MIN_BLOCK_DESCRIPTION, { type: "integer", minimum: 0 });

/** A read route's query: `minBlock` and the route's own parameters. */
export function readQuery<S extends z.core.$ZodLooseShape>(shape: S) {
  return z.strictObject({ ...shape, minBlock: minBlockParameter });
}

/** Path parameters, validated by the handler (so that the message names the data API's code). */
export const addressParams = z.strictObject({ address: z.string() });

export function requireAddress(value: string, field = "address"): string {
  if (!isAddress(value)) {
    throw invalid("INVALID_ADDRESS", `${field}: '${String(value).slice(0, 80)}' is not an Ethereum address`, {
      field,
    });
  }
  return value;
}

/**
 * Read-your-writes: `minBlock` (query) or `X-Min-Block` (header) makes the read wait for that indexed block
 * (readmodel/freshness.ts); not reached in time: 503 NOT_YET_INDEXED with Retry-After. Sets X-Indexed-Block.
 */
export function readYourWrites({ queries, chain }: DataRouteDeps): (ctx: Context) => Promise<void> {
  const minBlockDeps: MinBlockDeps = {
    waitForBlock: (block) => queries.waitForBlock(block),
    head: (fresh) => (fresh ? chain.head.checkBlock() : chain.head.latest()).catch(() => null),
  };
  return async (ctx) => {
    const chosen = chooseMinBlock([
      [ctx.query.minBlock, "minBlock"],
      [ctx.req.headers["x-min-block"], "X-Min-Block"],
    ]);
    const outcome =
      "message" in chosen
        ? ({ status: "invalid", ...chosen } as const)
        : await atLeastBlock(minBlockDeps, chosen.raw, chosen.field);
    if (outcome.status === "invalid") {
      throw invalid("INVALID_MIN_BLOCK", outcome.message, { field: outcome.field });
    }
    if (outcome.status === "behind") {
      const { minBlock, indexedBlock } = outcome;
      throw new UnavailableError(
        notYetIndexedMessage(minBlock, indexedBlock),
        { minBlock, indexedBlock },
        { retryAfterSeconds: NOT_YET_INDEXED_RETRY_SECONDS, reason: "NOT_YET_INDEXED" },
      );
    }
    const height = outcome.status === "reached" ? outcome.indexedBlock : (await queries.cursor())?.height;
    if (height !== null && height !== undefined) ctx.set("X-Indexed-Block", String(height));
  };
}
