import { ethers } from "hardhat";
import type { ContractTransactionResponse } from "ethers";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import {
  ConfigurableNapVault__factory,
  NapVault__factory,
  TestUSDC__factory,
  type ConfigurableNapVault,
  type NapVault,
  type TestUSDC,
} from "../../../typechain-types";
import type { INapVault } from "../../../typechain-types/contracts/vaults/NapVault";

export const USDC = 10n ** 6n;
export const VIRTUAL_SHARES = 10n ** 6n;
export const WAD = 10n ** 18n;
export const BPS = 10_000n;
export const YEAR = 365n * 24n * 3600n;
export const HOUR = 3600;
export const DAY = 24 * HOUR;
export const MAX_UINT = 2n ** 256n - 1n;

export type VaultParams = INapVault.VaultParamsStruct;

export interface Actors {
  deployer: HardhatEthersSigner;
  admin: HardhatEthersSigner;
  manager: HardhatEthersSigner;
  harvester: HardhatEthersSigner;
  guardian: HardhatEthersSigner;
  fulfiller: HardhatEthersSigner;
  feeRecipient: HardhatEthersSigner;
  alice: HardhatEthersSigner;
  bob: HardhatEthersSigner;
  carol: HardhatEthersSigner;
}

export async function actors(): Promise<Actors> {
  const [deployer, admin, manager, harvester, guardian, fulfiller, feeRecipient, alice, bob, carol] =
    await ethers.getSigners();
  return { deployer, admin, manager, harvester, guardian, fulfiller, feeRecipient, alice, bob, carol };
}

export function params(usdc: string, feeRecipient: string, overrides: Partial<VaultParams> = {}): VaultParams {
  return {
    asset: usdc,
    name: "Test Vault",
    symbol: "tVLT",
    riskLevel: 1,
    asyncRedeem: false,
    managementFeeBps: 200,
    performanceFeeBps: 2_000,
    hurdleRateBps: 500,
    depositCap: 1_000_000n * USDC,
    profitUnlockPeriod: DAY,
    fulfillmentDelay: 0,
    feeRecipient,
    ...overrides,
  };
}

export function roles(a: Actors): INapVault.VaultRolesStruct {
  return {
    admin: a.admin.address,
    manager: a.manager.address,
    harvester: a.harvester.address,
    guardian: a.guardian.address,
    fulfiller: a.fulfiller.address,
  };
}

export interface World {
  a: Actors;
  usdc: TestUSDC;
  sync: NapVault;
  async: NapVault;
  configurable: ConfigurableNapVault;
}

/** USDC, a synchronous vault, an asynchronous vault (1 hour delay) and a configurable async vault; funded actors. */
export async function deployWorld(): Promise<World> {
  const a = await actors();
  const usdc = await new TestUSDC__factory(a.deployer).deploy(a.deployer.address);
  const usdcAddress = await usdc.getAddress();
  const sync = await new NapVault__factory(a.deployer).deploy(
    params(usdcAddress, a.feeRecipient.address),
    roles(a),
    [],
  );
  const async = await new NapVault__factory(a.deployer).deploy(
    params(usdcAddress, a.feeRecipient.address, {
      name: "Async Vault",
      symbol: "aVLT",
      riskLevel: 2,
      asyncRedeem: true,
      fulfillmentDelay: HOUR,
    }),
    roles(a),
    [],
  );
  const configurable = await new ConfigurableNapVault__factory(a.deployer).deploy(
    params(usdcAddress, a.feeRecipient.address, {
      name: "Configurable Vault",
      symbol: "cVLT",
      asyncRedeem: true,
      fulfillmentDelay: HOUR,
    }),
    roles(a),
    [],
  );
  for (const holder of [a.alice, a.bob, a.carol, a.harvester]) {
    await usdc.mint(holder.address, 10_000_000n * USDC);
    for (const vault of [sync, async, configurable]) {
      await usdc.connect(holder).approve(await vault.getAddress(), MAX_UINT);
    }
  }
  return { a, usdc, sync, async, configurable };
}

/** ERC-4626 conversions of OpenZeppelin with offset 6, computed independently of the contract. */
export function toShares(assets: bigint, totalAssets: bigint, supply: bigint, roundUp = false): bigint {
  return mulDiv(assets, supply + VIRTUAL_SHARES, totalAssets + 1n, roundUp);
}

export function toAssets(shares: bigint, totalAssets: bigint, supply: bigint, roundUp = false): bigint {
  return mulDiv(shares, totalAssets + 1n, supply + VIRTUAL_SHARES, roundUp);
}

