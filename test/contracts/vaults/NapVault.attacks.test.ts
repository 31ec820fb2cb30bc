/**
 * Regression tests of the findings of the independent reviews, each named after the attack it tries. Every one of
 * them failed on the contracts before the fix (see docs/invariants.md for what each proves). The second review's
 * attacks that found nothing are kept in NapVault.protections.test.ts.
 */
import { expect } from "chai";
import { ethers, network } from "hardhat";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import {
  HookUSDC__factory,
  NapVault__factory,
  ReentrantDepositor__factory,
  type NapVault,
} from "../../../typechain-types";
import {
  BPS,
  DAY,
  HOUR,
  MAX_UINT,
  USDC,
  YEAR,
  accruedManagementFee,
  actors,
  deployWorld,
  params,
  roles,
  type VaultParams,
} from "./fixtures";

const FULFILLER_ROLE = ethers.id("FULFILLER_ROLE");

/** The documented grace period after which anyone may fill a ready request. */
const GRACE = HOUR;

/** The shared world plus one more vault with the given parameters (no cap unless given), funded holders. */
async function withVault(overrides: Partial<VaultParams>) {
  const w = await deployWorld();
  const vault = await new NapVault__factory(w.a.deployer).deploy(
    params(await w.usdc.getAddress(), w.a.feeRecipient.address, { depositCap: MAX_UINT, ...overrides }),
    roles(w.a),
    [],
  );
  for (const holder of [w.a.alice, w.a.bob, w.a.carol, w.a.harvester]) {
    await w.usdc.connect(holder).approve(await vault.getAddress(), MAX_UINT);
  }
  return { ...w, vault };
}

const syncVault = () => withVault({ hurdleRateBps: 0 });
const asyncVault = () => withVault({ asyncRedeem: true, fulfillmentDelay: DAY, hurdleRateBps: 0 });
/** The default fees of the fixtures: 2% a year, 20% of the gain above a hurdle of 5% a year. */
const defaultFeesVault = () => withVault({});
/** The moderate vault's fees: 1% a year, 15% of the gain above a hurdle of 5% a year; a 3-day unlock. */
const moderateVault = () =>
  withVault({ managementFeeBps: 100, performanceFeeBps: 1_500, hurdleRateBps: 500, profitUnlockPeriod: 3 * DAY });

/**
 * A full exit of `holder` in the next block (at `at`, or a second after the latest): it redeems maxRedeem read at
 * that block, since the performance fee it owes, burnt with the exit, grows while profit unlocks.
 */
async function redeemAll(vault: NapVault, holder: HardhatEthersSigner, at?: number): Promise<void> {
  await time.setNextBlockTimestamp(at ?? (await time.latest()) + 1);
  const shares = await vault.maxRedeem(holder.address, { blockTag: "pending" });
  await vault.connect(holder).redeem(shares, holder.address, holder.address);
  expect(await vault.balanceOf(holder.address)).to.equal(0n);
}

/** Management fee on `assets` for `seconds` at `bps` a year, rounded up (an upper bound of what a holder pays). */
function managementFee(assets: bigint, bps: bigint, seconds: bigint): bigint {
  return (assets * bps * seconds + BPS * YEAR - 1n) / (BPS * YEAR);
}

/** What the fee recipient has earned so far, in assets (fees owed to it, brought to date). */
async function recipientEarnings(vault: NapVault): Promise<bigint> {
  return vault.feesOwed();
}

