/**
 * Regression tests of the independent review's findings, each named after the attack it tries. Every one of them
 * failed on the contracts before the fix (see docs/invariants.md for what each proves).
 */
import { expect } from "chai";
import { ethers, network } from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import { NapVault__factory, type NapVault } from "../../../typechain-types";
import { BPS, DAY, HOUR, MAX_UINT, USDC, YEAR, deployWorld, params, roles, type VaultParams } from "./fixtures";

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
      await vault.connect(a.bob).redeem(await vault.balanceOf(a.bob.address), a.bob.address, a.bob.address);
      const profit = (await usdc.balanceOf(a.bob.address)) - before;
      // Bob took out (almost) the whole gain; 20% of it is the performance fee, whoever reports next.
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
});
