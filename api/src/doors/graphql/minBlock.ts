import { GraphQLError } from "graphql";
import type { RequestHeaders } from "graphql-http";
import type { ChainAccess } from "../../chain";
import {
  atLeastBlock,
  chooseMinBlock,
  notYetIndexedMessage,
  NOT_YET_INDEXED_RETRY_SECONDS,
  type MinBlockDeps,
  type MinBlockOutcome,
} from "../../readmodel/freshness";
import type { DataQueries } from "../../readmodel/queries";

/**
 * Read-your-writes on the GraphQL door (readmodel/freshness.ts): an operation names the block its caller's write was
 * mined in as `extensions.minBlock` of the request (HTTP body or GET parameter, or the graphql-ws subscribe payload),
 * or over HTTP as the `X-Min-Block` header, and runs once that block is indexed. Not indexed within the wait:
 * NOT_YET_INDEXED (HTTP 503 with Retry-After; on a socket, the operation's error with `retryAfter`); malformed or
 * beyond the chain's head: INVALID_MIN_BLOCK (HTTP 400).
 */

export function minBlockDeps(queries: DataQueries, chain: ChainAccess): MinBlockDeps {
  return {
    waitForBlock: (block) => queries.waitForBlock(block),
    head: (fresh) => (fresh ? chain.head.checkBlock() : chain.head.latest()).catch(() => null),
  };
}

/** The errors of an operation whose minBlock is invalid or not reached, or undefined to run it. */
function refusal(outcome: MinBlockOutcome): { status: 400 | 503; error: GraphQLError } | undefined {
  if (outcome.status === "invalid") {
    const error = new GraphQLError(outcome.message, {
      extensions: { code: "INVALID_MIN_BLOCK", field: outcome.field },
    });
    return { status: 400, error };
  }
  if (outcome.status === "behind") {
    const { minBlock, indexedBlock } = outcome;
    const error = new GraphQLError(notYetIndexedMessage(minBlock, indexedBlock), {
      extensions: { code: "NOT_YET_INDEXED", minBlock, indexedBlock, retryAfter: NOT_YET_INDEXED_RETRY_SECONDS },
    });
    return { status: 503, error };
  }
  return undefined;
}

/** extensions.minBlock of a request, when the extensions are an object. */
function fromExtensions(extensions: unknown): unknown {
  return extensions !== null && typeof extensions === "object"
    ? (extensions as Record<string, unknown>).minBlock
    : undefined;
}

/**
 * Over HTTP (before the operation runs): waits for the block asked for in `extensions.minBlock` or the X-Min-Block
 * header; answers the refusal (status, errors, headers), or undefined to run the operation.
 */
export async function minBlockRefusal(
  deps: MinBlockDeps,
  requestHeaders: RequestHeaders,
  extensions: unknown,
): Promise<{ status: number; errors: GraphQLError[]; headers: Record<string, string> } | undefined> {
  const header =
    typeof requestHeaders.get === "function"
      ? requestHeaders.get("x-min-block")
      : (requestHeaders as Record<string, string | string[] | undefined>)["x-min-block"];
  const chosen = chooseMinBlock([
    [fromExtensions(extensions), "extensions.minBlock"],
    [header, "X-Min-Block"],
  ]);
  const refused = refusal(
    "message" in chosen ? { status: "invalid", ...chosen } : await atLeastBlock(deps, chosen.raw, chosen.field),
  );
  if (!refused) return undefined;
  const headers: Record<string, string> =
    refused.status === 503 ? { "retry-after": String(NOT_YET_INDEXED_RETRY_SECONDS) } : {};
  return { status: refused.status, errors: [refused.error], headers };
}

/** On a graphql-ws socket: waits for `payload.extensions.minBlock`; answers the operation's errors when refused. */
export async function minBlockErrors(deps: MinBlockDeps, extensions: unknown): Promise<GraphQLError[] | undefined> {
  const refused = refusal(await atLeastBlock(deps, fromExtensions(extensions), "extensions.minBlock"));
  return refused && [refused.error];
}
