import type { JsonRpc, RpcRequest, RpcSender } from "./jsonRpc";

interface Queued extends RpcRequest {
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * JSON-RPC requests gathered by `send` and sent together by `flush`, at once. It stands in for the timer of a batching
 * transport (viem's `batch`, ethers' `batchStallTime`), which sends the requests of one turn of the event loop a
 * millisecond later at the earliest: a caller whose requests come in rounds, each waiting on the answers of the one
 * before (the indexer's step), would pay that millisecond a round and could not tell when a round has left.
 */
export class RpcRound implements RpcSender {
  readonly #rpc: JsonRpc;
  #queued: Queued[] = [];
  #sent = false;

  constructor(rpc: JsonRpc) {
    this.#rpc = rpc;
  }

  /** True once `flush` has sent the round: later requests need another round. */
  get sent(): boolean {
    return this.#sent;
  }

  send(method: string, params: unknown[]): Promise<unknown> {
    if (this.#sent) throw new Error(`${method} was asked of a JSON-RPC round already sent`);
    return new Promise((resolve, reject) => this.#queued.push({ method, params, resolve, reject }));
  }

  /** Sends every request gathered, now. */
  flush(): void {
    if (this.#sent) return;
    this.#sent = true;
    const queued = this.#queued;
    this.#queued = [];
    const answers = this.#rpc.sendNow(queued.map(({ method, params }) => ({ method, params })));
    queued.forEach(({ resolve, reject }, i) => answers[i].then(resolve, reject));
  }
}

/** Runs `ask` with a round of its own and sends the round at once. */
export function inOneRound<T>(rpc: JsonRpc, ask: (round: RpcRound) => Promise<T>): Promise<T> {
  const round = new RpcRound(rpc);
  const answer = ask(round);
  round.flush();
  return answer;
}
