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
  const sync = await new NapVault__factory(a.deployer).deploy(params(usdcAddress, a.feeRecipient.address), roles(a), []);
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

export interface FeeInputs {
  assets: bigint;
  supply: bigint;
  mark: bigint;
  markTime: bigint;
  lastAccrual: bigint;
  managementBps: bigint;
  performanceBps: bigint;
  hurdleBps: bigint;
  now: bigint;
}

export interface FeeOutcome {
  managementFee: bigint;
  performanceFee: bigint;
  feeShares: bigint;
  priceAfter: bigint;
  markMoves: boolean;
}

/**
 * The fee rules of docs/vaults.md, written independently of the contract: management fee on totalAssets for the
 * time elapsed, performance fee on the rise of the price per share above the mark grown by the hurdle since it was
 * set, fee paid as shares worth the fee. Null when nothing is accrued (no time elapsed or no shares).
 */
export function expectedFees(x: FeeInputs): FeeOutcome | null {
  const elapsed = x.now - x.lastAccrual;
  if (elapsed === 0n || x.supply === 0n) return null;
  let managementFee = (x.assets * x.managementBps * elapsed) / (BPS * YEAR);
  if (managementFee > x.assets) managementFee = x.assets;
  const virtualSupply = x.supply + VIRTUAL_SHARES;
  const price = ((x.assets - managementFee + 1n) * WAD) / virtualSupply;
  const threshold = x.mark + (x.mark * x.hurdleBps * (x.now - x.markTime)) / (BPS * YEAR);
  const markMoves = price > threshold;
  const performanceFee = markMoves ? (((price - threshold) * x.supply) / WAD) * x.performanceBps / BPS : 0n;
  const fee = managementFee + performanceFee;
  const feeShares = (fee * virtualSupply) / (x.assets - fee + 1n);
  const priceAfter = ((x.assets + 1n) * WAD) / (virtualSupply + feeShares);
  return { managementFee, performanceFee, feeShares, priceAfter, markMoves };
}
