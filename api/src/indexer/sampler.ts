import { call } from "../chain/rpc/actions";
import type { RpcSender } from "../chain/rpc/jsonRpc";
import type { SystemContracts, VaultAddress } from "../chain/contracts";
import { VaultLens__factory } from "../../../typechain-types";
import { decodeLenient } from "../chain/abiText";
import type { VaultRecord, VaultSnapshot } from "../readmodel/records";

/**
 * Reads vault state from the chain: the whole record at a block (one VaultLens `records` call for any number of vaults),
 * and the figures of snapshot points (totalAssets, totalSupply, the price of one share: VaultLens `samples`, one call
 * per block) at many blocks in one JSON-RPC batch; each read is sent through the connection or a given round.
 */

const RISK_LEVELS = ["CONSERVATIVE", "MODERATE", "AGGRESSIVE"] as const;
const HOUR = 3600;
const DAY = 86_400;

/** What a snapshot records of a vault at a block. */
export type VaultSample = Pick<
  VaultRecord,
  "address" | "block" | "timestamp" | "totalAssets" | "totalSupply" | "pricePerShare"
>;

/** A vault at a block (lowercase address). */
export interface SamplePoint {
  address: string;
  block: number;
}

/** A log as the point pickers read it: its contract and block. */
interface PointLog {
  readonly address: string;
  readonly blockNumber: number;
}

/*
 * Snapshot points are taken where vault events moved a price or assets, only where a served figure is made of one
 * (docs/data-api.md): an hour or day bucket keeps its last sample, and a vault's inception is its oldest snapshot. So
 * a vault gets a point at its first such block of a batch until the indexer has written a point of it
 * (`firstPoints`: the first of all of them is its inception), and at the last such block of each UTC hour before the
 * hour of the batch's last block (`hourEndPoints`): that hour, and its day, get the batch's last block, sampled for
 * every vault. The figures served are those a point at every such event would give, at a cost per vault and hour
 * rather than per event.
 */

/** The first block of `moving` (price-moving vault logs, in chain order) of each vault. */
export function firstPoints(moving: readonly PointLog[]): SamplePoint[] {
  const firsts = new Map<string, SamplePoint>();
  for (const log of moving) {
    const address = log.address.toLowerCase();
    if (!firsts.has(address)) firsts.set(address, { address, block: log.blockNumber });
  }
  return [...firsts.values()];
}

/**
 * The last block of `moving` (in chain order) of each vault in each UTC hour before the hour of `endTimestamp` (the
 * batch's last block's), leaving out the points of `taken`.
 */
export function hourEndPoints(
  moving: readonly PointLog[],
  timestamps: ReadonlyMap<number, number>,
  endTimestamp: number,
  taken: readonly SamplePoint[],
): SamplePoint[] {
  const endHour = endTimestamp - (endTimestamp % HOUR);
  const lasts = new Map<string, SamplePoint>();
  for (const log of moving) {
    const timestamp = timestamps.get(log.blockNumber) as number;
    const hour = timestamp - (timestamp % HOUR);
    const address = log.address.toLowerCase();
    if (hour < endHour) lasts.set(`${address}:${hour}`, { address, block: log.blockNumber });
  }
  const skip = new Set(taken.map((point) => `${point.address}:${point.block}`));
  return [...lasts.values()].filter((point) => !skip.has(`${point.address}:${point.block}`));
}

const LENS = VaultLens__factory.createInterface();
const LENS_RECORDS = LENS.getFunction("records")!;
const LENS_SAMPLES = LENS.getFunction("samples")!;

/**
 * The call data of a VaultLens function taking one `address[]`: its selector, the array's offset (one word), its
 * length and each address in a word. Written out because ethers' encoder looks the function up and checksums every
 * address with a JavaScript keccak on each call, which costs more than the rest of a batch's sampling
 * (test/api/indexer/sampler.test.ts holds it to ethers' bytes).
 */
export function addressListCall(selector: string, addresses: readonly string[]): string {
  const word = (hex: string) => hex.padStart(64, "0");
  return (
    selector +
    word("20") +
    word(addresses.length.toString(16)) +
    addresses.map((address) => word(address.slice(2).toLowerCase())).join("")
  );
}

/** A VaultLens VaultSample as decodeLenient gives it. */
interface LensSample {
  totalAssets: bigint;
  totalSupply: bigint;
  pricePerShare: bigint;
}

/** A VaultLens VaultRecord as decodeLenient gives it. */
interface LensVaultRecord {
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
    private readonly rpc: RpcSender,
  ) {}

  /**
   * The figures at each point: one VaultLens `samples` call per block, for every vault with a point there, all the
   * calls in one JSON-RPC batch (the same figures as the lens's `records` gives).
   */
  async readPoints(
    points: readonly SamplePoint[],
    via: RpcSender = this.rpc,
  ): Promise<Omit<VaultSample, "timestamp">[]> {
    const byBlock = new Map<number, SamplePoint[]>();
    for (const point of points) {
      const atBlock = byBlock.get(point.block);
      if (atBlock) atBlock.push(point);
      else byBlock.set(point.block, [point]);
    }
    const lens = this.contracts.address("VaultLens");
    const sampled = await Promise.all(
      [...byBlock].map(async ([block, atBlock]) => {
        const data = addressListCall(
          LENS_SAMPLES.selector,
          atBlock.map((point) => point.address),
        );
        const answer = await call(via, lens, data, block);
        const [figures] = decodeLenient(LENS_SAMPLES.outputs, answer) as [LensSample[]];
        return atBlock.map((point, i) => ({
          address: point.address,
          block,
          totalAssets: figures[i].totalAssets.toString(),
          totalSupply: figures[i].totalSupply.toString(),
          pricePerShare: figures[i].pricePerShare.toString(),
        }));
      }),
    );
    return sampled.flat();
  }

  /** The state of `vaults` at `block` (the caller adds the block's timestamp). */
  async read(
    vaults: readonly VaultAddress[],
    block: number,
    via: RpcSender = this.rpc,
  ): Promise<Omit<VaultRecord, "timestamp">[]> {
    if (vaults.length === 0) return [];
    // A raw call decoded leniently (chain/abiText.ts): text stays text whatever its bytes, and decoding skips the
    // contract object's layers, which cost more than the node's answer on the indexer's path.
    const data = addressListCall(
      LENS_RECORDS.selector,
      vaults.map((vault) => vault.address),
    );
    const answer = await call(via, this.contracts.address("VaultLens"), data, block);
    const [views] = decodeLenient(LENS_RECORDS.outputs, answer) as [LensVaultRecord[]];
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
