import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import {
  HOUR,
  USDC,
  VIRTUAL_SHARES,
  booksAt,
  deployWorld,
  mulDiv,
  settlement,
  toAssets,
  toShares,
  type World,
} from "./fixtures";

const FULFILLER_ROLE = ethers.id("FULFILLER_ROLE");
const GRACE = HOUR;

/** Alice, Bob and Carol each deposit 1,000 USDC into the asynchronous vault. */
async function funded(): Promise<World> {
  const world = await deployWorld();
  for (const holder of [world.a.alice, world.a.bob, world.a.carol]) {
    await world.async.connect(holder).deposit(1_000n * USDC, holder.address);
  }
  return world;
}

function selector(signature: string): bigint {
  return BigInt(ethers.id(signature).slice(0, 10));
}

function interfaceId(signatures: string[]): string {
  const id = signatures.reduce((acc, s) => acc ^ selector(s), 0n);
  return "0x" + id.toString(16).padStart(8, "0");
}

describe("NapVault: ERC-7540 asynchronous redemption", () => {
  it("advertises the ERC-7540, ERC-7887 and ERC-7575 interface ids, which match their selectors", async () => {
    const { async } = await loadFixture(deployWorld);
    const operatorId = interfaceId(["setOperator(address,bool)", "isOperator(address,address)"]);
    const redeemId = interfaceId([
      "requestRedeem(uint256,address,address)",
      "pendingRedeemRequest(uint256,address)",
      "claimableRedeemRequest(uint256,address)",
    ]);
    const vault7575Id = interfaceId([
      "asset()",
      "share()",
      "convertToShares(uint256)",
      "convertToAssets(uint256)",
      "totalAssets()",
      "maxDeposit(address)",
      "previewDeposit(uint256)",
      "deposit(uint256,address)",
      "maxMint(address)",
      "previewMint(uint256)",
      "mint(uint256,address)",
      "maxWithdraw(address)",
      "previewWithdraw(uint256)",
      "withdraw(uint256,address,address)",
      "maxRedeem(address)",
      "previewRedeem(uint256)",
      "redeem(uint256,address,address)",
    ]);
    const cancelRedeemId = interfaceId([
      "cancelRedeemRequest(uint256,address)",
      "pendingCancelRedeemRequest(uint256,address)",
      "claimableCancelRedeemRequest(uint256,address)",
      "claimCancelRedeemRequest(uint256,address,address)",
    ]);
    expect([operatorId, redeemId, vault7575Id, cancelRedeemId]).to.deep.equal([
      "0xe3bc4e65",
      "0x620ee8e4",
      "0x2f0a18c5",
      "0xe76cffc7",
    ]);
    for (const id of [operatorId, redeemId, vault7575Id, cancelRedeemId, "0x01ffc9a7"]) {
      expect(await async.supportsInterface(id)).to.equal(true);
    }
    expect(await async.share()).to.equal(await async.getAddress());
  });

  it("reverts previews of the asynchronous path and keeps entry previews", async () => {
    const { async } = await loadFixture(funded);
    await expect(async.previewRedeem(1n)).to.be.revertedWithCustomError(async, "AsyncPreviewNotSupported");
    await expect(async.previewWithdraw(1n)).to.be.revertedWithCustomError(async, "AsyncPreviewNotSupported");
    const [assets, supply] = [await async.totalAssets(), await async.totalSupply()];
    expect(await async.previewDeposit(1n * USDC)).to.equal(toShares(1n * USDC, assets, supply));
    expect(await async.previewMint(10n ** 12n)).to.equal(toAssets(10n ** 12n, assets, supply, true));
  });

  describe("setOperator", () => {
    it("sets and clears an operator with events", async () => {
      const { a, async } = await loadFixture(deployWorld);
      await expect(async.connect(a.alice).setOperator(a.bob.address, true))
        .to.emit(async, "OperatorSet")
        .withArgs(a.alice.address, a.bob.address, true);
      expect(await async.isOperator(a.alice.address, a.bob.address)).to.equal(true);
      expect(await async.isOperator(a.bob.address, a.alice.address)).to.equal(false);
      await expect(async.connect(a.alice).setOperator(a.bob.address, false))
        .to.emit(async, "OperatorSet")
        .withArgs(a.alice.address, a.bob.address, false);
      expect(await async.isOperator(a.alice.address, a.bob.address)).to.equal(false);
    });
  });

  describe("requestRedeem", () => {
    it("moves the owner's shares into the vault as a pending request", async () => {
      const { a, async } = await loadFixture(funded);
      const vault = await async.getAddress();
      const shares = 4n * 10n ** 14n;
      const tx = async.connect(a.alice).requestRedeem(shares, a.alice.address, a.alice.address);
      await expect(tx)
        .to.emit(async, "RedeemRequest")
        .withArgs(a.alice.address, a.alice.address, 0, a.alice.address, shares);
      await expect(tx).to.emit(async, "Transfer").withArgs(a.alice.address, vault, shares);
      expect(await async.balanceOf(a.alice.address)).to.equal(10n ** 15n - shares);
      expect(await async.balanceOf(vault)).to.equal(shares);
      expect(await async.pendingRedeemRequest(0, a.alice.address)).to.equal(shares);
      expect(await async.pendingRedeemRequest(7, a.alice.address)).to.equal(shares);
      expect(await async.claimableRedeemRequest(0, a.alice.address)).to.equal(0);
      expect(await async.maxRedeem(a.alice.address)).to.equal(0);
      expect(await async.maxWithdraw(a.alice.address)).to.equal(0);
      expect(await async.connect(a.alice).requestRedeem.staticCall(1n, a.alice.address, a.alice.address)).to.equal(0);
    });

    it("accepts the owner's operator without allowance and a spender with allowance (spent), for themselves", async () => {
      const { a, async } = await loadFixture(funded);
      await async.connect(a.alice).setOperator(a.bob.address, true);
      await expect(async.connect(a.bob).requestRedeem(100n, a.alice.address, a.alice.address))
        .to.emit(async, "RedeemRequest")
        .withArgs(a.alice.address, a.alice.address, 0, a.bob.address, 100n);
      expect(await async.pendingRedeemRequest(0, a.alice.address)).to.equal(100n);
      await async.connect(a.bob).approve(a.carol.address, 150n);
      await async.connect(a.carol).requestRedeem(100n, a.carol.address, a.bob.address);
      expect(await async.allowance(a.bob.address, a.carol.address)).to.equal(50n);
      expect(await async.pendingRedeemRequest(0, a.carol.address)).to.equal(100n);
      expect(await async.pendingRedeemReadyAt(a.carol.address)).to.equal((await time.latest()) + HOUR);
    });

    it("refuses a request for a controller that is neither the caller nor gave it operator rights", async () => {
      const { a, async } = await loadFixture(funded);
      // The owner's operator and a spender may move the owner's shares, but only into their own request.
      await async.connect(a.alice).setOperator(a.bob.address, true);
      await expect(async.connect(a.bob).requestRedeem(100n, a.carol.address, a.alice.address))
        .to.be.revertedWithCustomError(async, "NotControllerOrOperator")
        .withArgs(a.bob.address, a.carol.address);
      await async.connect(a.alice).approve(a.carol.address, 100n);
      await expect(async.connect(a.carol).requestRedeem(100n, a.bob.address, a.alice.address))
        .to.be.revertedWithCustomError(async, "NotControllerOrOperator")
        .withArgs(a.carol.address, a.bob.address);
      // The controller's operator may add to its request.
      await async.connect(a.carol).setOperator(a.alice.address, true);
      await expect(async.connect(a.alice).requestRedeem(100n, a.carol.address, a.alice.address))
        .to.emit(async, "RedeemRequest")
        .withArgs(a.carol.address, a.alice.address, 0, a.alice.address, 100n);
    });

    it("rejects zero shares, a zero controller, strangers and amounts above the balance", async () => {
      const { a, async } = await loadFixture(funded);
      await expect(
        async.connect(a.alice).requestRedeem(0n, a.alice.address, a.alice.address),
      ).to.be.revertedWithCustomError(async, "ZeroShares");
      await expect(
        async.connect(a.alice).requestRedeem(1n, ethers.ZeroAddress, a.alice.address),
      ).to.be.revertedWithCustomError(async, "ZeroAddress");
      await expect(async.connect(a.bob).requestRedeem(5n, a.bob.address, a.alice.address))
        .to.be.revertedWithCustomError(async, "ERC20InsufficientAllowance")
        .withArgs(a.bob.address, 0, 5n);
      await expect(async.connect(a.alice).requestRedeem(10n ** 15n + 1n, a.alice.address, a.alice.address))
        .to.be.revertedWithCustomError(async, "ERC20InsufficientBalance")
        .withArgs(a.alice.address, 10n ** 15n, 10n ** 15n + 1n);
    });
  });

  describe("fulfillRedeem", () => {
    it("lets the fulfiller fill from the ready time, at the price of that moment, moving the assets to the escrow", async () => {
      const { a, usdc, async } = await loadFixture(funded);
      const shares = 5n * 10n ** 14n;
      await async.connect(a.alice).requestRedeem(shares, a.alice.address, a.alice.address);
      const readyAt = BigInt((await time.latest()) + HOUR);
      expect(await async.pendingRedeemReadyAt(a.alice.address)).to.equal(readyAt);
      await time.setNextBlockTimestamp(readyAt - 1n);
      await expect(async.connect(a.fulfiller).fulfillRedeem(a.alice.address))
        .to.be.revertedWithCustomError(async, "FulfillmentNotReady")
        .withArgs(a.alice.address, readyAt, readyAt - 1n);
      // Anyone else must wait the grace period too.
      await expect(async.connect(a.carol).fulfillRedeem(a.alice.address))
        .to.be.revertedWithCustomError(async, "FulfillmentNotReady")
        .withArgs(a.alice.address, readyAt + BigInt(GRACE), readyAt);
      // While waiting, the request bears gains: a report unlocking raises its fill price.
      await async.connect(a.harvester).report(300n * USDC);
      const at = readyAt + BigInt(HOUR);
      await time.setNextBlockTimestamp(at);
      const { assets, supply } = await booksAt(async, at);
      // Less the performance fee the requested shares owe on those gains, from the entry point they carried into
      // the request (Alice's, which her remaining shares keep), settled at the fill's price.
      const [, entryPrice, entryMark] = await async.positionOf(a.alice.address);
      const markAt = (await async.hurdleMark()) + 500n * (at - BigInt(await time.latest()));
      const owed = settlement(shares, { price: entryPrice, mark: entryMark }, assets, supply, markAt, 2_000n);
      expect(owed.fee).to.be.gt(0n);
      const expected = mulDiv(shares - owed.fee, assets - owed.feeAssets + 1n, supply - owed.fee + VIRTUAL_SHARES);
      const escrow = await async.redeemEscrow();
      const accountedBefore = await async.accountedAssets();
      const { fee } = await booksAt(async, at);
      const tx = async.connect(a.fulfiller).fulfillRedeem(a.alice.address);
      await expect(tx)
        .to.emit(async, "RedeemFulfilled")
        .withArgs(a.alice.address, a.fulfiller.address, shares, expected);
      await expect(tx)
        .to.emit(usdc, "Transfer")
        .withArgs(await async.getAddress(), escrow, expected);
      expect(expected).to.be.gt(500n * USDC);
      expect(await usdc.balanceOf(escrow)).to.equal(expected);
      expect(await async.totalClaimableAssets()).to.equal(expected);
      expect(await async.accountedAssets()).to.equal(accountedBefore - fee - owed.feeAssets - expected);
      await expect(tx).to.emit(async, "PerformanceFeeCharged").withArgs(a.alice.address, owed.fee, owed.feeAssets);
      expect(await async.pendingRedeemRequest(0, a.alice.address)).to.equal(0);
      expect(await async.pendingRedeemReadyAt(a.alice.address)).to.equal(0);
      expect(await async.claimableRedeemRequest(0, a.alice.address)).to.equal(shares);
      expect(await async.maxRedeem(a.alice.address)).to.equal(shares);
      expect(await async.maxWithdraw(a.alice.address)).to.equal(expected);
      expect(await async.balanceOf(await async.getAddress())).to.equal(0);
      expect(await async.totalSupply()).to.equal(supply - shares);
      // The fill leaves the price of the remaining shares unchanged or higher (rounding for the vault).
      expect(await async.convertToAssets(10n ** 12n)).to.be.gte(toAssets(10n ** 12n, assets, supply));
      await expect(async.connect(a.fulfiller).fulfillRedeem(a.alice.address))
        .to.be.revertedWithCustomError(async, "NothingToFulfill")
        .withArgs(a.alice.address);
    });

    it("lets anyone fill a ready request once the grace period has passed", async () => {
      const { a, async } = await loadFixture(funded);
      await async.connect(a.alice).requestRedeem(10n ** 14n, a.alice.address, a.alice.address);
      const readyAt = BigInt((await time.latest()) + HOUR);
      await time.setNextBlockTimestamp(readyAt + BigInt(GRACE) - 1n);
      await expect(async.connect(a.carol).fulfillRedeem(a.alice.address))
        .to.be.revertedWithCustomError(async, "FulfillmentNotReady")
        .withArgs(a.alice.address, readyAt + BigInt(GRACE), readyAt + BigInt(GRACE) - 1n);
      await expect(async.connect(a.carol).fulfillRedeem(a.alice.address)).to.emit(async, "RedeemFulfilled");
      expect(await async.claimableRedeemRequest(0, a.alice.address)).to.equal(10n ** 14n);
      expect(await async.hasRole(FULFILLER_ROLE, a.carol.address)).to.equal(false);
    });

    it("restarts the delay of the whole pending amount on the controller's own new request", async () => {
      const { a, async } = await loadFixture(funded);
      await async.connect(a.alice).requestRedeem(100n, a.alice.address, a.alice.address);
      await time.increase(HOUR - 100);
      await async.connect(a.alice).requestRedeem(50n, a.alice.address, a.alice.address);
      const second = await time.latest();
      await time.increase(200);
      await expect(async.connect(a.fulfiller).fulfillRedeem(a.alice.address))
        .to.be.revertedWithCustomError(async, "FulfillmentNotReady")
        .withArgs(a.alice.address, second + HOUR, second + 201);
      await time.increaseTo(second + HOUR);
      await expect(async.connect(a.fulfiller).fulfillRedeem(a.alice.address))
        .to.emit(async, "RedeemFulfilled")
        .withArgs(a.alice.address, a.fulfiller.address, 150n, 0n);
    });
  });

  describe("cancelation (ERC-7887)", () => {
    it("lets the controller cancel its pending request and claim its shares back", async () => {
      const { a, async } = await loadFixture(funded);
      const vault = await async.getAddress();
      await async.connect(a.alice).requestRedeem(4n * 10n ** 14n, a.alice.address, a.alice.address);
      await expect(async.connect(a.alice).cancelRedeemRequest(7, a.alice.address))
        .to.emit(async, "CancelRedeemRequest")
        .withArgs(a.alice.address, 0, a.alice.address);
      expect(await async.pendingRedeemRequest(0, a.alice.address)).to.equal(0);
      expect(await async.pendingRedeemReadyAt(a.alice.address)).to.equal(0);
      expect(await async.pendingCancelRedeemRequest(0, a.alice.address)).to.equal(false);
      expect(await async.claimableCancelRedeemRequest(0, a.alice.address)).to.equal(4n * 10n ** 14n);
      await expect(async.connect(a.fulfiller).fulfillRedeem(a.alice.address))
        .to.be.revertedWithCustomError(async, "NothingToFulfill")
        .withArgs(a.alice.address);
      const tx = async.connect(a.alice).claimCancelRedeemRequest(0, a.bob.address, a.alice.address);
      await expect(tx)
        .to.emit(async, "CancelRedeemClaim")
        .withArgs(a.alice.address, a.bob.address, 0, a.alice.address, 4n * 10n ** 14n);
      await expect(tx)
        .to.emit(async, "Transfer")
        .withArgs(vault, a.bob.address, 4n * 10n ** 14n);
      expect(await async.claimableCancelRedeemRequest(0, a.alice.address)).to.equal(0);
      expect(await async.balanceOf(vault)).to.equal(0);
      await expect(async.connect(a.alice).claimCancelRedeemRequest(0, a.alice.address, a.alice.address))
        .to.be.revertedWithCustomError(async, "NothingToClaim")
        .withArgs(a.alice.address);
    });

    it("lets the controller's operator cancel and claim, and no one else", async () => {
      const { a, async } = await loadFixture(funded);
      await async.connect(a.alice).requestRedeem(100n, a.alice.address, a.alice.address);
      await expect(async.connect(a.bob).cancelRedeemRequest(0, a.alice.address))
        .to.be.revertedWithCustomError(async, "NotControllerOrOperator")
        .withArgs(a.bob.address, a.alice.address);
      await async.connect(a.alice).setOperator(a.bob.address, true);
      await expect(async.connect(a.bob).cancelRedeemRequest(0, a.alice.address))
        .to.emit(async, "CancelRedeemRequest")
        .withArgs(a.alice.address, 0, a.bob.address);
      await expect(async.connect(a.carol).claimCancelRedeemRequest(0, a.carol.address, a.alice.address))
        .to.be.revertedWithCustomError(async, "NotControllerOrOperator")
        .withArgs(a.carol.address, a.alice.address);
      await expect(async.connect(a.bob).claimCancelRedeemRequest(0, a.bob.address, a.alice.address))
        .to.emit(async, "CancelRedeemClaim")
        .withArgs(a.alice.address, a.bob.address, 0, a.bob.address, 100n);
      await expect(async.connect(a.alice).cancelRedeemRequest(0, a.alice.address))
        .to.be.revertedWithCustomError(async, "NothingToCancel")
        .withArgs(a.alice.address);
    });

    it("keeps filled requests apart: a cancel takes back only what is pending", async () => {
      const { a, async } = await loadFixture(funded);
      await async.connect(a.alice).requestRedeem(100n, a.alice.address, a.alice.address);
      await time.increase(HOUR);
      await async.connect(a.fulfiller).fulfillRedeem(a.alice.address);
      await async.connect(a.alice).requestRedeem(70n, a.alice.address, a.alice.address);
      await async.connect(a.alice).cancelRedeemRequest(0, a.alice.address);
      expect(await async.claimableRedeemRequest(0, a.alice.address)).to.equal(100n);
      expect(await async.claimableCancelRedeemRequest(0, a.alice.address)).to.equal(70n);
    });
  });

  describe("claims", () => {
    async function filled(): Promise<World & { assets: bigint; shares: bigint }> {
      const world = await funded();
      const { a, async, usdc } = world;
      await usdc.connect(a.carol).transfer(await async.getAddress(), 1_234_567n);
      const shares = 6n * 10n ** 14n + 3n;
      await async.connect(a.alice).requestRedeem(shares, a.alice.address, a.alice.address);
      await async.connect(a.bob).requestRedeem(2n * 10n ** 14n, a.bob.address, a.bob.address);
      await time.increase(HOUR);
      await async.connect(a.fulfiller).fulfillRedeem(a.alice.address);
      await async.connect(a.fulfiller).fulfillRedeem(a.bob.address);
      return { ...world, assets: await async.maxWithdraw(a.alice.address), shares };
    }

    it("redeems part of a claim at the average fill price, rounded down, then the rest exactly", async () => {
      const { a, usdc, async, assets, shares } = await loadFixture(filled);
      const part = shares / 3n;
      const paid = (part * assets) / shares;
      const before = await usdc.balanceOf(a.carol.address);
      await expect(async.connect(a.alice).redeem(part, a.carol.address, a.alice.address))
        .to.emit(async, "Withdraw")
        .withArgs(a.alice.address, a.carol.address, a.alice.address, paid, part);
      expect(await usdc.balanceOf(a.carol.address)).to.equal(before + paid);
      expect(await async.claimableRedeemRequest(0, a.alice.address)).to.equal(shares - part);
      expect(await async.maxWithdraw(a.alice.address)).to.equal(assets - paid);
      await expect(async.connect(a.alice).redeem(shares - part, a.alice.address, a.alice.address))
        .to.emit(async, "Withdraw")
        .withArgs(a.alice.address, a.alice.address, a.alice.address, assets - paid, shares - part);
      expect(await async.maxRedeem(a.alice.address)).to.equal(0);
      expect(await async.maxWithdraw(a.alice.address)).to.equal(0);
    });

    it("withdraws part of a claim counting shares rounded up, then the rest exactly", async () => {
      const { a, async, assets, shares } = await loadFixture(filled);
      const part = assets / 3n;
      const counted = (part * shares + assets - 1n) / assets;
      await expect(async.connect(a.alice).withdraw(part, a.alice.address, a.alice.address))
        .to.emit(async, "Withdraw")
        .withArgs(a.alice.address, a.alice.address, a.alice.address, part, counted);
      await expect(async.connect(a.alice).withdraw(assets - part, a.alice.address, a.alice.address))
        .to.emit(async, "Withdraw")
        .withArgs(a.alice.address, a.alice.address, a.alice.address, assets - part, shares - counted);
    });

    it("lets an operator claim, refuses strangers and amounts above the claim", async () => {
      const { a, usdc, async, assets, shares } = await loadFixture(filled);
      await expect(async.connect(a.bob).redeem(1n, a.bob.address, a.alice.address))
        .to.be.revertedWithCustomError(async, "NotControllerOrOperator")
        .withArgs(a.bob.address, a.alice.address);
      await expect(async.connect(a.bob).withdraw(1n, a.bob.address, a.alice.address))
        .to.be.revertedWithCustomError(async, "NotControllerOrOperator")
        .withArgs(a.bob.address, a.alice.address);
      await expect(async.connect(a.alice).redeem(shares + 1n, a.alice.address, a.alice.address))
        .to.be.revertedWithCustomError(async, "ERC4626ExceededMaxRedeem")
        .withArgs(a.alice.address, shares + 1n, shares);
      await expect(async.connect(a.alice).withdraw(assets + 1n, a.alice.address, a.alice.address))
        .to.be.revertedWithCustomError(async, "ERC4626ExceededMaxWithdraw")
        .withArgs(a.alice.address, assets + 1n, assets);
      await async.connect(a.alice).setOperator(a.bob.address, true);
      const before = await usdc.balanceOf(a.bob.address);
      await expect(async.connect(a.bob).withdraw(assets, a.bob.address, a.alice.address))
        .to.emit(async, "Withdraw")
        .withArgs(a.bob.address, a.bob.address, a.alice.address, assets, shares);
      expect(await usdc.balanceOf(a.bob.address)).to.equal(before + assets);
    });

    it("keeps controllers apart and the escrow covering every claim", async () => {
      const { a, usdc, async, assets } = await loadFixture(filled);
      const bobAssets = await async.maxWithdraw(a.bob.address);
      const escrow = await async.redeemEscrow();
      expect(await async.totalClaimableAssets()).to.equal(assets + bobAssets);
      expect(await usdc.balanceOf(escrow)).to.equal(assets + bobAssets);
      await async.connect(a.bob).redeem(2n * 10n ** 14n, a.bob.address, a.bob.address);
      expect(await async.maxWithdraw(a.alice.address)).to.equal(assets);
      expect(await async.totalClaimableAssets()).to.equal(assets);
      expect(await usdc.balanceOf(escrow)).to.equal(assets);
    });

    it("stays open while the vault is paused: request, cancel, fill and claim", async () => {
      const { a, async } = await loadFixture(funded);
      await async.connect(a.guardian).pause();
      await async.connect(a.alice).requestRedeem(5n, a.alice.address, a.alice.address);
      await async.connect(a.alice).cancelRedeemRequest(0, a.alice.address);
      await async.connect(a.alice).claimCancelRedeemRequest(0, a.alice.address, a.alice.address);
      await async.connect(a.alice).requestRedeem(10n ** 14n, a.alice.address, a.alice.address);
      await time.increase(HOUR);
      await async.connect(a.fulfiller).fulfillRedeem(a.alice.address);
      const assets = await async.maxWithdraw(a.alice.address);
      expect(assets).to.be.lt(100n * USDC); // an hour of management fee was paid while waiting
      expect(assets).to.be.gt(99n * USDC);
      await expect(async.connect(a.alice).redeem(10n ** 14n, a.alice.address, a.alice.address))
        .to.emit(async, "Withdraw")
        .withArgs(a.alice.address, a.alice.address, a.alice.address, assets, 10n ** 14n);
    });
  });
});
