/**
 * The hurdle per holder (issue 27, "The hurdle credit is pooled"): each holder keeps hurdleRateBps a year of what it
 * held, for the time it held it, before any performance fee, whoever else comes and goes. Expected fees are computed
 * here from that rule alone: performanceBps of (value - value at entry - hurdleRate x value at entry x time held),
 * the value read at the exit's block before the exit; the vault's fixed-point price and rounding stay within a few
 * asset units of it.
 */
import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { anyValue } from "@nomicfoundation/hardhat-chai-matchers/withArgs";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import { NapVault__factory, type NapVault, type TestUSDC } from "../../../typechain-types";
import { BPS, DAY, MAX_UINT, USDC, YEAR, deployWorld, params, roles } from "./fixtures";

const MILLION = 1_000_000n * USDC;
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
const PERFORMANCE_BPS = 2_000n;
const HURDLE_BPS = 800n;
/** Asset units the vault's rounding (price, shares, fee) may differ by from the exact rule. */
const ROUNDING = 5n;

/** The aggressive vault's fees (2% management, 20% performance above an 8% hurdle, 7-day unlock), synchronous. */
async function aggressive() {
  const w = await deployWorld();
  const vault = await new NapVault__factory(w.a.deployer).deploy(
    params(await w.usdc.getAddress(), w.a.feeRecipient.address, {
      managementFeeBps: 200,
      performanceFeeBps: Number(PERFORMANCE_BPS),
      hurdleRateBps: Number(HURDLE_BPS),
      depositCap: MAX_UINT,
      profitUnlockPeriod: 7 * DAY,
    }),
    roles(w.a),
    [],
  );
  for (const who of [w.a.alice, w.a.bob, w.a.carol, w.a.harvester]) {
    await w.usdc.connect(who).approve(await vault.getAddress(), MAX_UINT);
  }
  return { ...w, vault };
}

/** Deposits `assets` for `holder` and returns the block time it entered at. */
async function enter(vault: NapVault, holder: HardhatEthersSigner, assets: bigint): Promise<bigint> {
  await vault.connect(holder).deposit(assets, holder.address);
  return BigInt(await time.latest());
}

/** The performance fee the rule asks of a holder that entered with `entered` assets `held` seconds ago and is now
 * worth `value`: performanceBps of its gain beyond hurdleRateBps a year of what it entered with. */
function ruleFee(value: bigint, entered: bigint, held: bigint): bigint {
  const hurdle = (entered * HURDLE_BPS * held) / (BPS * YEAR);
  const gain = value - entered;
  return gain > hurdle ? ((gain - hurdle) * PERFORMANCE_BPS) / BPS : 0n;
}

/** Full exit of `holder` in the next block: its value just before (its balance at the price of that block, fee
 * not yet settled), and the assets it was paid. */
async function fullExit(vault: NapVault, usdc: TestUSDC, holder: HardhatEthersSigner) {
  const at = BigInt((await time.latest()) + 1);
  await time.setNextBlockTimestamp(at);
  const value = await vault.convertToAssets(await vault.balanceOf(holder.address), { blockTag: "pending" });
  const shares = await vault.maxRedeem(holder.address, { blockTag: "pending" });
  const before = await usdc.balanceOf(holder.address);
  await vault.connect(holder).redeem(shares, holder.address, holder.address);
  expect(await vault.balanceOf(holder.address), "nothing left after a full exit").to.equal(0n);
  return { at, value, paid: (await usdc.balanceOf(holder.address)) - before };
}

