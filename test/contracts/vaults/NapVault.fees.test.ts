import { expect } from "chai";
import { ethers, network } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { NapVault__factory } from "../../../typechain-types";
import {
  DAY,
  FEE_DENOMINATOR,
  MAX_UINT,
  USDC,
  YEAR,
  booksAt,
  deployWorld,
  managementFee,
  params,
  performanceFee,
  roles,
} from "./fixtures";

const HARVESTER_ROLE = ethers.id("HARVESTER_ROLE");

/** Sets the next block's timestamp `seconds` after the latest one and returns it. */
async function nextAt(seconds = 1): Promise<bigint> {
  const at = (await time.latest()) + seconds;
  await time.setNextBlockTimestamp(at);
  return BigInt(at);
}

/** Alice's 100,000 USDC in the synchronous vault (2% management, 20% performance above a 5% hurdle). */
async function funded() {
  const w = await deployWorld();
  await w.sync.connect(w.a.alice).deposit(100_000n * USDC, w.a.alice.address);
  return w;
}

describe("NapVault: reports, profit unlocking and fees", () => {
  describe("report", () => {
    it("lets only the harvester report, takes the performance fee above the hurdle and locks the rest", async () => {
      const { a, usdc, sync } = await loadFixture(funded);
      await expect(sync.connect(a.alice).report(1n))
        .to.be.revertedWithCustomError(sync, "AccessControlUnauthorizedAccount")
        .withArgs(a.alice.address, HARVESTER_ROLE);
      const gain = 10_000n * USDC;
      const at = await nextAt(30 * DAY);
      const books = await booksAt(sync, at);
      const perf = performanceFee({
        assets: books.assets,
        gain,
        performanceBps: 2_000n,
        hurdleBps: 500n,
        hurdleStart: await sync.hurdleStart(),
        now: at,
      });
      // 5% a year on 100,000 USDC for 30 days is 410.96 USDC of hurdle; 20% of the rest is the fee.
      expect(perf.hurdle).to.equal((books.assets * 500n * (at - (await sync.hurdleStart()))) / FEE_DENOMINATOR);
      expect(perf.fee).to.equal(((gain - perf.hurdle) * 2_000n) / 10_000n);
      const locked = gain - perf.fee;
      // Owed as of the last accrual: the vault's asset balance beyond its books.
      const owedBefore = (await usdc.balanceOf(await sync.getAddress())) - (await sync.accountedAssets());
      const tx = sync.connect(a.harvester).report(gain);
      await expect(tx).to.emit(sync, "FeesAccrued").withArgs(a.feeRecipient.address, books.fee, perf.fee);
      await expect(tx)
        .to.emit(sync, "Reported")
        .withArgs(a.harvester.address, gain, perf.fee, locked, at + BigInt(DAY));
      await expect(tx)
        .to.emit(usdc, "Transfer")
        .withArgs(a.harvester.address, await sync.getAddress(), gain);
      expect(await sync.totalAssets()).to.equal(books.assets);
      expect(await sync.accountedAssets()).to.equal(books.assets + locked);
      expect(await sync.profitUnlock()).to.deep.equal([locked, at, at + BigInt(DAY), locked]);
      expect(await sync.feesOwed()).to.equal(owedBefore + books.fee + perf.fee);
      expect(await sync.hurdleStart()).to.equal(at);
    });

    it("takes no performance fee on a gain under the hurdle and uses up the hurdle's time in proportion", async () => {
      const { a, sync } = await loadFixture(funded);
      const start = await sync.hurdleStart();
      const at = await nextAt(180 * DAY);
      const books = await booksAt(sync, at);
      // 5% a year: after half a year the hurdle is about 2,466 USDC; a gain of a third of it is free.
      const hurdle = (books.assets * 500n * (at - start)) / FEE_DENOMINATOR;
      const gain = hurdle / 3n;
      await expect(sync.connect(a.harvester).report(gain))
        .to.emit(sync, "Reported")
        .withArgs(a.harvester.address, gain, 0, gain, at + BigInt(DAY));
      expect(await sync.hurdleStart()).to.equal(start + ((at - start) * gain) / hurdle);
      // Reporting nothing leaves the rest of the hurdle in place.
      await sync.connect(a.harvester).report(0n);
      expect(await sync.hurdleStart()).to.equal(start + ((at - start) * gain) / hurdle);
    });

    it("takes the whole performance fee of a gain reported into an empty vault (no holder earns it)", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      const at = await nextAt();
      await expect(sync.connect(a.harvester).report(1_000n * USDC))
        .to.emit(sync, "Reported")
        .withArgs(a.harvester.address, 1_000n * USDC, 200n * USDC, 800n * USDC, at + BigInt(DAY));
      expect(await sync.feesOwed()).to.equal(200n * USDC);
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

    it("adds a new report to what is still locked and restarts the unlock", async () => {
      const { a, sync } = await loadFixture(funded);
      await sync.connect(a.harvester).report(8_000n * USDC);
      const [firstLocked, start] = await sync.profitUnlock();
      const at = start + BigInt(DAY) / 4n;
      await time.setNextBlockTimestamp(at);
      const stillLocked = (firstLocked * 3n) / 4n;
      // The hurdle restarted at the first report, so 6 hours of it stand against the second gain.
      const books = await booksAt(sync, at);
      const perf = performanceFee({
        assets: books.assets,
        gain: 1_000n * USDC,
        performanceBps: 2_000n,
        hurdleBps: 500n,
        hurdleStart: start,
        now: at,
      });
      await expect(sync.connect(a.harvester).report(1_000n * USDC))
        .to.emit(sync, "Reported")
        .withArgs(
          a.harvester.address,
          1_000n * USDC,
          perf.fee,
          stillLocked + 1_000n * USDC - perf.fee,
          at + BigInt(DAY),
        );
    });

    it("pays a deposit made just before a report and redeemed just after only the seconds it held", async () => {
      const { a, usdc, sync } = await loadFixture(funded);
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
      await sync.connect(a.harvester).report(10_000n * USDC);
      await usdc.connect(a.carol).transfer(await sync.getAddress(), 7n * USDC);
      await time.increase(DAY);
      const at = await nextAt();
      const books = await booksAt(sync, at);
      const expected = (await usdc.balanceOf(await sync.getAddress())) - (await sync.accountedAssets()) + books.fee;
      const before = await usdc.balanceOf(a.feeRecipient.address);
      const tx = sync.connect(a.bob).claimFees();
      await expect(tx).to.emit(sync, "FeesClaimed").withArgs(a.feeRecipient.address, expected);
      await expect(tx).to.emit(sync, "FeesAccrued").withArgs(a.feeRecipient.address, books.fee, 0);
      expect(await usdc.balanceOf(a.feeRecipient.address)).to.equal(before + expected);
      expect(await sync.feesOwed()).to.equal(0);
      expect(await sync.totalAssets()).to.equal(books.assets);
      expect(await usdc.balanceOf(await sync.getAddress())).to.equal(await sync.accountedAssets());
    });
  });
});
