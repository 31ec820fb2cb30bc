import { makeError, type JsonRpcApiProvider, type JsonRpcPayload } from "ethers";
import type { RpcProvider } from ".";

/** What a JSON-RPC read is sent through: the provider itself, or a round gathered to go out at once. */
export interface RpcSender {
  send(method: string, params: unknown[]): Promise<unknown>;
}

/** A provider that sends JSON-RPC batches itself (ethers' JsonRpcApiProvider: the service's provider). */
type BatchingProvider = RpcProvider & Pick<JsonRpcApiProvider, "_send" | "_getOption" | "getRpcError">;

function sendsBatches(provider: RpcProvider): provider is BatchingProvider {
  return typeof (provider as Partial<BatchingProvider>)._send === "function";
}

interface Queued {
  payload: JsonRpcPayload;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * JSON-RPC requests gathered by `send` and sent by `flush` as one batch (several, past the provider's
 * `batchMaxCount`), at once.
 *
 * ethers' provider gathers the requests of one turn of the event loop too, but sends them from a timer, which Node
 * fires a millisecond later at the earliest, and which a caller cannot wait for precisely (it is set a few microtasks
 * after the `send`). A caller whose requests come in rounds, each waiting on the answers of the one before (the
 * indexer's step), pays that millisecond a round and cannot tell when a round has left. A round is sent where the
 * caller says. Answers are matched and refused as ethers' own batches are: by id, an error answer through the
 * provider's `getRpcError`, a missing one as BAD_DATA, and a failed request refusing every request it carried.
 * Through a provider that does not send batches itself (Hardhat's in-process provider of the tests), each request
 * is handed to its `send` at the flush.
 */
export class RpcRound implements RpcSender {
  readonly #provider: RpcProvider;
  #queued: Queued[] = [];
  #sent = false;

  constructor(provider: RpcProvider) {
    this.#provider = provider;
  }

  /** True once `flush` has sent the round: later requests need another round. */
  get sent(): boolean {
    return this.#sent;
  }

  send(method: string, params: unknown[]): Promise<unknown> {
    if (this.#sent) throw new Error(`${method} was asked of a JSON-RPC round already sent`);
    return new Promise((resolve, reject) => {
      const payload: JsonRpcPayload = { method, params, id: this.#queued.length + 1, jsonrpc: "2.0" };
      this.#queued.push({ payload, resolve, reject });
    });
  }

  /** Sends every request gathered, now. */
  flush(): void {
    if (this.#sent) return;
    this.#sent = true;
    const queued = this.#queued;
    this.#queued = [];
    const provider = this.#provider;
    if (!sendsBatches(provider)) {
      for (const { payload, resolve, reject } of queued)
        provider.send(payload.method, payload.params as unknown[]).then(resolve, reject);
      return;
    }
    const most = Math.max(1, Number(provider._getOption("batchMaxCount")));
    for (let start = 0; start < queued.length; start += most) {
      void sendBatch(provider, queued.slice(start, start + most));
    }
  }
}

async function sendBatch(provider: BatchingProvider, batch: Queued[]): Promise<void> {
  let answers: Awaited<ReturnType<BatchingProvider["_send"]>>;
  try {
    answers = await provider._send(batch.length === 1 ? batch[0].payload : batch.map((queued) => queued.payload));
  } catch (error) {
    for (const { reject } of batch) reject(error);
    return;
  }
  const byId = new Map(answers.map((answer) => [answer.id, answer]));
  for (const { payload, resolve, reject } of batch) {
    const answer = byId.get(payload.id);
    if (!answer) {
      reject(makeError("missing response for request", "BAD_DATA", { value: answers, info: { payload } }));
    } else if ("error" in answer) {
      reject(provider.getRpcError(payload, answer));
    } else {
      resolve(answer.result);
    }
  }
}

/** Runs `ask` with a round of its own and sends the round at once. */
export function inOneRound<T>(provider: RpcProvider, ask: (round: RpcRound) => Promise<T>): Promise<T> {
  const round = new RpcRound(provider);
  const answer = ask(round);
  round.flush();
  return answer;
}
