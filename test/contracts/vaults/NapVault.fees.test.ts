import { expect } from "chai";
import { ethers, network } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { NapVault__factory, type NapVault, type TestUSDC } from "../../../typechain-types";
import {
  DAY,
  FEE_DENOMINATOR,
  MAX_UINT,
  USDC,
  YEAR,
  booksAt,
  deployWorld,
  managementFee,
  managementFeeOver,
  params,
  roles,
  unlockDuration,
} from "./fixtures";

const HARVESTER_ROLE = ethers.id("HARVESTER_ROLE");

/** Sets the next block's timestamp `seconds` after the latest one and returns it. */
async function nextAt(seconds = 1): Promise<bigint> {
  const at = (await time.latest()) + seconds;
  await time.setNextBlockTimestamp(at);
  return BigInt(at);
}

/** The vault's asset balance beyond its stored books: its fee balance as of the last accrual. */
async function storedFeeBalance(vault: NapVault, usdc: TestUSDC): Promise<bigint> {
  return (await usdc.balanceOf(await vault.getAddress())) - (await vault.accountedAssets());
}

/** Alice's 100,000 USDC in the synchronous vault (2% management, 20% performance above a 5% hurdle). */
async function funded() {
  const w = await deployWorld();
  await w.sync.connect(w.a.alice).deposit(100_000n * USDC, w.a.alice.address);
  return w;
}

