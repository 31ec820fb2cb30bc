import { expect } from "chai";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { MaxUint256 } from "ethers";
import { HOUR, USDC, VIRTUAL_SHARES } from "../vaults/fixtures";
import {
  NO_AUTHORIZATION,
  deployRouterWorld,
  digestOf,
  inSeconds,
  signIntent,
  type CancelRedeemIntent,
  type ClaimIntent,
  type RedeemIntent,
  type RequestRedeemIntent,
  type RouterWorld,
} from "./fixtures";

const ASSETS = 1_000n * USDC;
const SHARES = ASSETS * VIRTUAL_SHARES;
const ACTION = { Redeem: 1, RequestRedeem: 2, Claim: 3, CancelRedeem: 4 };

/** What redeeming `shares` pays in the next block, fixed `seconds` ahead (the management fee accrues by the second). */
async function redeemedNextBlock(w: RouterWorld, shares: bigint, seconds = 10): Promise<bigint> {
  await time.setNextBlockTimestamp((await time.latest()) + seconds);
  return w.sync.previewRedeem(shares, { blockTag: "pending" });
}

/** Alice holds SHARES of the synchronous and of the asynchronous vault, and made the router her operator on both. */
async function holding(): Promise<RouterWorld> {
  const w = await deployRouterWorld();
  const router = await w.router.getAddress();
  for (const vault of [w.sync, w.async]) {
    await vault.connect(w.a.alice).deposit(ASSETS, w.a.alice.address);
    await vault.connect(w.a.alice).setOperator(router, true);
  }
  // The synchronous exit spends a share allowance of a caller that is not the owner.
  await w.sync.connect(w.a.alice).approve(router, MaxUint256);
  return w;
}