describe("NapVault: the hurdle per holder", () => {
  it("lets anyone settle a holder above its hurdle: its fee shares burnt, their assets owed to the fee recipient", async () => {
    const { a, vault } = await loadFixture(aggressive);
    const entered = await enter(vault, a.alice, MILLION);
    await time.increase(30 * DAY);
    await vault.connect(a.harvester).report(50_000n * USDC);
    await time.increase(7 * DAY);
    const at = BigInt((await time.latest()) + 1);
    await time.setNextBlockTimestamp(at);
    const shares = await vault.balanceOf(a.alice.address);
    const value = await vault.convertToAssets(shares, { blockTag: "pending" });
    const [owedShares, owedAssets] = await vault.performanceFeeOwed(a.alice.address, { blockTag: "pending" });
    const feesBefore = await vault.feesOwed({ blockTag: "pending" });
    expect(owedAssets).to.be.closeTo(ruleFee(value, MILLION, at - entered), ROUNDING);
    const tx = vault.connect(a.carol).settle(a.alice.address);
    await expect(tx).to.emit(vault, "PerformanceFeeCharged").withArgs(a.alice.address, owedShares, owedAssets);
    await expect(tx).to.emit(vault, "Transfer").withArgs(a.alice.address, ZERO_ADDRESS, owedShares);
    expect(await vault.balanceOf(a.alice.address)).to.equal(shares - owedShares);
    expect(await vault.feesOwed()).to.equal(feesBefore + owedAssets);
    // The position enters anew at the price of the settlement: nothing more is owed until it gains again, but for
    // the settlement's own rounding in the vault's favour (under a unit of assets, of which it owes 20%).
    const [, entryPrice, entryMark] = await vault.positionOf(a.alice.address);
    expect(entryMark).to.equal(await vault.hurdleMark());
    expect(entryPrice).to.be.gt(0n);
    expect((await vault.performanceFeeOwed(a.alice.address))[1]).to.equal(0n);
  });

  it("keeps maxRedeem and maxWithdraw exact while a fee is owed: each exits the whole position, the balance reverts", async () => {
    const { a, usdc, vault } = await loadFixture(aggressive);
    await enter(vault, a.alice, MILLION);
    await enter(vault, a.bob, MILLION);
    await time.increase(30 * DAY);
    await vault.connect(a.harvester).report(50_000n * USDC);
    await time.increase(7 * DAY);
    const at = BigInt((await time.latest()) + 1);
    const pending = { blockTag: "pending" } as const;

    // Alice redeems maxRedeem: her balance less the fee shares, which the same exit burns.
    await time.setNextBlockTimestamp(at);
    const balance = await vault.balanceOf(a.alice.address);
    const [owedShares, owedAssets] = await vault.performanceFeeOwed(a.alice.address, pending);
    const maxShares = await vault.maxRedeem(a.alice.address, pending);
    expect(owedShares).to.be.gt(0n);
    expect(maxShares).to.equal(balance - owedShares);
    const paid = await vault.maxWithdraw(a.alice.address, pending);
    const feesBefore = await vault.feesOwed(pending);
    const tx = vault.connect(a.alice).redeem(maxShares, a.alice.address, a.alice.address);
    await expect(tx).to.emit(vault, "Transfer").withArgs(a.alice.address, ZERO_ADDRESS, balance);
    await expect(tx)
      .to.emit(vault, "Withdraw")
      .withArgs(a.alice.address, a.alice.address, a.alice.address, paid, maxShares);
    expect(await vault.balanceOf(a.alice.address)).to.equal(0n);
    expect(await vault.feesOwed()).to.equal(feesBefore + owedAssets);

    // Bob: redeem(balanceOf) asks for the fee shares too and reverts with the exact limit; withdraw(maxWithdraw)
    // then exits everything.
    await time.setNextBlockTimestamp(at + 1n);
    const bobBalance = await vault.balanceOf(a.bob.address);
    const bobMax = await vault.maxRedeem(a.bob.address, pending);
    expect(bobMax).to.be.lt(bobBalance);
    await expect(vault.connect(a.bob).redeem(bobBalance, a.bob.address, a.bob.address))
      .to.be.revertedWithCustomError(vault, "ERC4626ExceededMaxRedeem")
      .withArgs(a.bob.address, bobBalance, bobMax);
    await time.setNextBlockTimestamp(at + 2n);
    const assets = await vault.maxWithdraw(a.bob.address, pending);
    const before = await usdc.balanceOf(a.bob.address);
    await vault.connect(a.bob).withdraw(assets, a.bob.address, a.bob.address);
    expect((await usdc.balanceOf(a.bob.address)) - before).to.equal(assets);
    // What a unit of assets less than a share is worth may stay behind (the withdraw rounds its shares up).
    expect(await vault.convertToAssets(await vault.balanceOf(a.bob.address))).to.be.lte(1n);
  });

  it("moves shares with their entry point on a transfer, so a transfer neither pays nor moves anyone's fee", async () => {
    const { a, vault } = await loadFixture(aggressive);
    await enter(vault, a.alice, MILLION);
    await time.increase(30 * DAY);
    await vault.connect(a.harvester).report(50_000n * USDC);
    await time.increase(7 * DAY);
    const [owedBefore] = await vault.performanceFeeOwed(a.alice.address);
    const half = (await vault.balanceOf(a.alice.address)) / 2n;
    const [, entryPrice, entryMark] = await vault.positionOf(a.alice.address);
    await vault.connect(a.alice).transfer(a.bob.address, half);
    expect(await vault.positionOf(a.bob.address)).to.deep.equal([half, entryPrice, entryMark]);
    const [aliceOwed] = await vault.performanceFeeOwed(a.alice.address);
    const [bobOwed] = await vault.performanceFeeOwed(a.bob.address);
    // The fee owed is split with the shares (each half rounded down), a second of unlock later.
    expect(aliceOwed + bobOwed).to.be.closeTo(owedBefore, owedBefore / 10_000n);
  });

  it("a deposit the block before the yearly report takes none of the hurdle of those who held all year (Carol and Bob)", async () => {
    const { a, usdc, vault } = await loadFixture(aggressive);
    const bobEntered = await enter(vault, a.bob, MILLION);
    await time.increase(365 * DAY);
    const carolEntered = await enter(vault, a.carol, MILLION);
    await vault.connect(a.harvester).report(80_000n * USDC);
    await time.increaseTo(carolEntered + 7n * BigInt(DAY) - 1n);

    // Carol held 7 days: her own hurdle (1,534.25 on her million) is all she keeps before the fee.
    const carol = await fullExit(vault, usdc, a.carol);
    const carolFee = ruleFee(carol.value, MILLION, carol.at - carolEntered);
    expect(carolFee).to.be.gt(7_000n * USDC);
    expect(carol.paid).to.be.closeTo(carol.value - carolFee, ROUNDING);

    // Bob's gains stay below his own 380-day hurdle (83,287.67 on his million): he pays no performance fee.
    const second = vault.connect(a.harvester).report(40_000n * USDC);
    // No performance fee at the report: Bob's is settled on what unlocks to him, against his own hurdle.
    await expect(second)
      .to.emit(vault, "Reported")
      .withArgs(a.harvester.address, 40_000n * USDC, 0n, anyValue, anyValue);
    await time.increaseTo(bobEntered + 380n * BigInt(DAY) - 1n);
    const bob = await fullExit(vault, usdc, a.bob);
    // About 80,000 of reported gains, net of a little over a year of management fee.
    expect(bob.value - MILLION).to.be.gt(55_000n * USDC);
    expect(ruleFee(bob.value, MILLION, bob.at - bobEntered)).to.equal(0n);
    expect(bob.paid).to.be.closeTo(bob.value, ROUNDING);
  });

  it("an exit after a year takes its hurdle with it: the next holder's gain pays the fee above its own (A3-11)", async () => {
    const { a, usdc, vault } = await loadFixture(aggressive);
    await enter(vault, a.alice, MILLION);
    await time.increase(365 * DAY);
    const alice = await fullExit(vault, usdc, a.alice);
    expect(alice.paid).to.be.closeTo(alice.value, ROUNDING);

    const bobEntered = await enter(vault, a.bob, MILLION);
    await time.increase(7 * DAY);
    await vault.connect(a.harvester).report(20_000n * USDC);
    await time.increase(7 * DAY);
    const bob = await fullExit(vault, usdc, a.bob);
    const bobFee = ruleFee(bob.value, MILLION, bob.at - bobEntered);
    // About 20% of (20,000 less two weeks of management fee and of his hurdle).
    expect(bobFee).to.be.gt(3_000n * USDC);
    expect(bob.paid).to.be.closeTo(bob.value - bobFee, ROUNDING);
  });
});
