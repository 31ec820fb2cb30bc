import { expect } from "chai";
import { ethers, network } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import type { NapVault } from "../../../typechain-types";
import { DAY, USDC, deployWorld, expectedFees, type FeeInputs } from "./fixtures";

const HARVESTER_ROLE = ethers.id("HARVESTER_ROLE");

/** Reads what the fee rules need from the vault, for an accrual at `now`. */
async function feeInputs(vault: NapVault, now: number): Promise<FeeInputs> {
  const [mark, markTime] = await vault.highWaterMark();
  // totalAssets at `now`: what is counted now, plus what is still locked now, minus what will still be locked then.
  const [lockedAtReport, lastReport, unlockEnd, stillLocked] = await vault.profitUnlock();
  const t = BigInt(now);
  const lockedThen = t >= unlockEnd ? 0n : (lockedAtReport * (unlockEnd - t)) / (unlockEnd - lastReport);
  return {
    assets: (await vault.totalAssets()) + stillLocked - lockedThen,
    supply: await vault.totalSupply(),
    mark,
    markTime,
    lastAccrual: await vault.lastFeeAccrual(),
    managementBps: await vault.managementFeeBps(),
    performanceBps: await vault.performanceFeeBps(),
    hurdleBps: await vault.hurdleRateBps(),
    now: BigInt(now),
  };
}

/** Accrues at the next block (timestamp `now`), asserting the exact event against the independent rules. */
async function accrueAndCheck(vault: NapVault, now: number, recipient: string) {
  await time.setNextBlockTimestamp(now);
  const outcome = expectedFees(await feeInputs(vault, now));
  expect(outcome).to.not.equal(null);
  const before = await vault.balanceOf(recipient);
  await expect(vault.accrueFees())
    .to.emit(vault, "FeesAccrued")
    .withArgs(recipient, outcome!.managementFee, outcome!.performanceFee, outcome!.feeShares, outcome!.priceAfter);
  expect(await vault.balanceOf(recipient)).to.equal(before + outcome!.feeShares);
  expect(await vault.lastFeeAccrual()).to.equal(now);
  return outcome!;
}

