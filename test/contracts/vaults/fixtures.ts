import { ethers } from "hardhat";
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
 * The management fee of docs/vaults.md, written independently of the contract: `bps` a year of `assets` for
 * `elapsed` seconds plus the fraction `carried` from the previous accrual, rounded down, at most `assets`.
 */
export function managementFee(
  assets: bigint,
  bps: bigint,
  elapsed: bigint,
  carried = 0n,
): { fee: bigint; remainder: bigint } {
  const numerator = assets * bps * elapsed + carried;
  const fee = numerator / FEE_DENOMINATOR;
  if (fee > assets) return { fee: assets, remainder: 0n };
  return { fee, remainder: numerator - fee * FEE_DENOMINATOR };
}

/**
 * The performance fee of a report of `gain` when holders have `assets`: `performanceBps` of the part of the gain
 * above the hurdle (`hurdleBps` a year of `assets` since `hurdleStart`), rounded down; and the hurdle start after
 * the report (now when the gain clears the hurdle, moved forward in proportion otherwise).
 */
export function performanceFee(x: {
  assets: bigint;
  gain: bigint;
  performanceBps: bigint;
  hurdleBps: bigint;
  hurdleStart: bigint;
  now: bigint;
}): { fee: bigint; hurdle: bigint; hurdleStart: bigint } {
  const hurdle = (x.assets * x.hurdleBps * (x.now - x.hurdleStart)) / FEE_DENOMINATOR;
  if (x.gain >= hurdle) return { fee: ((x.gain - hurdle) * x.performanceBps) / BPS, hurdle, hurdleStart: x.now };
  return { fee: 0n, hurdle, hurdleStart: x.hurdleStart + ((x.now - x.hurdleStart) * x.gain) / hurdle };
}

/**
 * What the vault's hot path will see at timestamp `at`, from its views and the rules above: holders' assets after
 * the management fee brought to date (rounded down, nothing carried), that fee, and the supply.
 */
export async function booksAt(vault: NapVault, at: bigint): Promise<{ assets: bigint; fee: bigint; supply: bigint }> {
  const accounted = await vault.accountedAssets();
  const last = await vault.lastFeeAccrual();
  const [lockedAtReport, lastReport, unlockEnd] = await vault.profitUnlock();
  const locked = at >= unlockEnd ? 0n : (lockedAtReport * (unlockEnd - at)) / (unlockEnd - lastReport);
  const before = accounted - locked;
  const { fee } = managementFee(before, await vault.managementFeeBps(), at - last);
  return { assets: before - fee, fee, supply: await vault.totalSupply() };
}
