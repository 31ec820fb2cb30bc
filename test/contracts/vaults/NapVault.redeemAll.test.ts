/**
 * The exit of a whole position while a performance fee is owed (issue 27, follow-up of the per-holder hurdle): the
 * fee owed grows every second while profit unlocks, so `redeem(maxRedeem)` read a block before the exit reverts;
 * `redeemAll` settles and redeems every share left in the block it runs in, paying exactly that block's maxWithdraw.
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import fc from "fast-check";
import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/signers";
import type { NapVault, TestUSDC } from "../../../typechain-types";
import { DAY, HOUR, USDC, deployWorld } from "./fixtures";

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** Alice and Bob in the synchronous vault (20% performance fee above a 5% hurdle, 1-day unlock), a report of 10%
 * of the books a month later, and half its unlock gone: Alice owes a fee that grows every second. */
async function feeOwed() {
  const w = await deployWorld();
  await w.sync.connect(w.a.alice).deposit(100_000n * USDC, w.a.alice.address);
  await w.sync.connect(w.a.bob).deposit(50_000n * USDC, w.a.bob.address);
  await time.increase(30 * DAY);
  await w.sync.connect(w.a.harvester).report(15_000n * USDC);
  await time.increase(12 * HOUR);
  return w;
}

/** What `owner` may withdraw and redeem at the timestamp `at` of the next block, before it is mined. */
async function maxAt(vault: NapVault, owner: string, at: number) {
  await time.setNextBlockTimestamp(at);
  const [assets, shares] = await Promise.all([
    vault.maxWithdraw(owner, { blockTag: "pending" }),
    vault.maxRedeem(owner, { blockTag: "pending" }),
  ]);
  return { assets, shares };
}

/** `redeemAll` sent by `caller` for `owner` in the next block: the figures maxWithdraw and maxRedeem told for that
 * block, the receipt, and the receiver's USDC gained. */
async function exitAll(vault: NapVault, usdc: TestUSDC, caller: HardhatEthersSigner, owner: string, receiver: string) {
  const at = (await time.latest()) + 1;
  const told = await maxAt(vault, owner, at);
  const before = await usdc.balanceOf(receiver);
  const tx = await vault.connect(caller).redeemAll(receiver, owner);
  const receipt = (await tx.wait())!;
  return { told, tx, receipt, paid: (await usdc.balanceOf(receiver)) - before };
}