describe("NapVault: reports, profit unlocking and fees", () => {
  describe("report", () => {
    it("lets only the harvester report, pulls the gain and locks it", async () => {
      const { a, usdc, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      await expect(sync.connect(a.alice).report(1n))
        .to.be.revertedWithCustomError(sync, "AccessControlUnauthorizedAccount")
        .withArgs(a.alice.address, HARVESTER_ROLE);
      const assetsBefore = await sync.totalAssets();
      const now = (await time.latest()) + 10;
      await time.setNextBlockTimestamp(now);
      const tx = sync.connect(a.harvester).report(10_000n * USDC);
      await expect(tx)
        .to.emit(sync, "Reported")
        .withArgs(a.harvester.address, 10_000n * USDC, 10_000n * USDC, now + DAY);
      await expect(tx)
        .to.emit(usdc, "Transfer")
        .withArgs(a.harvester.address, await sync.getAddress(), 10_000n * USDC);
      await expect(tx).to.emit(sync, "FeesAccrued");
      expect(await sync.totalAssets()).to.equal(assetsBefore);
      expect(await sync.profitUnlock()).to.deep.equal([10_000n * USDC, BigInt(now), BigInt(now + DAY), 10_000n * USDC]);
    });

    it("unlocks the profit linearly, rounding the locked part down", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      const gain = 10_000n * USDC + 1n;
      await sync.connect(a.harvester).report(gain);
      const start = await time.latest();
      for (const elapsed of [1, 3_600, DAY / 2, DAY - 1]) {
        await time.increaseTo(start + elapsed);
        const locked = (gain * BigInt(DAY - elapsed)) / BigInt(DAY);
        expect(await sync.totalAssets()).to.equal(100_000n * USDC + gain - locked);
        expect((await sync.profitUnlock())[3]).to.equal(locked);
      }
      await time.increaseTo(start + DAY);
      expect(await sync.totalAssets()).to.equal(100_000n * USDC + gain);
      expect((await sync.profitUnlock())[3]).to.equal(0);
    });

    it("adds a new report to what is still locked and restarts the unlock", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      await sync.connect(a.harvester).report(8_000n * USDC);
      const start = await time.latest();
      const now = start + DAY / 4;
      await time.setNextBlockTimestamp(now);
      await expect(sync.connect(a.harvester).report(1_000n * USDC))
        .to.emit(sync, "Reported")
        .withArgs(a.harvester.address, 1_000n * USDC, 6_000n * USDC + 1_000n * USDC, now + DAY);
      expect(await sync.totalAssets()).to.equal(102_000n * USDC);
    });

    it("pays a deposit made just before a report and redeemed just after only the seconds it held", async () => {
      const { a, usdc, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      const before = await usdc.balanceOf(a.bob.address);
      await sync.connect(a.bob).deposit(500_000n * USDC, a.bob.address);
      const gain = 50_000n * USDC;
      await sync.connect(a.harvester).report(gain);
      const reportedAt = await time.latest();
      await sync.connect(a.bob).redeem(await sync.balanceOf(a.bob.address), a.bob.address, a.bob.address);
      const held = BigInt((await time.latest()) - reportedAt);
      const profit = (await usdc.balanceOf(a.bob.address)) - before;
      // Bob's part (5/6) of what unlocked while he held, against 41,666 USDC had the profit counted at once.
      expect(held).to.equal(1n);
      expect(profit).to.be.lte((gain * held * 5n) / (BigInt(DAY) * 6n));
    });
  });

  describe("fee accrual", () => {
    it("charges the management fee for the time elapsed, as the independent rules say", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      const markBefore = await sync.highWaterMark();
      const now = (await time.latest()) + 30 * DAY;
      const elapsed = BigInt(now) - (await sync.lastFeeAccrual());
      const outcome = await accrueAndCheck(sync, now, a.feeRecipient.address);
      expect(outcome.managementFee).to.equal((100_000n * USDC * 200n * elapsed) / (10_000n * 365n * 86_400n));
      expect(outcome.managementFee).to.be.gte((100_000n * USDC * 200n * 30n) / (10_000n * 365n));
      expect(outcome.performanceFee).to.equal(0);
      expect(await sync.highWaterMark()).to.deep.equal(markBefore);
      // The fee shares are worth the fee, rounded down for the holders.
      expect(await sync.convertToAssets(outcome.feeShares)).to.be.lte(outcome.managementFee);
      expect(await sync.convertToAssets(outcome.feeShares)).to.be.gte(outcome.managementFee - 1n);
    });

    it("charges the performance fee above the hurdle-adjusted mark and moves the mark", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      await sync.connect(a.harvester).report(10_000n * USDC);
      const now = (await time.latest()) + 2 * DAY;
      const outcome = await accrueAndCheck(sync, now, a.feeRecipient.address);
      expect(outcome.markMoves).to.equal(true);
      expect(outcome.performanceFee).to.be.gt(1_900n * USDC);
      expect(await sync.highWaterMark()).to.deep.equal([outcome.priceAfter, BigInt(now)]);
      // A second accrual right after finds no new profit above the mark.
      const next = await accrueAndCheck(sync, now + 100, a.feeRecipient.address);
      expect(next.performanceFee).to.equal(0);
    });

    it("charges no performance fee while the rise stays under the hurdle", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      await time.increase(180 * DAY);
      // 5% a year hurdle: after half a year the threshold is 2.5% up; a 1% gain stays under it.
      await sync.connect(a.harvester).report(1_000n * USDC);
      const markBefore = await sync.highWaterMark();
      const outcome = await accrueAndCheck(sync, (await time.latest()) + 2 * DAY, a.feeRecipient.address);
      expect(outcome.performanceFee).to.equal(0);
      expect(await sync.highWaterMark()).to.deep.equal(markBefore);
    });

    it("accrues nothing without shares, and nothing twice in one block", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await time.increase(DAY);
      await expect(sync.accrueFees()).to.not.emit(sync, "FeesAccrued");
      expect(await sync.lastFeeAccrual()).to.equal(await time.latest());
      await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      await time.increase(DAY);
      await network.provider.send("evm_setAutomine", [false]);
      try {
        const first = await sync.accrueFees();
        const second = await sync.accrueFees();
        await network.provider.send("evm_mine", []);
        await expect(first).to.emit(sync, "FeesAccrued");
        await expect(second).to.not.emit(sync, "FeesAccrued");
      } finally {
        await network.provider.send("evm_setAutomine", [true]);
      }
    });

    it("charges no fee at zero rates but still records the accrual", async () => {
      const { a, configurable } = await loadFixture(deployWorld);
      await configurable.connect(a.admin).setFees(0, 0, 0);
      await configurable.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      await configurable.connect(a.harvester).report(1_000n * USDC);
      await time.increase(2 * DAY);
      await expect(configurable.accrueFees()).to.emit(configurable, "FeesAccrued");
      expect(await configurable.balanceOf(a.feeRecipient.address)).to.equal(0);
    });
  });
});
