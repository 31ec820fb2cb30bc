import { formatUnits, type Provider } from "ethers";
import type { VaultId } from "../domain/model";
import { TtlCache } from "../ttlCache";
import { VaultLens__factory } from "../../../typechain-types";

/**
 * Reads the vault list from the chain: one VaultLens `vaults(address[])` eth_call at the latest block, for the six
 * vaults of the deployment file. Results are cached per block: every request in the same block is served from memory,
 * and concurrent requests for a new block share one call.
 *
 * The latest block number itself is asked of the node at most once per `blockNumberTtlMs` (250 ms, the same window
 * in which ethers' JSON-RPC provider already shares one eth_blockNumber answer among callers), so a read under load
 * costs no RPC round trip and no promise through the provider: a list can lag a new block by at most that window.
 */

export interface VaultInfo {
  id: VaultId;
  address: string;
  name: string;
  /** Asset symbol, e.g. USDC. */
  asset: string;
  /** Whole asset units as a decimal string (e.g. "1250.5"). */
  totalAssets: string;
  /** Percent: the lens's apyBps / 100 (rate at which reported profit is unlocking now, per year, gross of fees). */
  apy: number;
  status: "active" | "paused";
}

export interface VaultSource {
  id: VaultId;
  address: string;
}

export interface VaultReaderOptions {
  /** How long a latest block number is trusted before the node is asked again. Default 250 ms. */
  blockNumberTtlMs?: number;
  /** Milliseconds clock (tests). */
  now?: () => number;
}

export const DEFAULT_BLOCK_NUMBER_TTL_MS = 250;

export class VaultReader {
  private cache: { block: number; vaults: VaultInfo[] } | null = null;
  private inflight: { block: number; promise: Promise<VaultInfo[]> } | null = null;
  private readonly latestBlock: TtlCache<"latest", number>;

  constructor(
    private readonly provider: Provider,
    private readonly sources: VaultSource[],
    private readonly lensAddress: string,
    options: VaultReaderOptions = {},
  ) {
    this.latestBlock = new TtlCache(options.blockNumberTtlMs ?? DEFAULT_BLOCK_NUMBER_TTL_MS, options.now);
  }

  /** The vaults at the latest block, from the cache when the block has not changed. */
  async list(): Promise<VaultInfo[]> {
    const block = await this.latestBlock.get("latest", () => this.provider.getBlockNumber());
    if (this.cache?.block === block) return this.cache.vaults;
    if (this.inflight?.block === block) return this.inflight.promise;
    const promise = this.readAt(block);
    this.inflight = { block, promise };
    try {
      const vaults = await promise;
      if (!this.cache || this.cache.block <= block) this.cache = { block, vaults };
      return vaults;
    } finally {
      if (this.inflight?.promise === promise) this.inflight = null;
    }
  }

  /** One eth_call: VaultLens.vaults(address[]) at `blockTag`. */
  private async readAt(blockTag: number): Promise<VaultInfo[]> {
    if (this.sources.length === 0) return [];
    const lens = VaultLens__factory.connect(this.lensAddress, this.provider);
    const views = await lens.vaults(
      this.sources.map((source) => source.address),
      { blockTag },
    );
    return views.map((view, i) => ({
      id: this.sources[i].id,
      address: this.sources[i].address,
      name: view.name,
      asset: view.assetSymbol,
      totalAssets: trimDecimal(formatUnits(view.totalAssets, Number(view.assetDecimals))),
      apy: Number(view.apyBps) / 100,
      status: view.paused ? "paused" : "active",
    }));
  }
}

/** "1250.0" -> "1250", "0.500000" -> "0.5". */
export function trimDecimal(value: string): string {
  if (!value.includes(".")) return value;
  const trimmed = value.replace(/0+$/, "").replace(/\.$/, "");
  return trimmed === "" ? "0" : trimmed;
}