describe("NapVault: attacks of the independent review", () => {
  describe("H-1 stuck redemption", () => {
    it("a griefer's 1-unit requests for the victim, once per delay, cannot delay or shrink the victim's request", async () => {
      const { a, vault } = await loadFixture(asyncVault);
      const [victim, griefer] = [a.alice, a.bob];
      await vault.connect(victim).deposit(100_000n * USDC, victim.address);
      await vault.connect(griefer).deposit(1n * USDC, griefer.address);
      const shares = await vault.balanceOf(victim.address);
      await vault.connect(victim).requestRedeem(shares, victim.address, victim.address);
      const requestedAt = await time.latest();
      const valueAtRequest = await vault.convertToAssets(shares);

      // The attack: just before the request becomes ready, the griefer adds 1 share unit to the victim's request,
      // which restarted the delay of the whole request, once per delay, for as long as the griefer liked.
      await time.setNextBlockTimestamp(requestedAt + DAY - 10);
      await expect(vault.connect(griefer).requestRedeem(1n, victim.address, griefer.address))
        .to.be.revertedWithCustomError(vault, "NotControllerOrOperator")
        .withArgs(griefer.address, victim.address);
      expect(await vault.pendingRedeemRequest(0, victim.address)).to.equal(shares);
      expect(await vault.pendingRedeemReadyAt(victim.address)).to.equal(requestedAt + DAY);

      // Fillable at the delay, for the whole request and at least 99.9% of its value at request time.
      await time.setNextBlockTimestamp(requestedAt + DAY);
      const fill = await vault.connect(a.fulfiller).fulfillRedeem(victim.address);
      const assets = await vault.maxWithdraw(victim.address);
      await expect(fill)
        .to.emit(vault, "RedeemFulfilled")
        .withArgs(victim.address, a.fulfiller.address, shares, assets);
      expect(assets * 1_000n).to.be.gte(valueAtRequest * 999n);
      expect(await vault.claimableRedeemRequest(0, victim.address)).to.equal(shares);
    });
  });

  describe("H-2 performance fee on principal after an empty period", () => {
    for (const [label, prime] of [
      ["a 1-unit donation to the empty vault", "donation"],
      ["a harvester report before any deposit", "report"],
    ] as const) {
      it(`${label} cannot make the first depositor pay performance fee on its principal`, async () => {
        const { a, usdc, vault } = await loadFixture(syncVault);
        if (prime === "donation") await usdc.connect(a.carol).transfer(await vault.getAddress(), 1n);
        else await vault.connect(a.harvester).report(1n);
        await time.increase(2 * DAY);
        const deposit = 100_000n * USDC;
        const before = await usdc.balanceOf(a.alice.address);
        await vault.connect(a.alice).deposit(deposit, a.alice.address);
        const enteredAt = await time.latest();
        await time.increase(30 * DAY);
        await vault.accrueFees();
        await vault.connect(a.alice).redeem(await vault.balanceOf(a.alice.address), a.alice.address, a.alice.address);
        const held = BigInt((await time.latest()) - enteredAt);
        const back = (await usdc.balanceOf(a.alice.address)) - (before - deposit);
        // At least 99.9% of the deposit, less the management fee for the time held.
        expect(back).to.be.gte((deposit * 999n) / 1_000n - managementFee(deposit, 200n, held));
      });
    }
  });

  describe("M-1 fees on gains made before entry", () => {
    it("a depositor entering just before a report pays no performance fee on gains made before it entered", async () => {
      const { a, usdc, vault } = await loadFixture(syncVault);
      await vault.connect(a.bob).deposit(1_000_000n * USDC, a.bob.address);
      await vault.connect(a.harvester).report(100_000n * USDC);
      await time.increase(DAY); // the whole gain has unlocked to Bob
      const deposit = 1_000_000n * USDC;
      const before = await usdc.balanceOf(a.alice.address);
      await vault.connect(a.alice).deposit(deposit, a.alice.address);
      const enteredAt = await time.latest();
      await vault.connect(a.harvester).report(0n);
      await vault.connect(a.alice).redeem(await vault.balanceOf(a.alice.address), a.alice.address, a.alice.address);
      const held = BigInt((await time.latest()) - enteredAt);
      const loss = before - (await usdc.balanceOf(a.alice.address));
      // No gain was made while Alice held: she pays at most the management fee for the seconds held, plus rounding.
      expect(loss).to.be.lte(managementFee(deposit, 200n, held) + 2n);
    });

    it("a holder leaving just before a report cannot escape the performance fee on the gains it took out", async () => {
      const { a, usdc, vault } = await loadFixture(syncVault);
      const deposit = 1_000_000n * USDC;
      const before = await usdc.balanceOf(a.bob.address);
      await vault.connect(a.bob).deposit(deposit, a.bob.address);
      const gain = 100_000n * USDC;
      await vault.connect(a.harvester).report(gain);
      await time.increase(DAY);
      await redeemAll(vault, a.bob);
      const profit = (await usdc.balanceOf(a.bob.address)) - before;
      // Bob took out (almost) the whole gain; 20% of it is the performance fee, burnt with his exit.
      expect(profit).to.be.gt(0n);
      expect(profit).to.be.lte((gain * 8_000n) / 10_000n);
      expect(await recipientEarnings(vault)).to.be.gte((gain * 2_000n) / 10_000n);
    });
  });

  describe("M-3 exits that depend on one role", () => {
    it("revoking FULFILLER_ROLE cannot freeze a request: anyone fills it after the delay and the grace period", async () => {
      const { a, usdc, vault } = await loadFixture(asyncVault);
      await vault.connect(a.alice).deposit(10_000n * USDC, a.alice.address);
      const shares = await vault.balanceOf(a.alice.address);
      const valueAtRequest = await vault.convertToAssets(shares);
      await vault.connect(a.alice).requestRedeem(shares, a.alice.address, a.alice.address);
      const requestedAt = await time.latest();
      await vault.connect(a.admin).revokeRole(FULFILLER_ROLE, a.fulfiller.address);
      await time.setNextBlockTimestamp(requestedAt + DAY + GRACE);
      await vault.connect(a.carol).fulfillRedeem(a.alice.address);
      const before = await usdc.balanceOf(a.alice.address);
      await vault.connect(a.alice).redeem(shares, a.alice.address, a.alice.address);
      const received = (await usdc.balanceOf(a.alice.address)) - before;
      expect(received * 1_000n).to.be.gte(valueAtRequest * 999n);
    });
  });

  describe("Low: accrual rounding", () => {
    it("calling accrueFees() every block on a small vault does not shrink the fee recipient's earnings", async () => {
      const { a, vault } = await loadFixture(syncVault);
      await vault.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      const start = await time.latest();
      const blocks = 300;
      const snapshot = await network.provider.send("evm_snapshot", []);
      for (let i = 1; i <= blocks; i++) {
        await time.setNextBlockTimestamp(start + i);
        await vault.accrueFees();
      }
      const perBlock = await recipientEarnings(vault);
      await network.provider.send("evm_revert", [snapshot]);
      await time.setNextBlockTimestamp(start + blocks);
      await vault.accrueFees();
      const once = await recipientEarnings(vault);
      expect(once).to.be.gt(100n); // about 190 units of management fee over 300 seconds
      // Per-block accrual earns what one accrual does, give or take the rounding of one accrual.
      expect(perBlock).to.be.gte(once - 1n);
      expect(perBlock).to.be.lte(once + 1n);
      await mine();
    });
  });

  describe("M-4 (second review) hurdle raised by capital that did not stay", () => {
    it("a whale depositing just before a report and leaving just after cannot raise the hurdle and erase the performance fee", async () => {
      const { a, usdc, vault } = await loadFixture(moderateVault);
      const [holder, whale] = [a.bob, a.alice];
      await usdc.mint(whale.address, 4_000_000n * USDC);
      await vault.connect(holder).deposit(1_000_000n * USDC, holder.address);
      const enteredAt = BigInt(await time.latest());
      const reportAt = (await time.latest()) + 7 * DAY;
      const unlockedAt = reportAt + 3 * DAY;
      const gain = 2_000n * USDC;

      const snapshot = await network.provider.send("evm_snapshot", []);
      await time.setNextBlockTimestamp(reportAt);
      await vault.connect(a.harvester).report(gain);
      await time.increaseTo(unlockedAt);
      const [, honestFee] = await vault.performanceFeeOwed(holder.address);
      const honestValue = await vault.convertToAssets(await vault.balanceOf(holder.address));
      await network.provider.send("evm_revert", [snapshot]);

      // The attack: 4,000,000 USDC in the block before the report, out in the block after it. Measured on the
      // holders' assets at the report, the pooled hurdle was 5% a year of 5,000,000 USDC for 7 days, 4,794.52 USDC,
      // more than the gain: the fee recipient got nothing. Per holder, the whale's second counts for its own
      // second of hurdle only, and the holder's fee does not move.
      const before = await usdc.balanceOf(whale.address);
      await time.setNextBlockTimestamp(reportAt - 1);
      await vault.connect(whale).deposit(4_000_000n * USDC, whale.address);
      await time.setNextBlockTimestamp(reportAt);
      await expect(vault.connect(a.harvester).report(gain))
        .to.emit(vault, "Reported")
        .withArgs(a.harvester.address, gain, 0n, gain, unlockedAt);
      await redeemAll(vault, whale, reportAt + 1);
      await time.increaseTo(unlockedAt);
      const [, attackedFee] = await vault.performanceFeeOwed(holder.address);

      // 5% a year of the 1,000,000 USDC that stayed, for the 10 days it stayed: 1,369.86 USDC of hurdle; the fee
      // is 15% of the rest of its gain (the report less its management fee).
      const hurdle = (1_000_000n * USDC * 500n * (BigInt(unlockedAt) - enteredAt)) / (BPS * YEAR);
      expect(honestFee).to.be.closeTo(((honestValue - 1_000_000n * USDC - hurdle) * 1_500n) / BPS, USDC / 100n);
      expect(honestFee).to.be.gt(0n);
      expect(attackedFee).to.be.closeTo(honestFee, USDC / 100n);
      // The whale took no more than its part of the profit that unlocked in the second it held after the report.
      const profit = (await usdc.balanceOf(whale.address)) - before;
      expect(profit).to.be.lte((gain * 4n) / (5n * 3n * BigInt(DAY)));
    });
  });

  describe("L-1 (second review) unlock held back by empty reports", () => {
    it("the harvester's hot key reporting 0 every hour cannot hold back profit that was unlocking", async () => {
      const { a, usdc, vault } = await loadFixture(syncVault);
      await vault.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      await vault.connect(a.bob).deposit(100_000n * USDC, a.bob.address);
      await vault.connect(a.harvester).report(10_000n * USDC);
      const [, reportedAt, unlockEnd] = await vault.profitUnlock();

      // Alice leaves when the profit has all unlocked, with fees brought to date every hour; in the attack the
      // relayer's hot key (HARVESTER_ROLE) brings them to date with report(0) instead, which restarted the unlock
      // of what was still locked each time: a day later 28.8% of it was still locked, and Alice left 1,439.75
      // USDC of her share behind for Bob.
      const proceeds = async (emptyReports: boolean) => {
        for (let hour = 1; hour <= 24; hour++) {
          await time.setNextBlockTimestamp(reportedAt + BigInt(hour * HOUR));
          if (emptyReports) await vault.connect(a.harvester).report(0n);
          else await vault.accrueFees();
        }
        expect(await time.latest()).to.equal(unlockEnd);
        const still = (await vault.profitUnlock())[3];
        const before = await usdc.balanceOf(a.alice.address);
        await redeemAll(vault, a.alice);
        return { still, received: (await usdc.balanceOf(a.alice.address)) - before };
      };
      const snapshot = await network.provider.send("evm_snapshot", []);
      const honest = await proceeds(false);
      await network.provider.send("evm_revert", [snapshot]);
      const attacked = await proceeds(true);

      expect(honest.still).to.equal(0n);
      expect(attacked.still).to.equal(0n);
      // Each report(0) rounds the locked part down once (the holders' way).
      expect(attacked.received).to.be.closeTo(honest.received, 24n);
    });
  });

  describe("L-2 (second review) callback before the pull", () => {
    it("a depositor whose asset calls it back before the pull cannot redeem at a price counting its own undelivered deposit", async () => {
      const a = await actors();
      // An asset that calls the sender before moving its tokens (ERC-777 style). USDC has no such hook; the vault
      // takes any ERC-20, so its order of effects must not rely on that.
      const token = await new HookUSDC__factory(a.deployer).deploy();
      const vault = await new NapVault__factory(a.deployer).deploy(
        params(await token.getAddress(), a.feeRecipient.address, {
          depositCap: MAX_UINT,
          managementFeeBps: 0,
          hurdleRateBps: 0,
        }),
        roles(a),
        [],
      );
      const attacker = await new ReentrantDepositor__factory(a.deployer).deploy(await vault.getAddress());
      const attackerAddress = await attacker.getAddress();
      await token.mint(attackerAddress, 200n * USDC);
      await token.mint(a.alice.address, 100n * USDC);
      await token.connect(a.alice).approve(await vault.getAddress(), MAX_UINT);
      await vault.connect(a.alice).deposit(100n * USDC, a.alice.address);
      await attacker.depositQuietly(100n * USDC);

      // The attack: deposit 100 more and, inside the asset's pull, redeem the 100 USDC of shares held before. The
      // vault had counted the 100 in its books before minting their shares, so the old shares redeemed for 150:
      // the attacker ended with 225 USDC of value and Alice with 75.
      await attacker.depositAndRedeemInside(100n * USDC);
      const attackerValue =
        (await token.balanceOf(attackerAddress)) +
        (await vault.convertToAssets(await vault.balanceOf(attackerAddress)));
      expect(attackerValue).to.be.lte(200n * USDC);
      expect(await vault.convertToAssets(await vault.balanceOf(a.alice.address))).to.be.gte(100n * USDC - 1n);
      expect(await token.balanceOf(await vault.getAddress())).to.be.gte(await vault.accountedAssets());
    });
  });

  describe("L-3 (second review) fee claims blocked by a donation beyond the stored baseline", () => {
    it("a donor sending 2**88 units to the vault blocks neither reports nor fee claims, and buys no hurdle", async () => {
      const { a, usdc, vault } = await loadFixture(moderateVault);
      await vault.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      // The attack: more than the 88 bits the vault keeps of its fee balance. Stored with a checked cast, every
      // report and fee claim reverted from then on, and the fees of the vault were stuck.
      const huge = 2n ** 88n;
      await usdc.mint(a.carol.address, huge);
      await usdc.connect(a.carol).transfer(await vault.getAddress(), huge);

      // The pooled credit it bought saturated at 2**64 - 1: a gain within it paid no fee. Per holder, the hurdle
      // counts only time and what each holder held.
      const position = await vault.positionOf(a.alice.address);
      const gain = 100n * USDC;
      const at = BigInt(await time.latest()) + 1n;
      await time.setNextBlockTimestamp(at);
      await expect(vault.connect(a.harvester).report(gain))
        .to.emit(vault, "Reported")
        .withArgs(a.harvester.address, gain, 0n, gain, at + BigInt(3 * DAY));
      const owed = await vault.feesOwed();
      expect(owed).to.be.gte(huge);
      const secondFee = await accruedManagementFee(vault, vault.claimFees());
      expect(await usdc.balanceOf(a.feeRecipient.address)).to.equal(owed + secondFee);
      expect(await vault.feesOwed()).to.equal(0n);
      await vault.connect(a.harvester).report(gain);
      await vault.claimFees();
      expect(await usdc.balanceOf(await vault.getAddress())).to.equal(await vault.accountedAssets());
      // Alice's position still counts from where she entered, and she owes the fee on her gains.
      expect(await vault.positionOf(a.alice.address)).to.deep.equal(position);
      await time.increase(3 * DAY);
      expect((await vault.performanceFeeOwed(a.alice.address))[1]).to.be.gt(0n);
    });
  });

  describe("L-4 (second review) hurdle credit rounded away by fee claims", () => {
    it("a griefer calling claimFees() every block cannot round the holders' hurdle away", async () => {
      const { a, vault } = await loadFixture(defaultFeesVault);
      await vault.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      const position = await vault.positionOf(a.alice.address);
      const markBefore = await vault.hurdleMark();
      // The attack: anyone may claim the fees, and each claim brought the pooled credit to date, rounded down: the
      // griefer took a fifth of the holders' hurdle. The hurdle is now a holder's entry point and the time since:
      // fee claims touch neither.
      let fees = 0n;
      for (let second = 0; second < 12; second++) fees += await accruedManagementFee(vault, vault.claimFees());
      expect(fees).to.be.gt(0n);
      expect(await vault.positionOf(a.alice.address)).to.deep.equal(position);
      expect(await vault.hurdleMark()).to.equal(markBefore + 500n * 12n);
    });
  });

  describe("I-1 (second review) feesOwed short of what claimFees pays", () => {
    it("a keeper told feesOwed() by the vault is paid exactly that by claimFees(), after accrueFees() carried a fraction", async () => {
      const { a, vault } = await loadFixture(syncVault);
      // 1,000 USDC at 2% a year: 0.634 units a second, so every accrual carries a fraction of a unit.
      await vault.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      for (let second = 0; second < 12; second++) {
        await vault.accrueFees();
        await mine();
        // Both read at the latest block: what the view promises and what the claim would pay there.
        const owed = await vault.feesOwed({ blockTag: "latest" });
        expect(await vault.claimFees.staticCall({ blockTag: "latest" })).to.equal(owed);
      }
    });
  });

  describe("Low (third review) management fee on profit while it was locked", () => {
    /**
     * A holder deposits 1,000,000 USDC, the harvester reports `gain` a second later, and nobody touches the vault
     * until the profit has all unlocked; then one accrual. The documented fee is the time integral: the deposit for
     * the whole unlock plus the net profit for half of it (it unlocks linearly), written here from that rule alone.
     */
    async function idleUnlock(overrides: Partial<VaultParams>, gain: bigint) {
      const { a, vault } = await withVault(overrides);
      const bps = BigInt(overrides.managementFeeBps!);
      const period = BigInt(overrides.profitUnlockPeriod!);
      await vault.connect(a.alice).deposit(1_000_000n * USDC, a.alice.address);
      // The report locks the whole gain: the performance fee is settled per holder, on what unlocks to it.
      await expect(vault.connect(a.harvester).report(gain)).to.emit(vault, "Reported");
      const [net, reportedAt] = [gain, await vault.lastFeeAccrual()];
      const accounted = await vault.accountedAssets();
      await time.setNextBlockTimestamp(reportedAt + period);
      const charged = await accruedManagementFee(vault, vault.accrueFees());
      const documented = ((accounted - net) * period + (net * period) / 2n) * bps;
      return { charged, documented: documented / (BPS * YEAR), endValue: accounted };
    }

    /** USDC units to cents, rounded half up (the review's figures). */
    const cents = (units: bigint) => (units + 5_000n) / 10_000n;

    it("one accrual after an idle unlock of a 100,000 gain on 1,000,000 (aggressive fees) charges the integral, not 414.25", async () => {
      const aggressive = {
        managementFeeBps: 200,
        performanceFeeBps: 2_000,
        hurdleRateBps: 800,
        profitUnlockPeriod: 7 * DAY,
      };
      const { charged, documented, endValue } = await idleUnlock(aggressive, 100_000n * USDC);
      // The review's 414.25 USDC was the end value (1,080,000, the gain net of a performance fee taken at the
      // report) for the whole 7 days. The report now locks the whole gain (the performance fee is per holder), so
      // the end value is 1,100,000: 421.92 for the 7 days, against an integral of 402.74.
      expect(cents((endValue * 200n * 7n * BigInt(DAY)) / (BPS * YEAR))).to.equal(42_192n);
      expect(cents(documented)).to.equal(40_274n);
      // Within the rounding of the report's own accrual (its carried fraction) and of the trapezoid.
      expect(charged).to.be.gte(documented - 1n);
      expect(charged).to.be.lte(documented + 1n);
    });

    it("one accrual after an idle 30-day unlock of a 1,000,000 gain at 5% a year charges the integral, not 8,219.18", async () => {
      const hardBounds = {
        managementFeeBps: 500,
        performanceFeeBps: 0,
        hurdleRateBps: 0,
        profitUnlockPeriod: 30 * DAY,
      };
      const { charged, documented, endValue } = await idleUnlock(hardBounds, 1_000_000n * USDC);
      expect(cents((endValue * 500n * 30n * BigInt(DAY)) / (BPS * YEAR))).to.equal(821_918n);
      expect(cents(documented)).to.equal(616_438n);
      expect(charged).to.be.gte(documented - 1n);
      expect(charged).to.be.lte(documented + 1n);
    });

    it("calling accrueFees() hourly through the unlock earns the fee recipient what one accrual at the end does", async () => {
      const overrides = { managementFeeBps: 500, performanceFeeBps: 0, hurdleRateBps: 0, profitUnlockPeriod: DAY };
      const { a, vault } = await withVault(overrides);
      await vault.connect(a.alice).deposit(1_000_000n * USDC, a.alice.address);
      await vault.connect(a.harvester).report(1_000_000n * USDC);
      const reportedAt = await vault.lastFeeAccrual();
      const snapshot = await network.provider.send("evm_snapshot", []);
      for (let hour = 1; hour <= 24; hour++) {
        await time.setNextBlockTimestamp(reportedAt + BigInt(hour * HOUR));
        await vault.accrueFees();
      }
      const hourly = await vault.feesOwed();
      await network.provider.send("evm_revert", [snapshot]);
      await time.setNextBlockTimestamp(reportedAt + BigInt(DAY));
      await vault.accrueFees();
      const once = await vault.feesOwed();
      // Hourly accrual takes the fee out of the books a little earlier, so later hours charge a little less: at
      // most the day's fee times the rate for a day, plus a unit per accrual.
      const secondOrder = (once * 500n * BigInt(DAY)) / (BPS * YEAR) + 1n;
      expect(once).to.be.gte(hourly - 24n);
      expect(once - hourly).to.be.lte(secondOrder + 24n);
    });
  });
});