describe("NapVault: reports, profit unlocking and fees", () => {
  describe("report", () => {
    it("lets only the harvester report and locks the whole gain: the performance fee is settled per holder", async () => {
      const { a, usdc, sync } = await loadFixture(funded);
      await expect(sync.connect(a.alice).report(1n))
        .to.be.revertedWithCustomError(sync, "AccessControlUnauthorizedAccount")
        .withArgs(a.alice.address, HARVESTER_ROLE);
      const gain = 10_000n * USDC;
      const at = await nextAt(30 * DAY);
      const books = await booksAt(sync, at);
      // Owed as of the last accrual: the vault's asset balance beyond its books.
      const owedBefore = await storedFeeBalance(sync, usdc);
      const tx = sync.connect(a.harvester).report(gain);
      await expect(tx).to.emit(sync, "FeesAccrued").withArgs(a.feeRecipient.address, books.fee, 0);
      await expect(tx)
        .to.emit(sync, "Reported")
        .withArgs(a.harvester.address, gain, 0, gain, at + BigInt(DAY));
      await expect(tx)
        .to.emit(usdc, "Transfer")
        .withArgs(a.harvester.address, await sync.getAddress(), gain);
      expect(await sync.totalAssets()).to.equal(books.assets);
      expect(await sync.accountedAssets()).to.equal(books.assets + gain);
      expect(await sync.profitUnlock()).to.deep.equal([gain, at, at + BigInt(DAY), gain]);
      expect(await sync.feesOwed()).to.equal(owedBefore + books.fee);
      expect(await sync.performanceFeeOwed(a.alice.address)).to.deep.equal([0n, 0n]);
    });

    it("takes no performance fee on a gain under the holder's own hurdle, which keeps growing", async () => {
      const { a, sync } = await loadFixture(funded);
      const [, entryPrice] = await sync.positionOf(a.alice.address);
      await time.increase(180 * DAY);
      // 5% a year: after half a year Alice's hurdle is about 2,466 USDC; a gain of a third of it is free.
      const hurdle = (100_000n * USDC * 500n * BigInt(180 * DAY)) / FEE_DENOMINATOR;
      await sync.connect(a.harvester).report(hurdle / 3n);
      await time.increase(DAY);
      expect(await sync.performanceFeeOwed(a.alice.address)).to.deep.equal([0n, 0n]);
      await expect(sync.connect(a.bob).settle(a.alice.address)).to.not.emit(sync, "PerformanceFeeCharged");
      // Nothing settled: her position still counts from where she entered, her hurdle price grows with time.
      const [shares, price, mark] = await sync.positionOf(a.alice.address);
      expect(shares).to.equal(await sync.balanceOf(a.alice.address));
      expect(price).to.equal(entryPrice);
      expect(await sync.hurdleMark()).to.equal(mark + 500n * BigInt(181 * DAY + 2));
    });

    it("leaves a gain reported into an empty vault to no holder and takes no fee on it", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      const at = await nextAt();
      await expect(sync.connect(a.harvester).report(1_000n * USDC))
        .to.emit(sync, "Reported")
        .withArgs(a.harvester.address, 1_000n * USDC, 0n, 1_000n * USDC, at + BigInt(DAY));
      expect(await sync.feesOwed()).to.equal(0n);
    });

    it("unlocks the profit linearly, rounding the locked part down", async () => {
      const { a, sync } = await loadFixture(funded);
      const gain = 10_000n * USDC + 1n;
      await sync.connect(a.harvester).report(gain);
      const [locked, start] = await sync.profitUnlock();
      for (const elapsed of [1n, 3_600n, BigInt(DAY) / 2n, BigInt(DAY) - 1n]) {
        await time.increaseTo(start + elapsed);
        const stillLocked = (locked * (BigInt(DAY) - elapsed)) / BigInt(DAY);
        expect((await sync.profitUnlock())[3]).to.equal(stillLocked);
        expect(await sync.totalAssets()).to.equal((await booksAt(sync, start + elapsed)).assets);
      }
      await time.increaseTo(start + BigInt(DAY));
      expect((await sync.profitUnlock())[3]).to.equal(0);
    });

    it("adds a new report to what is still locked, ending at the two ends averaged by amount", async () => {
      const { a, sync } = await loadFixture(funded);
      await sync.connect(a.harvester).report(8_000n * USDC);
      const [firstLocked, start] = await sync.profitUnlock();
      const at = start + BigInt(DAY) / 4n;
      await time.setNextBlockTimestamp(at);
      const stillLocked = (firstLocked * 3n) / 4n;
      const tx = sync.connect(a.harvester).report(1_000n * USDC);
      const net = 1_000n * USDC;
      // 18 hours left for what is still locked, a full day for the new profit.
      const duration = unlockDuration(stillLocked, (BigInt(DAY) * 3n) / 4n, net, BigInt(DAY));
      expect(duration).to.equal((stillLocked * ((BigInt(DAY) * 3n) / 4n) + net * BigInt(DAY)) / (stillLocked + net));
      await expect(tx)
        .to.emit(sync, "Reported")
        .withArgs(a.harvester.address, 1_000n * USDC, 0n, stillLocked + net, at + duration);
      expect(await sync.profitUnlock()).to.deep.equal([stillLocked + net, at, at + duration, stillLocked + net]);
    });

    it("pays a deposit made just before a report and redeemed just after only the seconds it held", async () => {
      const { a, usdc, sync } = await loadFixture(funded);
      const before = await usdc.balanceOf(a.bob.address);
      await sync.connect(a.bob).deposit(500_000n * USDC, a.bob.address);
      const gain = 50_000n * USDC;
      await sync.connect(a.harvester).report(gain);
      const reportedAt = await time.latest();
      // maxRedeem: the performance fee Bob owes on that second's gain is burnt with his exit.
      await nextAt();
      const all = await sync.maxRedeem(a.bob.address, { blockTag: "pending" });
      await sync.connect(a.bob).redeem(all, a.bob.address, a.bob.address);
      expect(await sync.balanceOf(a.bob.address)).to.equal(0n);
      const held = BigInt((await time.latest()) - reportedAt);
      const profit = (await usdc.balanceOf(a.bob.address)) - before;
      // Bob's part (5/6) of what unlocked while he held, against 41,666 USDC had the profit counted at once.
      expect(held).to.equal(1n);
      expect(profit).to.be.lte((gain * held * 5n) / (BigInt(DAY) * 6n));
    });

    it("refuses a report that would take the books past 2**64 - 1 units", async () => {
      const { a, usdc } = await loadFixture(deployWorld);
      const vault = await new NapVault__factory(a.deployer).deploy(
        params(await usdc.getAddress(), a.feeRecipient.address, { depositCap: MAX_UINT, performanceFeeBps: 0 }),
        roles(a),
        [],
      );
      const max = 2n ** 64n - 1n;
      await usdc.mint(a.harvester.address, max + 1n);
      await usdc.connect(a.harvester).approve(await vault.getAddress(), MAX_UINT);
      await expect(vault.connect(a.harvester).report(max + 1n))
        .to.be.revertedWithCustomError(vault, "ReportTooLarge")
        .withArgs(max + 1n, max);
      await vault.connect(a.harvester).report(max);
      expect(await vault.accountedAssets()).to.equal(max);
    });
  });

  describe("management fee", () => {
    it("is taken on every deposit and exit for the time since the last accrual, without an event", async () => {
      const { a, sync } = await loadFixture(funded);
      const last = await sync.lastFeeAccrual();
      const at = await nextAt(30 * DAY);
      const expected = managementFee(100_000n * USDC, 200n, at - last).fee;
      // 2% a year for 30 days on 100,000 USDC is 164.38 USDC.
      expect(expected).to.equal((100_000n * USDC * 200n * (at - last)) / (10_000n * YEAR));
      expect(expected).to.be.gte(164n * USDC);
      await expect(sync.connect(a.bob).deposit(1n * USDC, a.bob.address)).to.not.emit(sync, "FeesAccrued");
      expect(await sync.lastFeeAccrual()).to.equal(at);
      expect(await sync.accountedAssets()).to.equal(100_000n * USDC - expected + 1n * USDC);
      expect(await sync.feesOwed()).to.equal(expected);
    });

    it("is brought to date by accrueFees with an event, carrying the fraction of a unit to the next call", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      // 1,000 USDC at 2% a year: 0.634 unit a second.
      await nextAt();
      await expect(sync.accrueFees()).to.emit(sync, "FeesAccrued").withArgs(a.feeRecipient.address, 0, 0);
      await nextAt();
      await expect(sync.accrueFees()).to.emit(sync, "FeesAccrued").withArgs(a.feeRecipient.address, 1, 0);
      await nextAt();
      await expect(sync.accrueFees()).to.emit(sync, "FeesAccrued").withArgs(a.feeRecipient.address, 0, 0);
      await nextAt();
      await expect(sync.accrueFees()).to.emit(sync, "FeesAccrued").withArgs(a.feeRecipient.address, 1, 0);
      expect(await sync.feesOwed()).to.equal(2n); // floor(4 * 0.634)
    });

    it("leaves the fraction of a unit to the holders on deposits and exits", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      for (let i = 0; i < 4; i++) await sync.connect(a.alice).deposit(1n, a.alice.address);
      expect(await sync.feesOwed()).to.equal(0);
    });

    it("takes nothing twice in one block", async () => {
      const { a, sync } = await loadFixture(funded);
      const at = await nextAt(DAY);
      const { fee } = await booksAt(sync, at);
      await network.provider.send("evm_setAutomine", [false]);
      try {
        const first = await sync.accrueFees();
        const second = await sync.accrueFees();
        await network.provider.send("evm_mine", []);
        await expect(first).to.emit(sync, "FeesAccrued").withArgs(a.feeRecipient.address, fee, 0);
        await expect(second).to.emit(sync, "FeesAccrued").withArgs(a.feeRecipient.address, 0, 0);
      } finally {
        await network.provider.send("evm_setAutomine", [true]);
      }
    });

    it("takes at most the holders' assets after decades without an accrual", async () => {
      const { sync } = await loadFixture(funded);
      // 2% a year for 51 years would be 102% of the assets.
      const at = await nextAt(51 * 365 * DAY);
      expect((await booksAt(sync, at)).fee).to.equal(100_000n * USDC);
      await sync.accrueFees();
      expect(await sync.totalAssets()).to.equal(0);
      expect(await sync.feesOwed()).to.equal(100_000n * USDC);
    });

    it("charges nothing at zero rates but still records the accrual", async () => {
      const { a, configurable } = await loadFixture(deployWorld);
      await configurable.connect(a.admin).setFees(0, 0, 0);
      await configurable.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      await configurable.connect(a.harvester).report(1_000n * USDC);
      await time.increase(2 * DAY);
      await expect(configurable.accrueFees())
        .to.emit(configurable, "FeesAccrued")
        .withArgs(a.feeRecipient.address, 0, 0);
      expect(await configurable.lastFeeAccrual()).to.equal(await time.latest());
      expect(await configurable.feesOwed()).to.equal(0);
    });
  });

  describe("claimFees", () => {
    it("pays the fee recipient its fees and anything sent to the vault, whoever calls", async () => {
      const { a, usdc, sync } = await loadFixture(funded);
      // The report's accrual leaves a fraction of a unit, which claimFees carries (deposits carry none).
      const reportedAt = await nextAt();
      const { remainder } = managementFee(
        await sync.accountedAssets(),
        200n,
        reportedAt - (await sync.lastFeeAccrual()),
      );
      await sync.connect(a.harvester).report(10_000n * USDC);
      await usdc.connect(a.carol).transfer(await sync.getAddress(), 7n * USDC);
      await time.increase(DAY);
      const at = await nextAt();
      const books = await booksAt(sync, at);
      const [lockedAtReport, lastReport, unlockEnd] = await sync.profitUnlock();
      const carried = managementFeeOver({
        accounted: await sync.accountedAssets(),
        lockedAtReport,
        lastReport,
        unlockEnd,
        from: await sync.lastFeeAccrual(),
        to: at,
        bps: 200n,
        carried: remainder,
      }).fee;
      expect(carried - books.fee).to.be.oneOf([0n, 1n]);
      const expected = (await usdc.balanceOf(await sync.getAddress())) - (await sync.accountedAssets()) + carried;
      const before = await usdc.balanceOf(a.feeRecipient.address);
      const tx = sync.connect(a.bob).claimFees();
      await expect(tx).to.emit(sync, "FeesClaimed").withArgs(a.feeRecipient.address, expected);
      await expect(tx).to.emit(sync, "FeesAccrued").withArgs(a.feeRecipient.address, carried, 0);
      expect(await usdc.balanceOf(a.feeRecipient.address)).to.equal(before + expected);
      expect(await sync.feesOwed()).to.equal(0);
      expect(await sync.totalAssets()).to.equal(books.assets + books.fee - carried);
      expect(await usdc.balanceOf(await sync.getAddress())).to.equal(await sync.accountedAssets());
    });
  });
});
