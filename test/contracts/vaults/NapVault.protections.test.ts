/**
 * Attacks of the second independent review that found nothing, kept as tests because each states a protection
 * worth keeping. Each test is named after the attack it tries; docs/invariants.md lists what each proves.
 */
import { expect } from "chai";
import { network } from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import { NapVault__factory } from "../../../typechain-types";
import {
  DAY,
  HOUR,
  MAX_UINT,
  USDC,
  accruedManagementFee,
  deployWorld,
  params,
  roles,
  type VaultParams,
} from "./fixtures";

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

/** The aggressive vault's fees (2% a year, 20% above 8% a year), asynchronous with a 1-hour delay. */
const aggressiveVault = () =>
  withVault({
    managementFeeBps: 200,
    performanceFeeBps: 2_000,
    hurdleRateBps: 800,
    asyncRedeem: true,
    fulfillmentDelay: HOUR,
  });

/** A synchronous vault capped at 10,000 USDC, without management fee (so without hurdle). */
const cappedVault = () =>
  withVault({ depositCap: 10_000n * USDC, managementFeeBps: 0, performanceFeeBps: 2_000, hurdleRateBps: 0 });

/** Alice 10,000 USDC, Bob 5,000 USDC in the aggressive vault; Alice asks for everything back and is filled. */
async function filledRequest() {
  const w = await aggressiveVault();
  const { a, vault } = w;
  await vault.connect(a.alice).deposit(10_000n * USDC, a.alice.address);
  await vault.connect(a.bob).deposit(5_000n * USDC, a.bob.address);
  const shares = await vault.balanceOf(a.alice.address);
  await vault.connect(a.alice).requestRedeem(shares, a.alice.address, a.alice.address);
  await time.increase(HOUR);
  await vault.connect(a.fulfiller).fulfillRedeem(a.alice.address);
  return { ...w, shares, assets: await vault.maxWithdraw(a.alice.address) };
}