describe("NapRouter: redemptions by signature", () => {
  it("redeems from a synchronous vault as the owner's operator: assets to the signed receiver", async () => {
    const w = await loadFixture(holding);
    const intent: RedeemIntent = {
      owner: w.a.alice.address,
      vault: await w.sync.getAddress(),
      shares: SHARES / 2n,
      receiver: w.a.bob.address,
      minAssets: 499_000_000n,
      nonce: 1n,
      deadline: await inSeconds(1800),
    };
    const signature = await signIntent(w.a.alice, w.router, "Redeem", intent);
    expect(await w.router.hashRedeem(intent)).to.equal(await digestOf(w.router, "Redeem", intent));
    const assets = await redeemedNextBlock(w, SHARES / 2n);
    const tx = w.router.connect(w.relayer).redeem(intent, signature, NO_AUTHORIZATION);
    await expect(tx)
      .to.emit(w.router, "SignedAction")
      .withArgs(await digestOf(w.router, "Redeem", intent), w.a.alice.address, intent.vault, ACTION.Redeem)
      .and.to.emit(w.sync, "Withdraw")
      .withArgs(await w.router.getAddress(), w.a.bob.address, w.a.alice.address, assets, SHARES / 2n);
    await expect(tx).to.changeTokenBalances(w.usdc, [w.a.bob, w.sync], [assets, -assets]);
    expect(await w.sync.balanceOf(w.a.alice.address)).to.equal(SHARES / 2n);
  });

  it("refuses fewer assets than the signed minimum, nothing moved", async () => {
    const w = await loadFixture(holding);
    const intent: RedeemIntent = {
      owner: w.a.alice.address,
      vault: await w.sync.getAddress(),
      shares: SHARES,
      receiver: w.a.alice.address,
      minAssets: ASSETS,
      nonce: 1n,
      deadline: await inSeconds(1800),
    };
    const signature = await signIntent(w.a.alice, w.router, "Redeem", intent);
    // The management fee since the deposit leaves Alice's shares worth less than she put in.
    const assets = await redeemedNextBlock(w, SHARES);
    expect(assets).to.be.below(ASSETS);
    await expect(w.router.connect(w.relayer).redeem(intent, signature, NO_AUTHORIZATION))
      .to.be.revertedWithCustomError(w.router, "AssetsBelowMinimum")
      .withArgs(assets, ASSETS);
    expect(await w.sync.balanceOf(w.a.alice.address)).to.equal(SHARES);
  });

  it("a Redeem naming an ERC-7540 vault is refused: the vault's redeem would be a claim", async () => {
    const w = await loadFixture(holding);
    const intent: RedeemIntent = {
      owner: w.a.alice.address,
      vault: await w.async.getAddress(),
      shares: SHARES,
      receiver: w.a.alice.address,
      minAssets: 0n,
      nonce: 1n,
      deadline: await inSeconds(1800),
    };
    const signature = await signIntent(w.a.alice, w.router, "Redeem", intent);
    await expect(w.router.connect(w.relayer).redeem(intent, signature, NO_AUTHORIZATION))
      .to.be.revertedWithCustomError(w.router, "WrongVaultKind")
      .withArgs(intent.vault, false);
  });

  it("requests, then claims after the fill: the whole ERC-7540 exit by signatures", async () => {
    const w = await loadFixture(holding);
    const vault = await w.async.getAddress();
    const request: RequestRedeemIntent = {
      owner: w.a.alice.address,
      vault,
      shares: SHARES,
      nonce: 1n,
      deadline: await inSeconds(1800),
    };
    const requestSignature = await signIntent(w.a.alice, w.router, "RequestRedeem", request);
    expect(await w.router.hashRequestRedeem(request)).to.equal(await digestOf(w.router, "RequestRedeem", request));
    await expect(w.router.connect(w.relayer).requestRedeem(request, requestSignature, NO_AUTHORIZATION))
      .to.emit(w.router, "SignedAction")
      .withArgs(await digestOf(w.router, "RequestRedeem", request), w.a.alice.address, vault, ACTION.RequestRedeem)
      .and.to.emit(w.async, "RedeemRequest")
      .withArgs(w.a.alice.address, w.a.alice.address, 0n, await w.router.getAddress(), SHARES);
    expect(await w.async.pendingRedeemRequest(0, w.a.alice.address)).to.equal(SHARES);

    await time.increase(HOUR);
    await w.async.connect(w.a.fulfiller).fulfillRedeem(w.a.alice.address);
    const claimable = await w.async.maxWithdraw(w.a.alice.address);
    const claim: ClaimIntent = {
      owner: w.a.alice.address,
      vault,
      shares: SHARES,
      receiver: w.a.carol.address,
      minAssets: claimable,
      nonce: 2n,
      deadline: await inSeconds(1800),
    };
    const claimSignature = await signIntent(w.a.alice, w.router, "Claim", claim);
    expect(await w.router.hashClaim(claim)).to.equal(await digestOf(w.router, "Claim", claim));
    const tx = w.router.connect(w.relayer).claim(claim, claimSignature, NO_AUTHORIZATION);
    await expect(tx)
      .to.emit(w.router, "SignedAction")
      .withArgs(await digestOf(w.router, "Claim", claim), w.a.alice.address, vault, ACTION.Claim)
      .and.to.emit(w.async, "Withdraw")
      .withArgs(await w.router.getAddress(), w.a.carol.address, w.a.alice.address, claimable, SHARES);
    await expect(tx).to.changeTokenBalance(w.usdc, w.a.carol, claimable);
    expect(await w.async.claimableRedeemRequest(0, w.a.alice.address)).to.equal(0n);
  });

  it("a Claim naming a synchronous vault is refused: the vault's redeem would take held shares", async () => {
    const w = await loadFixture(holding);
    const claim: ClaimIntent = {
      owner: w.a.alice.address,
      vault: await w.sync.getAddress(),
      shares: SHARES,
      receiver: w.a.alice.address,
      minAssets: 0n,
      nonce: 2n,
      deadline: await inSeconds(1800),
    };
    const signature = await signIntent(w.a.alice, w.router, "Claim", claim);
    await expect(w.router.connect(w.relayer).claim(claim, signature, NO_AUTHORIZATION))
      .to.be.revertedWithCustomError(w.router, "WrongVaultKind")
      .withArgs(claim.vault, true);
    expect(await w.sync.balanceOf(w.a.alice.address)).to.equal(SHARES);
  });

  it("cancels a pending request and sends the shares to the signed receiver", async () => {
    const w = await loadFixture(holding);
    const vault = await w.async.getAddress();
    await w.async.connect(w.a.alice).requestRedeem(SHARES, w.a.alice.address, w.a.alice.address);
    const cancel: CancelRedeemIntent = {
      owner: w.a.alice.address,
      vault,
      receiver: w.a.bob.address,
      nonce: 3n,
      deadline: await inSeconds(1800),
    };
    const signature = await signIntent(w.a.alice, w.router, "CancelRedeem", cancel);
    expect(await w.router.hashCancelRedeem(cancel)).to.equal(await digestOf(w.router, "CancelRedeem", cancel));
    expect(await w.router.connect(w.relayer).cancelRedeem.staticCall(cancel, signature, NO_AUTHORIZATION)).to.equal(
      SHARES,
    );
    await expect(w.router.connect(w.relayer).cancelRedeem(cancel, signature, NO_AUTHORIZATION))
      .to.emit(w.router, "SignedAction")
      .withArgs(await digestOf(w.router, "CancelRedeem", cancel), w.a.alice.address, vault, ACTION.CancelRedeem)
      .and.to.emit(w.async, "CancelRedeemRequest")
      .withArgs(w.a.alice.address, 0n, await w.router.getAddress())
      .and.to.emit(w.async, "CancelRedeemClaim")
      .withArgs(w.a.alice.address, w.a.bob.address, 0n, await w.router.getAddress(), SHARES);
    expect(await w.async.balanceOf(w.a.bob.address)).to.equal(SHARES);
    expect(await w.async.pendingRedeemRequest(0, w.a.alice.address)).to.equal(0n);
  });

  it("a request canceled already by the owner: the signed cancelation still sends the canceled shares", async () => {
    const w = await loadFixture(holding);
    await w.async.connect(w.a.alice).requestRedeem(SHARES, w.a.alice.address, w.a.alice.address);
    await w.async.connect(w.a.alice).cancelRedeemRequest(0, w.a.alice.address);
    const cancel: CancelRedeemIntent = {
      owner: w.a.alice.address,
      vault: await w.async.getAddress(),
      receiver: w.a.alice.address,
      nonce: 3n,
      deadline: await inSeconds(1800),
    };
    const signature = await signIntent(w.a.alice, w.router, "CancelRedeem", cancel);
    await expect(w.router.connect(w.relayer).cancelRedeem(cancel, signature, NO_AUTHORIZATION))
      .to.emit(w.async, "CancelRedeemClaim")
      .withArgs(w.a.alice.address, w.a.alice.address, 0n, await w.router.getAddress(), SHARES)
      .and.not.to.emit(w.async, "CancelRedeemRequest");
    expect(await w.async.balanceOf(w.a.alice.address)).to.equal(SHARES);
  });

  it("nothing to cancel: the vault's error, nonce unused", async () => {
    const w = await loadFixture(holding);
    const cancel: CancelRedeemIntent = {
      owner: w.a.alice.address,
      vault: await w.async.getAddress(),
      receiver: w.a.alice.address,
      nonce: 3n,
      deadline: await inSeconds(1800),
    };
    const signature = await signIntent(w.a.alice, w.router, "CancelRedeem", cancel);
    await expect(w.router.connect(w.relayer).cancelRedeem(cancel, signature, NO_AUTHORIZATION))
      .to.be.revertedWithCustomError(w.async, "NothingToClaim")
      .withArgs(w.a.alice.address);
    expect(await w.router.nonceUsed(w.a.alice.address, 3n)).to.equal(false);
  });

  it("without the router as operator the vault refuses, and the message stays usable", async () => {
    const w = await loadFixture(holding);
    await w.async.connect(w.a.alice).setOperator(await w.router.getAddress(), false);
    const request: RequestRedeemIntent = {
      owner: w.a.alice.address,
      vault: await w.async.getAddress(),
      shares: SHARES,
      nonce: 1n,
      deadline: await inSeconds(1800),
    };
    const signature = await signIntent(w.a.alice, w.router, "RequestRedeem", request);
    await expect(w.router.connect(w.relayer).requestRedeem(request, signature, NO_AUTHORIZATION))
      .to.be.revertedWithCustomError(w.async, "NotControllerOrOperator")
      .withArgs(await w.router.getAddress(), w.a.alice.address);
    await w.async.connect(w.a.alice).setOperator(await w.router.getAddress(), true);
    await w.router.connect(w.relayer).requestRedeem(request, signature, NO_AUTHORIZATION);
    expect(await w.async.pendingRedeemRequest(0, w.a.alice.address)).to.equal(SHARES);
  });
});