describe("NapVault: redeemAll, the exit of a whole position while a performance fee is owed", () => {
  it("attack: redeem(maxRedeem) read a block before the exit reverts ERC4626ExceededMaxRedeem while profit unlocks", async () => {
    const { a, sync } = await loadFixture(feeOwed);
    const [owedShares] = await sync.performanceFeeOwed(a.alice.address);
    expect(owedShares > 0n, "Alice owes a performance fee").to.equal(true);
    const readEarly = await sync.maxRedeem(a.alice.address);
    const at = (await time.latest()) + 1;
    const atExit = await maxAt(sync, a.alice.address, at);
    expect(atExit.shares < readEarly, "the fee owed grew in one second").to.equal(true);
    await expect(sync.connect(a.alice).redeem(readEarly, a.alice.address, a.alice.address))
      .to.be.revertedWithCustomError(sync, "ERC4626ExceededMaxRedeem")
      .withArgs(a.alice.address, readEarly, atExit.shares);
  });

  it("exits the whole position: 0 shares left, paid exactly maxWithdraw of its block, its fee shares burnt with it", async () => {
    const { a, usdc, sync } = await loadFixture(feeOwed);
    const balance = await sync.balanceOf(a.alice.address);
    const supplyBefore = await sync.totalSupply();
    const { told, tx, paid } = await exitAll(sync, usdc, a.alice, a.alice.address, a.alice.address);
    const fee = balance - told.shares;
    expect(fee > 0n, "fee shares burnt").to.equal(true);
    expect(paid).to.equal(told.assets);
    expect(await sync.balanceOf(a.alice.address)).to.equal(0n);
    expect(await sync.totalSupply()).to.equal(supplyBefore - balance);
    const [shares, assets, entryMark] = await sync.positionOf(a.alice.address);
    expect([shares, assets, entryMark]).to.deep.equal([0n, 0n, 0n]);
    await expect(tx)
      .to.emit(sync, "Withdraw")
      .withArgs(a.alice.address, a.alice.address, a.alice.address, told.assets, told.shares);
    await expect(tx).to.emit(sync, "Transfer").withArgs(a.alice.address, ZERO_ADDRESS, balance);
  });

  it("returns the shares redeemed and the assets paid, as redeem(maxRedeem) would in the same block", async () => {
    const { a, sync } = await loadFixture(feeOwed);
    const at = (await time.latest()) + 1;
    const told = await maxAt(sync, a.alice.address, at);
    const [shares, assets] = await sync.connect(a.alice).redeemAll.staticCall(a.alice.address, a.alice.address, {
      blockTag: "pending",
    });
    expect([shares, assets]).to.deep.equal([told.shares, told.assets]);
    const viaRedeem = await sync
      .connect(a.alice)
      .redeem.staticCall(told.shares, a.alice.address, a.alice.address, { blockTag: "pending" });
    expect(viaRedeem).to.equal(told.assets);
  });

  it("pays another receiver for an approved spender, spending the allowance by the shares redeemed", async () => {
    const { a, usdc, sync } = await loadFixture(feeOwed);
    const balance = await sync.balanceOf(a.alice.address);
    await sync.connect(a.alice).approve(a.carol.address, balance);
    const { told, paid } = await exitAll(sync, usdc, a.carol, a.alice.address, a.bob.address);
    expect(paid).to.equal(told.assets);
    expect(await sync.balanceOf(a.alice.address)).to.equal(0n);
    expect(await sync.allowance(a.alice.address, a.carol.address)).to.equal(balance - told.shares);
  });

  it("attack: a spender without allowance cannot exit another holder's position", async () => {
    const { a, sync } = await loadFixture(feeOwed);
    await expect(sync.connect(a.carol).redeemAll(a.carol.address, a.alice.address)).to.be.revertedWithCustomError(
      sync,
      "ERC20InsufficientAllowance",
    );
    await expect(sync.connect(a.carol).redeemAll(a.carol.address, a.bob.address)).to.be.revertedWithCustomError(
      sync,
      "ERC20InsufficientAllowance",
    );
  });

  it("stays open while the vault is paused, as every exit", async () => {
    const { a, usdc, sync } = await loadFixture(feeOwed);
    await sync.connect(a.guardian).pause();
    const { told, paid } = await exitAll(sync, usdc, a.alice, a.alice.address, a.alice.address);
    expect(paid).to.equal(told.assets);
    expect(await sync.balanceOf(a.alice.address)).to.equal(0n);
  });

  it("exits a holder that owes nothing (below its hurdle) with its whole balance", async () => {
    const w = await deployWorld();
    await w.sync.connect(w.a.alice).deposit(10_000n * USDC, w.a.alice.address);
    await time.increase(DAY);
    const balance = await w.sync.balanceOf(w.a.alice.address);
    const { told, paid } = await exitAll(w.sync, w.usdc, w.a.alice, w.a.alice.address, w.a.alice.address);
    expect(told.shares).to.equal(balance);
    expect(paid).to.equal(told.assets);
    expect(await w.sync.balanceOf(w.a.alice.address)).to.equal(0n);
  });

  it("asynchronous vault: claims every claimable share of the controller, by it or its operator only", async () => {
    const { a, usdc, async } = await loadFixture(deployWorld);
    await async.connect(a.alice).deposit(10_000n * USDC, a.alice.address);
    await async
      .connect(a.alice)
      .requestRedeem(await async.balanceOf(a.alice.address), a.alice.address, a.alice.address);
    await time.increase(HOUR);
    await async.connect(a.fulfiller).fulfillRedeem(a.alice.address);
    const claimableShares = await async.claimableRedeemRequest(0, a.alice.address);
    const claimableAssets = await async.maxWithdraw(a.alice.address);
    await expect(async.connect(a.carol).redeemAll(a.carol.address, a.alice.address))
      .to.be.revertedWithCustomError(async, "NotControllerOrOperator")
      .withArgs(a.carol.address, a.alice.address);
    const before = await usdc.balanceOf(a.bob.address);
    await expect(async.connect(a.alice).redeemAll(a.bob.address, a.alice.address))
      .to.emit(async, "Withdraw")
      .withArgs(a.alice.address, a.bob.address, a.alice.address, claimableAssets, claimableShares);
    expect((await usdc.balanceOf(a.bob.address)) - before).to.equal(claimableAssets);
    expect(await async.claimableRedeemRequest(0, a.alice.address)).to.equal(0n);
    expect(await async.maxWithdraw(a.alice.address)).to.equal(0n);
  });

  it("property: after any deposits, report and wait, redeemAll leaves 0 shares and pays maxWithdraw of its block", async () => {
    const { a, usdc, sync } = await loadFixture(deployWorld);
    const base = await ethers.provider.send("evm_snapshot", []);
    await fc.assert(
      fc.asyncProperty(
        fc.bigInt({ min: 1n, max: 400_000n * USDC }),
        fc.bigInt({ min: 1n, max: 400_000n * USDC }),
        fc.bigInt({ min: 0n, max: 100_000n * USDC }),
        fc.integer({ min: 1, max: 90 * DAY }),
        fc.integer({ min: 1, max: 2 * DAY }),
        async (alice, bob, gain, held, after) => {
          const snapshot = await ethers.provider.send("evm_snapshot", []);
          try {
            await sync.connect(a.alice).deposit(alice, a.alice.address);
            await sync.connect(a.bob).deposit(bob, a.bob.address);
            await time.increase(held);
            await sync.connect(a.harvester).report(gain);
            await time.increase(after);
            const { told, paid } = await exitAll(sync, usdc, a.alice, a.alice.address, a.alice.address);
            expect(paid).to.equal(told.assets);
            expect(await sync.balanceOf(a.alice.address)).to.equal(0n);
          } finally {
            await ethers.provider.send("evm_revert", [snapshot]);
          }
        },
      ),
      { numRuns: 25 },
    );
    await ethers.provider.send("evm_revert", [base]);
  });
});