export function mulDiv(x: bigint, y: bigint, d: bigint, roundUp = false): bigint {
  const product = x * y;
  const quotient = product / d;
  return roundUp && quotient * d !== product ? quotient + 1n : quotient;
}

/** Basis points times seconds in a year: the denominator of the management fee. */
export const FEE_DENOMINATOR = BPS * YEAR;

/**
 * `bps` a year of `assets` for `elapsed` seconds plus the fraction `carried` from the previous accrual, rounded
 * down, at most `assets`: the management fee of docs/vaults.md when no profit unlocks during the interval.
 */
export function managementFee(
  assets: bigint,
  bps: bigint,
  elapsed: bigint,
  carried = 0n,
): { fee: bigint; remainder: bigint } {
  return feeOnArea(assets * elapsed, assets, bps, carried);
}

/** `bps` a year of `area` asset-seconds plus `carried`, rounded down, at most `cap` (the holders' assets now). */
function feeOnArea(area: bigint, cap: bigint, bps: bigint, carried: bigint): { fee: bigint; remainder: bigint } {
  const numerator = area * bps + carried;
  const fee = numerator / FEE_DENOMINATOR;
  if (fee > cap) return { fee: cap, remainder: 0n };
  return { fee, remainder: numerator - fee * FEE_DENOMINATOR };
}

/** The books and unlock of a vault over an interval of fee accrual, as its views give them. */
export interface FeeInterval {
  /** accountedAssets: holders' assets plus profit still locked, constant between two accruals. */
  accounted: bigint;
  lockedAtReport: bigint;
  lastReport: bigint;
  unlockEnd: bigint;
  /** lastFeeAccrual. */
  from: bigint;
  to: bigint;
  bps: bigint;
  carried?: bigint;
}

/** Profit of the last report still locked at `at`, rounded down. */
export function lockedAt(x: Pick<FeeInterval, "lockedAtReport" | "lastReport" | "unlockEnd">, at: bigint): bigint {
  if (at >= x.unlockEnd) return 0n;
  return (x.lockedAtReport * (x.unlockEnd - at)) / (x.unlockEnd - x.lastReport);
}

/**
 * The management fee of docs/vaults.md for one accrual: `bps` a year of the holders' assets second by second over
 * [from, to], the holders' assets being accounted less the profit still locked, which falls linearly to the unlock
 * end. Locked asset-seconds are the trapezoid under the unlock, rounded up (the holders' way); the holders' area is
 * accounted * (to - from) less that, not below 0. Rounded down, at most the holders' assets at `to`.
 */
export function managementFeeOver(x: FeeInterval): { fee: bigint; remainder: bigint } {
  const elapsed = x.to - x.from;
  let lockedArea = 0n;
  if (x.from < x.unlockEnd) {
    const duration = x.unlockEnd - x.lastReport;
    const left = x.to < x.unlockEnd ? x.unlockEnd - x.to : 0n;
    const span = x.unlockEnd - x.from - left;
    lockedArea = mulDiv(x.lockedAtReport * span, x.unlockEnd - x.from + left, 2n * duration, true);
  }
  const area = x.accounted * elapsed > lockedArea ? x.accounted * elapsed - lockedArea : 0n;
  return feeOnArea(area, x.accounted - lockedAt(x, x.to), x.bps, x.carried ?? 0n);
}

/** Largest value of the vault's 64-bit amounts (books). */
export const MAX_AMOUNT = 2n ** 64n - 1n;

/** Fixed-point shift of the share prices positions record (docs/vaults.md, "Performance fee per holder"). */
export const PRICE_SHIFT = 67n;

/** Where a position's gain and hurdle count from: the share price (times 2**PRICE_SHIFT) and hurdle accumulator. */
export interface Entry {
  price: bigint;
  mark: bigint;
}

/** The share price of docs/vaults.md: (totalAssets + 1) / (supply + 1e6), times 2**PRICE_SHIFT, rounded down. */
export function sharePrice(totalAssets: bigint, supply: bigint): bigint {
  return ((totalAssets + 1n) << PRICE_SHIFT) / (supply + VIRTUAL_SHARES);
}

/**
 * The entry point of a position of `held` shares entered at `entry`, joined by `count` shares entered at `incoming`,
 * with the hurdle accumulator at `markNow`: the share-weighted entry price (rounded up), and the mark that keeps the
 * hurdle earned so far (rounded up). An empty position takes the incoming entry.
 */