describe("NapVault: attacks that found nothing (second review)", () => {
  describe("donors", () => {
    it("a donor to the vault cannot raise the share price, nor any holder's hurdle", async () => {
      const { a, usdc, vault } = await loadFixture(aggressiveVault);
      await vault.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
      const reportAt = (await time.latest()) + 7 * DAY;
      const gain = 2_000n * USDC;

      const snapshot = await network.provider.send("evm_snapshot", []);
      await time.setNextBlockTimestamp(reportAt);
      await vault.connect(a.harvester).report(gain);
      await time.increaseTo(reportAt + 30 * DAY);
      const [, honestFee] = await vault.performanceFeeOwed(a.alice.address);
      await network.provider.send("evm_revert", [snapshot]);

      // Carol donates 100 USDC just before the report, hoping to raise the hurdle for the holders. With the pooled
      // credit it bought 400 USDC of hurdle (8% / 2% of it); per holder it buys none.
      await time.setNextBlockTimestamp(reportAt - 1);
      const price = await vault.convertToAssets(10n ** 12n, { blockTag: "pending" });
      await usdc.connect(a.carol).transfer(await vault.getAddress(), 100n * USDC);
      expect(await vault.convertToAssets(10n ** 12n)).to.equal(price);
      await time.setNextBlockTimestamp(reportAt);
      await vault.connect(a.harvester).report(gain);
      // The claim, a second later, pays what was owed, the donation included, and that second's management fee.
      const owed = await vault.feesOwed();
      const secondFee = await accruedManagementFee(vault, vault.claimFees());
      expect(await usdc.balanceOf(a.feeRecipient.address)).to.equal(owed + secondFee);
      await time.increaseTo(reportAt + 30 * DAY);
      // The same fee as without the donation (the claim's accrual may round the management fee by a unit).
      expect(honestFee).to.be.gt(0n);
      expect((await vault.performanceFeeOwed(a.alice.address))[1]).to.be.closeTo(honestFee, 2n);
    });

    it("a donor to the escrow cannot raise any claim, and no controller can claim the donation", async () => {
      const { a, usdc, vault, shares, assets } = await loadFixture(filledRequest);
      const escrow = await vault.redeemEscrow();
      await usdc.connect(a.carol).transfer(escrow, 1_000n * USDC);
      expect(await vault.maxWithdraw(a.alice.address)).to.equal(assets);
      expect(await vault.maxRedeem(a.alice.address)).to.equal(shares);
      expect(await vault.maxWithdraw(a.carol.address)).to.equal(0);
      await expect(vault.connect(a.alice).withdraw(assets + 1n, a.alice.address, a.alice.address))
        .to.be.revertedWithCustomError(vault, "ERC4626ExceededMaxWithdraw")
        .withArgs(a.alice.address, assets + 1n, assets);
      await vault.connect(a.alice).redeem(shares, a.alice.address, a.alice.address);
      expect(await usdc.balanceOf(escrow)).to.equal(1_000n * USDC);
      expect(await vault.totalClaimableAssets()).to.equal(0);
    });
  });

  describe("strangers and claims", () => {
    it("a stranger, or an operator whose approval was withdrawn, cannot request for, cancel, claim back or claim a victim's request", async () => {
      const { a, vault, shares } = await loadFixture(filledRequest);
      const [victim, stranger] = [a.alice, a.carol];
      await vault.connect(victim).setOperator(stranger.address, true);
      await vault.connect(victim).setOperator(stranger.address, false);
      await vault.connect(stranger).deposit(1_000n * USDC, stranger.address);
      await vault.connect(a.bob).requestRedeem(10n ** 12n, a.bob.address, a.bob.address);
      await vault.connect(a.bob).cancelRedeemRequest(0, a.bob.address);
      const attempts = [
        () => vault.connect(stranger).requestRedeem(1n, victim.address, stranger.address),
        () => vault.connect(stranger).cancelRedeemRequest(0, victim.address),
        () => vault.connect(stranger).claimCancelRedeemRequest(0, stranger.address, victim.address),
        () => vault.connect(stranger).redeem(1n, stranger.address, victim.address),
        () => vault.connect(stranger).withdraw(1n, stranger.address, victim.address),
        () => vault.connect(stranger).cancelRedeemRequest(0, a.bob.address),
        () => vault.connect(stranger).claimCancelRedeemRequest(0, stranger.address, a.bob.address),
      ];
      for (const attempt of attempts) {
        await expect(attempt()).to.be.revertedWithCustomError(vault, "NotControllerOrOperator");
      }
      expect(await vault.claimableRedeemRequest(0, victim.address)).to.equal(shares);
      expect(await vault.claimableCancelRedeemRequest(0, a.bob.address)).to.equal(10n ** 12n);
    });

    it("a controller claiming its fill one unit at a time gets no more than the fill, and every other claim stays covered", async () => {
      const { a, usdc, vault, shares, assets } = await loadFixture(filledRequest);
      await vault.connect(a.bob).requestRedeem(await vault.balanceOf(a.bob.address), a.bob.address, a.bob.address);
      await time.increase(HOUR);
      await vault.connect(a.fulfiller).fulfillRedeem(a.bob.address);
      const bobAssets = await vault.maxWithdraw(a.bob.address);
      const before = await usdc.balanceOf(a.alice.address);
      // Dust claims: 1-unit withdrawals (shares rounded up) and 1-share redemptions (assets rounded down).
      for (let i = 0; i < 20; i++) {
        await vault.connect(a.alice).withdraw(1n, a.alice.address, a.alice.address);
        await vault.connect(a.alice).redeem(1n, a.alice.address, a.alice.address);
      }
      const left = await vault.maxRedeem(a.alice.address);
      expect(left).to.be.lte(shares - 20n);
      await vault.connect(a.alice).withdraw(await vault.maxWithdraw(a.alice.address), a.alice.address, a.alice.address);
      expect((await usdc.balanceOf(a.alice.address)) - before).to.be.lte(assets);
      expect(await vault.maxRedeem(a.alice.address)).to.equal(0);
      expect(await vault.totalClaimableAssets()).to.equal(bobAssets);
      expect(await usdc.balanceOf(await vault.redeemEscrow())).to.be.gte(bobAssets);
      await vault.connect(a.bob).withdraw(bobAssets, a.bob.address, a.bob.address);
    });
  });

  describe("the fee recipient", () => {
    it("zero-amount deposits every block cost the fee recipient at most one unit each (the fraction left to holders)", async () => {
      const { a, vault } = await loadFixture(aggressiveVault);
      await vault.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      const start = await time.latest();
      const blocks = 60;
      const snapshot = await network.provider.send("evm_snapshot", []);
      // A griefer brings the management fee to date every second at no cost but gas; each accrual of a deposit
      // rounds the fee down and leaves the fraction to the holders (by design: carrying it costs a storage slot).
      for (let i = 1; i <= blocks; i++) {
        await time.setNextBlockTimestamp(start + i);
        await vault.connect(a.carol).deposit(0n, a.carol.address);
      }
      const griefed = await vault.feesOwed();
      await network.provider.send("evm_revert", [snapshot]);
      await time.setNextBlockTimestamp(start + blocks);
      await vault.accrueFees();
      const once = await vault.feesOwed();
      // 1,000 USDC at 2% a year is 0.634 units a second: 38 units in a minute, none of it to a per-second griefer.
      expect(once).to.equal(38n);
      expect(griefed).to.be.gte(once - BigInt(blocks));
      await mine();
    });
  });

  describe("ERC-4626 limits", () => {
    it("a holder trying one unit more than any max* is refused, and the max itself goes through, paused or not", async () => {
      // No management fee and a finished unlock, so that the limits read in one block hold in the next ones.
      const { a, vault } = await loadFixture(cappedVault);
      await vault.connect(a.alice).deposit(3_000n * USDC, a.alice.address);
      await vault.connect(a.harvester).report(500n * USDC);
      await time.increase(DAY);
      const checkLimits = async (paused: boolean) => {
        const limits = {
          deposit: await vault.maxDeposit(a.bob.address),
          mint: await vault.maxMint(a.bob.address),
          withdraw: await vault.maxWithdraw(a.alice.address),
          redeem: await vault.maxRedeem(a.alice.address),
        };
        const calls = {
          deposit: (x: bigint) => vault.connect(a.bob).deposit(x, a.bob.address),
          mint: (x: bigint) => vault.connect(a.bob).mint(x, a.bob.address),
          withdraw: (x: bigint) => vault.connect(a.alice).withdraw(x, a.alice.address, a.alice.address),
          redeem: (x: bigint) => vault.connect(a.alice).redeem(x, a.alice.address, a.alice.address),
        };
        for (const kind of ["deposit", "mint", "withdraw", "redeem"] as const) {
          await expect(calls[kind](limits[kind] + 1n), `${kind} of max + 1`).to.be.reverted;
          // Entries are closed while paused (their max is 0); exits never are.
          if (paused && (kind === "deposit" || kind === "mint")) continue;
          const snapshot = await network.provider.send("evm_snapshot", []);
          await calls[kind](limits[kind]);
          await network.provider.send("evm_revert", [snapshot]);
        }
        return limits;
      };
      const open = await checkLimits(false);
      expect(open.deposit).to.equal(10_000n * USDC - (await vault.totalAssets()));
      await vault.connect(a.guardian).pause();
      const paused = await checkLimits(true);
      expect([paused.deposit, paused.mint]).to.deep.equal([0n, 0n]);
      expect([paused.withdraw, paused.redeem]).to.deep.equal([open.withdraw, open.redeem]);
      await vault.connect(a.guardian).unpause();
      await vault.connect(a.bob).deposit(open.deposit, a.bob.address);
      const full = await checkLimits(false);
      expect([full.deposit, full.mint]).to.deep.equal([0n, 0n]);
    });
  });
});
