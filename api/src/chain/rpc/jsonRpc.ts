import { makeError, type JsonRpcApiProvider, type JsonRpcError, type JsonRpcPayload } from "ethers";
import { http, RpcRequestError } from "viem";
import { getHttpRpcClient } from "viem/utils";
import { nodeHttpFetch } from "./nodeHttpFetch";

/**
 * The JSON-RPC connection of the indexer and the transaction engine: viem's HTTP transport and HTTP RPC client, used
 * through their public options only. A node's error answers become the errors ethers gives for them (through the
 * provider's public `getRpcError`), so that errors are classified one way whichever client asked (rpcErrors.ts).
 */

/** What a JSON-RPC request is sent through: a connection, or a round gathered to go out at once (round.ts). */
export interface RpcSender {
  send(method: string, params: unknown[]): Promise<unknown>;
}

export interface RpcRequest {
  readonly method: string;
  readonly params: unknown[];
}

export interface JsonRpc extends RpcSender {
  /** Sends `requests` now, together (one HTTP request, a JSON-RPC batch, over HTTP); one answer per request. */
  sendNow(requests: readonly RpcRequest[]): Promise<unknown>[];
}

/** A provider that takes raw JSON-RPC requests (ethers' JsonRpcProvider, Hardhat's provider in tests). */
export interface SendingProvider {
  send(method: string, params: unknown[]): Promise<unknown>;
}

/** Requests of one HTTP batch, at most: the default of ethers' `batchMaxCount`, which nodes are set to take. */
const BATCH_MAX_COUNT = 100;
/**
 * Longest wait for a node's answer (a wide `eth_getLogs` of a busy chain takes long). Answers of any size are read
 * whole (`maxResponseBodySize: false`), as the node sends them.
 */
const REQUEST_TIMEOUT_MS = 120_000;

type RawAnswer = { result?: unknown; error?: JsonRpcError["error"] };

/**
 * A connection over HTTP. `send` goes through viem's transport with `batch`: the requests of one turn of the event
 * loop share one HTTP request. `sendNow` goes through viem's HTTP RPC client at once, for callers whose requests come
 * in rounds, each waiting on the one before (the indexer's step), which would otherwise wait for the transport's
 * timer each round. Both send through `nodeHttpFetch`. No retries: the engine decides what is sent again. `errors` is
 * the ethers provider of the service, whose `getRpcError` maps a node's error answer.
 */
export function httpJsonRpc(url: string, errors: Pick<JsonRpcApiProvider, "getRpcError">): JsonRpc {
  const transport = http(url, {
    batch: { batchSize: BATCH_MAX_COUNT, wait: 0 },
    raw: true,
    retryCount: 0,
    timeout: REQUEST_TIMEOUT_MS,
    maxResponseBodySize: false,
    fetchFn: nodeHttpFetch,
  })({ chain: undefined });
  const client = getHttpRpcClient(url, {
    timeout: REQUEST_TIMEOUT_MS,
    maxResponseBodySize: false,
    fetchFn: nodeHttpFetch,
  });
  let nextId = 1;

  const answerOf = (request: RpcRequest, answer: RawAnswer | undefined): unknown => {
    const payload: JsonRpcPayload = { method: request.method, params: request.params, id: 0, jsonrpc: "2.0" };
    if (!answer) throw makeError("missing response for request", "BAD_DATA", { value: null, info: { payload } });
    if (answer.error) throw errors.getRpcError(payload, { id: 0, error: answer.error });
    return answer.result;
  };

  /** A node that refuses a whole HTTP request with a JSON-RPC error answers each request with it. */
  const refusal = (error: unknown): RawAnswer | null =>
    error instanceof RpcRequestError
      ? { error: { code: error.code, message: error.details, data: error.data as unknown } }
      : null;

  const sendBatch = (requests: readonly RpcRequest[]): Promise<unknown>[] => {
    const first = nextId;
    nextId += requests.length;
    const body = requests.map((request, i) => ({ jsonrpc: "2.0" as const, id: first + i, ...request }));
    const answers = client.request({ body }).then(
      (answers) => new Map(answers.map((answer) => [answer.id, answer as RawAnswer])),
      (error: unknown) => {
        const answer = refusal(error);
        if (!answer) throw error;
        return new Map(body.map(({ id }) => [id, answer]));
      },
    );
    return requests.map((request, i) => answers.then((byId) => answerOf(request, byId.get(first + i))));
  };

  return {
    async send(method, params) {
      const request = { method, params };
      const answer = await (transport.request(request) as Promise<RawAnswer>).catch((error: unknown) => {
        const answer = refusal(error);
        if (!answer) throw error;
        return answer;
      });
      return answerOf(request, answer);
    },
    sendNow(requests) {
      const answers: Promise<unknown>[] = [];
      for (let start = 0; start < requests.length; start += BATCH_MAX_COUNT) {
        answers.push(...sendBatch(requests.slice(start, start + BATCH_MAX_COUNT)));
      }
      return answers;
    },
  };
}

/**
 * A connection through a provider that sends each request itself (Hardhat's in-process provider of the tests, a
 * provider a test wraps to count or delay requests): `sendNow` hands each request to its `send` at once.
 */
export function providerJsonRpc(provider: SendingProvider): JsonRpc {
  return {
    send: (method, params) => provider.send(method, params),
    sendNow: (requests) => requests.map(({ method, params }) => provider.send(method, params)),
  };
}
