import { Contract, formatUnits, type Provider } from "ethers";
import type { VaultId } from "../domain/model";

/**
 * Reads the vault list from the chain. With a VaultLens in the deployment, one `vaults(address[])` eth_call;
 * otherwise a few view calls per vault (ERC-4626 plus the NAP vault views), all at one block tag.
 * Results are cached per block: every request in the same block is served from memory.
 */

export interface VaultInfo {
  id: VaultId;
  address: string;
  name: string;
  /** Asset symbol, e.g. USDC. */
  asset: string;
  /** Whole asset units as a decimal string (e.g. "1250.5"). */
  totalAssets: string;
  /** Annualised growth of the share price since the vault was created, in percent. */
  apy: number;
  status: "active" | "paused";
}

export interface VaultSource {
  id: VaultId;
  address: string;
}

const VAULT_ABI = [
  "function name() view returns (string)",
  "function asset() view returns (address)",
  "function decimals() view returns (uint8)",
  "function totalAssets() view returns (uint256)",
  "function convertToAssets(uint256 shares) view returns (uint256)",
  "function paused() view returns (bool)",
  "function createdAt() view returns (uint256)",
];
const ERC20_ABI = ["function symbol() view returns (string)", "function decimals() view returns (uint8)"];

const SECONDS_PER_YEAR = 365 * 24 * 3600;
/** Below this age the annualised figure is noise; report 0 instead. */
const MIN_APY_AGE_SECONDS = 24 * 3600;

/**
 * APY in percent from the price of one whole share, assuming one whole share was worth one whole asset unit at
 * creation (true for ERC-4626 vaults starting empty). Rounded to 2 decimals.
 */
export function annualisedApy(assetsPerShare: bigint, assetDecimals: number, ageSeconds: number): number {
  if (ageSeconds < MIN_APY_AGE_SECONDS || assetsPerShare <= 0n) return 0;
  const growth = Number(assetsPerShare) / 10 ** assetDecimals;
  const apy = (Math.pow(growth, SECONDS_PER_YEAR / ageSeconds) - 1) * 100;
  if (!Number.isFinite(apy)) return 0;
  return Math.round(apy * 100) / 100;
}

export class VaultReader {
  private cache: { block: number; vaults: VaultInfo[] } | null = null;
  private inflight: { block: number; promise: Promise<VaultInfo[]> } | null = null;
  private readonly assetMeta = new Map<string, { symbol: string; decimals: number }>();

  constructor(
    private readonly provider: Provider,
    private readonly sources: VaultSource[],
  ) {}

  /** The vaults at the latest block, from the cache when the block has not changed. */
  async list(): Promise<VaultInfo[]> {
    const block = await this.provider.getBlockNumber();
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

  private async readAt(blockTag: number): Promise<VaultInfo[]> {
    const block = await this.provider.getBlock(blockTag);
    const now = block ? Number(block.timestamp) : Math.floor(Date.now() / 1000);
    return Promise.all(this.sources.map((source) => this.readVault(source, blockTag, now)));
  }

  private async readVault(source: VaultSource, blockTag: number, now: number): Promise<VaultInfo> {
    const vault = new Contract(source.address, VAULT_ABI, this.provider);
    const call = <T>(name: string, ...args: unknown[]) =>
      vault.getFunction(name).staticCall(...args, { blockTag }) as Promise<T>;
    const [name, assetAddress, shareDecimals, totalAssets, paused, createdAt] = await Promise.all([
      call<string>("name"),
      call<string>("asset"),
      call<bigint>("decimals"),
      call<bigint>("totalAssets"),
      call<boolean>("paused").catch(() => false),
      call<bigint>("createdAt").catch(() => 0n),
    ]);
    const asset = await this.assetMetadata(assetAddress);
    const assetsPerShare = await call<bigint>("convertToAssets", 10n ** shareDecimals);
    return {
      id: source.id,
      address: source.address,
      name,
      asset: asset.symbol,
      totalAssets: trimDecimal(formatUnits(totalAssets, asset.decimals)),
      apy: createdAt > 0n ? annualisedApy(assetsPerShare, asset.decimals, now - Number(createdAt)) : 0,
      status: paused ? "paused" : "active",
    };
  }

  private async assetMetadata(address: string): Promise<{ symbol: string; decimals: number }> {
    const known = this.assetMeta.get(address);
    if (known) return known;
    const token = new Contract(address, ERC20_ABI, this.provider);
    const [symbol, decimals] = await Promise.all([
      token.getFunction("symbol").staticCall() as Promise<string>,
      token.getFunction("decimals").staticCall() as Promise<bigint>,
    ]);
    const meta = { symbol, decimals: Number(decimals) };
    this.assetMeta.set(address, meta);
    return meta;
  }
}

/** "1250.0" -> "1250", "0.500000" -> "0.5". */
export function trimDecimal(value: string): string {
  if (!value.includes(".")) return value;
  const trimmed = value.replace(/0+$/, "").replace(/\.$/, "");
  return trimmed === "" ? "0" : trimmed;
}
