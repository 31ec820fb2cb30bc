import type { RpcProvider } from "../chain";
import type { SystemContracts, VaultAddress } from "../chain/contracts";
import { NapVault__factory, VaultLens__factory } from "../../../typechain-types";
import { decodeLenient } from "../chain/abiText";
import type { VaultRecord, VaultSnapshot } from "../readmodel/records";
import { call } from "./rpc";

/**
 * Reads vault state from the chain: the whole view at a block (one VaultLens call for any number of vaults), and the
 * light views of a snapshot point (totalAssets, totalSupply, convertToAssets of one share) at many blocks in one
 * JSON-RPC batch.
 */

const RISK_LEVELS = ["CONSERVATIVE", "MODERATE", "AGGRESSIVE"] as const;
const HOUR = 3600;
const DAY = 86_400;

/** What a snapshot records of a vault at a block. */
export type VaultSample = Pick<
  VaultRecord,
  "address" | "block" | "timestamp" | "totalAssets" | "totalSupply" | "pricePerShare"
>;

/** A vault at a block, with the decimals of its shares (the unit of its price per share). */
export interface SamplePoint {
  address: string;
  shareDecimals: number;
  block: number;
  timestamp: number;
}

const VAULT = NapVault__factory.createInterface();
const LENS = VaultLens__factory.createInterface();
const LENS_VAULTS = LENS.getFunction("vaults")!;
const TOTAL_ASSETS = VAULT.encodeFunctionData("totalAssets");
const TOTAL_SUPPLY = VAULT.encodeFunctionData("totalSupply");

/** A VaultLens VaultView as decodeLenient gives it (the fields read here). */
interface LensVaultView {
  name: string;
  symbol: string;
  asset: string;
  assetDecimals: bigint;
  shareDecimals: bigint;
  totalAssets: bigint;
  totalSupply: bigint;
  pricePerShare: bigint;
  managementFeeBps: bigint;
  performanceFeeBps: bigint;
  hurdleRateBps: bigint;
  riskLevel: bigint;
  isERC7540: boolean;
  fulfillmentDelay: bigint;
  paused: boolean;
  createdAt: bigint;
  allocations: { strategyId: string; targetBps: bigint }[];
}

export class VaultSampler {
  constructor(
    private readonly contracts: SystemContracts,
    private readonly provider: RpcProvider,
  ) {}

  /** The light views at each point, every call of every point in one batch (the same figures as the lens gives). */
  async readPoints(points: readonly SamplePoint[]): Promise<VaultSample[]> {
    return Promise.all(
      points.map(async (point) => {
        const oneShare = VAULT.encodeFunctionData("convertToAssets", [10n ** BigInt(point.shareDecimals)]);
        const [totalAssets, totalSupply, pricePerShare] = await Promise.all(
          [TOTAL_ASSETS, TOTAL_SUPPLY, oneShare].map(async (data) =>
            BigInt(await call(this.provider, point.address, data, point.block)).toString(),
          ),
        );
        return {
          address: point.address,
          block: point.block,
          timestamp: point.timestamp,
          totalAssets,
          totalSupply,
          pricePerShare,
        };
      }),
    );
  }

  /** The state of `vaults` at `block` (the caller adds the block's timestamp). */
  async read(vaults: readonly VaultAddress[], block: number): Promise<Omit<VaultRecord, "timestamp">[]> {
    if (vaults.length === 0) return [];
    // A raw call decoded leniently (chain/abiText.ts): text stays text whatever its bytes, and decoding skips the
    // contract object's layers, which cost more than the node's answer on the indexer's path.
    const data = LENS.encodeFunctionData("vaults", [vaults.map((vault) => vault.address)]);
    const answer = await call(this.provider, this.contracts.address("VaultLens"), data, block);
    const [views] = decodeLenient(LENS_VAULTS.outputs, answer) as [LensVaultView[]];
    return views.map((view, i) => {
      const riskLevel = RISK_LEVELS[Number(view.riskLevel)];
      if (!riskLevel) throw new Error(`vault ${vaults[i].address}: risk level ${view.riskLevel} is unknown`);
      return {
        address: vaults[i].address.toLowerCase(),
        id: vaults[i].id,
        name: view.name,
        symbol: view.symbol,
        asset: view.asset,
        assetDecimals: Number(view.assetDecimals),
        shareDecimals: Number(view.shareDecimals),
        totalAssets: view.totalAssets.toString(),
        totalSupply: view.totalSupply.toString(),
        pricePerShare: view.pricePerShare.toString(),
        managementFeeBps: Number(view.managementFeeBps),
        performanceFeeBps: Number(view.performanceFeeBps),
        hurdleRateBps: Number(view.hurdleRateBps),
        riskLevel,
        isERC7540: view.isERC7540,
        fulfillmentDelay: Number(view.fulfillmentDelay),
        paused: view.paused,
        createdAt: Number(view.createdAt),
        allocations: view.allocations.map((a) => ({ strategyId: a.strategyId, targetBps: Number(a.targetBps) })),
        block,
      };
    });
  }
}

/** The snapshots one sample gives: a point (when taken at an event) and its hour and day buckets. */
export function snapshotsOf(record: VaultSample, withPoint: boolean): VaultSnapshot[] {
  const base = {
    vault: record.address,
    block: record.block,
    timestamp: record.timestamp,
    totalAssets: record.totalAssets,
    totalSupply: record.totalSupply,
    pricePerShare: record.pricePerShare,
  };
  const snapshots: VaultSnapshot[] = [
    { ...base, resolution: "hour", key: record.timestamp - (record.timestamp % HOUR) },
    { ...base, resolution: "day", key: record.timestamp - (record.timestamp % DAY) },
  ];
  if (withPoint) snapshots.push({ ...base, resolution: "point", key: record.block });
  return snapshots;
}
