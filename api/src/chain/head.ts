import type { Provider } from "ethers";
import { TtlCache } from "../ttlCache";
import { readChain } from "./rpcErrors";

/**
 * The chain head as this instance knows it, and the read rule of the service:
 *
 *   A read never returns chain state older than the newest block this instance has answered with or mined into.
 *
 * Every read of chain state names its block: `readBlock()`, the latest block of the node but never below the newest
 * block this instance has seen (a receipt the transaction engine recorded, a block a read answered with). So an
 * agent that got a receipt in block N reads state of block N or later on its next request, whatever the node's
 * latest-block answer says at that moment. The latest block number and the fee data are the only answers of the node
 * kept here, each for a short time and shared by concurrent callers; the provider itself keeps nothing
 * (chain/index.ts turns ethers' own cache off).
 */

export interface FeeData {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

export interface ChainHeadOptions {
  /** How long a latest block number is reused before the node is asked again (default 250 ms; 0: every read). */
  latestTtlMs?: number;
  /**
   * How long before the kept block number expires a read asks the node for the next one in the background (default
   * 100 ms), so that steady reads never wait for the node while none of them gets a number older than latestTtlMs.
   */
  latestRefreshAheadMs?: number;
  /** How long fee data is reused (default 2 s). */
  feeTtlMs?: number;
  /** Milliseconds clock (tests). */
  now?: () => number;
}

/** Fallbacks for nodes that answer no EIP-1559 fee data. */
const DEFAULT_PRIORITY_FEE = 1_000_000n;
const DEFAULT_GAS_PRICE = 1_000_000_000n;

export class ChainHead {
  #newestSeen = 0;
  readonly #newBlockListeners = new Set<(block: number) => void>();
  readonly #latest: TtlCache<"latest", number>;
  readonly #fees: TtlCache<"fees", FeeData>;

  constructor(
    private readonly provider: Provider,
    options: ChainHeadOptions = {},
  ) {
    this.#latest = new TtlCache(options.latestTtlMs ?? 250, {
      now: options.now,
      refreshAheadMs: options.latestRefreshAheadMs ?? 100,
    });
    this.#fees = new TtlCache(options.feeTtlMs ?? 2_000, { now: options.now });
  }

  /** The newest block this instance has answered with or mined into (0 before the first). */
  get newestSeen(): number {
    return this.#newestSeen;
  }

  /** Records a block this instance answered with or mined into; reads never go below it afterwards. */
  saw(block: number): void {
    if (block <= this.#newestSeen) return;
    this.#newestSeen = block;
    for (const listener of this.#newBlockListeners) listener(block);
  }

  /**
   * Calls `listener` with each block newer than any seen before (a receipt, a read's block): the indexer steps at
   * once rather than at its next poll. Answers the function that stops calling it.
   */
  onNewBlock(listener: (block: number) => void): () => void {
    this.#newBlockListeners.add(listener);
    return () => this.#newBlockListeners.delete(listener);
  }

  /** The node's latest block number (reused for `latestTtlMs`, concurrent callers share one request). */
  latest(): Promise<number> {
    return this.#latest.get("latest", this.#askLatest);
  }

  readonly #askLatest = (): Promise<number> => readChain("the block number", () => this.provider.getBlockNumber());

  /** The block every read is made at: the latest block, never below the newest block seen (recorded as seen). */
  async readBlock(): Promise<number> {
    return this.readBlockNow() ?? this.#atLeastSeen(await this.latest());
  }

  /**
   * The block a check made just before a write reads at (a balance or a position that would refuse the write): the
   * node's latest block asked now, not the one kept for `latestTtlMs`, and never below the newest block seen. A
   * refusal must not come from a block older than a transfer the caller made elsewhere and already sees mined.
   */
  async checkBlock(): Promise<number> {
    const latest = await readChain("the block number", () => this.provider.getBlockNumber());
    return this.#atLeastSeen(latest);
  }

  /** The read block without waiting, when the latest block number kept is still fresh; undefined otherwise. */
  readBlockNow(): number | undefined {
    const latest = this.#latest.peek("latest", this.#askLatest);
    return latest === undefined ? undefined : this.#atLeastSeen(latest);
  }

  #atLeastSeen(latest: number): number {
    const block = Math.max(latest, this.#newestSeen);
    this.saw(block);
    return block;
  }

  /** EIP-1559 fees for a new transaction, and the max fee that `has_gas` is measured at. */
  fees(): Promise<FeeData> {
    return this.#fees.get("fees", async () => {
      const data = await readChain("the fee data", () => this.provider.getFeeData());
      return {
        maxFeePerGas: data.maxFeePerGas ?? (data.gasPrice ?? DEFAULT_GAS_PRICE) * 2n,
        maxPriorityFeePerGas: data.maxPriorityFeePerGas ?? DEFAULT_PRIORITY_FEE,
      };
    });
  }
}