export function joinEntry(held: bigint, entry: Entry, count: bigint, incoming: Entry, markNow: bigint): Entry {
  if (held === 0n) return incoming;
  const total = held + count;
  const heldValue = held * entry.price;
  const price = ceilDiv(heldValue + count * incoming.price, total);
  const earned = heldValue * (markNow - entry.mark) + count * incoming.price * (markNow - incoming.mark);
  const weight = total * price;
  const elapsed = weight === 0n ? 0n : ceilDiv(earned, weight);
  return { price, mark: markNow - elapsed };
}

/**
 * The performance fee a position of `held` shares entered at `entry` owes when holders have `totalAssets` for
 * `supply` shares and the hurdle accumulator is at `markNow`: performanceBps of held * (price - hurdle price),
 * where the hurdle price is entry.price * (1 + (markNow - entry.mark) / (10,000 x year)), in shares at the price,
 * rounded down; the assets those shares are worth, rounded down; and the entry after (the price of now, if a fee
 * was due).
 */
export function settlement(
  held: bigint,
  entry: Entry,
  totalAssets: bigint,
  supply: bigint,
  markNow: bigint,
  performanceBps: bigint,
): { fee: bigint; feeAssets: bigint; entry: Entry } {
  const price = sharePrice(totalAssets, supply);
  const none = { fee: 0n, feeAssets: 0n, entry };
  if (price <= entry.price) return none;
  const gained = held * price * FEE_DENOMINATOR;
  const hurdle = held * entry.price * (FEE_DENOMINATOR + markNow - entry.mark);
  if (gained <= hurdle) return none;
  const fee = ((gained - hurdle) * performanceBps) / (price * FEE_DENOMINATOR * BPS);
  if (fee === 0n) return none;
  return { fee, feeAssets: toAssets(fee, totalAssets, supply), entry: { price, mark: markNow } };
}

function ceilDiv(x: bigint, d: bigint): bigint {
  return (x + d - 1n) / d;
}

/**
 * Seconds over which the profit locked by a report unlocks: a full `period` when nothing was still locked,
 * otherwise the average of the time left and `period`, weighted by what was still locked and the new `net` profit,
 * rounded down.
 */
export function unlockDuration(stillLocked: bigint, timeLeft: bigint, net: bigint, period: bigint): bigint {
  if (stillLocked === 0n) return period;
  return (stillLocked * timeLeft + net * period) / (stillLocked + net);
}

/**
 * What the vault's hot path will see at timestamp `at`, from its views and the rules above: holders' assets after
 * the management fee brought to date (rounded down, nothing carried), that fee, and the supply.
 */
export async function booksAt(vault: NapVault, at: bigint): Promise<{ assets: bigint; fee: bigint; supply: bigint }> {
  const [lockedAtReport, lastReport, unlockEnd] = await vault.profitUnlock();
  const interval: FeeInterval = {
    accounted: await vault.accountedAssets(),
    lockedAtReport,
    lastReport,
    unlockEnd,
    from: await vault.lastFeeAccrual(),
    to: at,
    bps: await vault.managementFeeBps(),
  };
  const before = interval.accounted - lockedAt(interval, at);
  const { fee } = managementFeeOver(interval);
  return { assets: before - fee, fee, supply: await vault.totalSupply() };
}

/**
 * The settlement of `holder`'s position at timestamp `at` (settlement above), from the vault's books (booksAt), the
 * position it records and its hurdle accumulator brought to `at`.
 */
export async function settlementAt(
  vault: NapVault,
  holder: string,
  at: bigint,
): Promise<{ fee: bigint; feeAssets: bigint; entry: Entry; assets: bigint; supply: bigint }> {
  const { assets, supply } = await booksAt(vault, at);
  const [held, price, mark] = await vault.positionOf(holder);
  const latest = BigInt((await ethers.provider.getBlock("latest"))!.timestamp);
  const markNow = (await vault.hurdleMark()) + (await vault.hurdleRateBps()) * (at - latest);
  const result = settlement(held, { price, mark }, assets, supply, markNow, await vault.performanceFeeBps());
  return { ...result, assets, supply };
}

/** The management fee an explicit accrual (report, accrueFees, claimFees) took, from its FeesAccrued event. */
export async function accruedManagementFee(vault: NapVault, tx: Promise<ContractTransactionResponse>): Promise<bigint> {
  const receipt = await (await tx).wait();
  for (const log of receipt!.logs) {
    const event = vault.interface.parseLog(log);
    if (event?.name === "FeesAccrued") return event.args.managementFee as bigint;
  }
  throw new Error("no FeesAccrued event");
}
