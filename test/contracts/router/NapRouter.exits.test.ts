import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { HOUR, USDC, VIRTUAL_SHARES } from "../vaults/fixtures";
import { RevocableERC1271Wallet__factory } from "../../../typechain-types";
import {
  AUTHORIZE_OPERATOR_TYPES,
  NO_AUTHORIZATION,
  deployRouterWorld,
  digestOf,
  inSeconds,
  randomNonce,
  signAuthorization,
  signIntent,
  signPermit,
  type DepositIntent,
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
  return w;
}

/** The owner key (no ETH) deposits ASSETS into `vault` by a signed message and a permit, sent by the relayer. */
async function depositSigned(w: RouterWorld, vault: string): Promise<void> {
  const intent: DepositIntent = {
    owner: w.owner.address,
    vault,
    assets: ASSETS,
    receiver: w.owner.address,
    minShares: 0n,
    nonce: randomNonce(),
    deadline: await inSeconds(1800),
  };
  const permit = await signPermit(w.owner, w.usdc, await w.router.getAddress(), ASSETS, intent.deadline as bigint);
  await w.router.connect(w.relayer).deposit(intent, await signIntent(w.owner, w.router, "Deposit", intent), permit);
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

  it("a wallet with no ETH deposits, then redeems with an ERC-7741 authorisation carried by its first exit", async () => {
    const w = await loadFixture(deployRouterWorld);
    const vault = await w.sync.getAddress();
    const router = await w.router.getAddress();
    await depositSigned(w, vault);
    const intent: RedeemIntent = {
      owner: w.owner.address,
      vault,
      shares: SHARES,
      receiver: w.owner.address,
      minAssets: 0n,
      nonce: randomNonce(),
      deadline: await inSeconds(1800),
    };
    const authNonce = ethers.hexlify(ethers.randomBytes(32));
    const authorization = await signAuthorization(w.owner, w.sync, router, authNonce, intent.deadline as bigint);
    const assets = await redeemedNextBlock(w, SHARES);
    const tx = w.router
      .connect(w.relayer)
      .redeem(intent, await signIntent(w.owner, w.router, "Redeem", intent), authorization);
    await expect(tx)
      .to.emit(w.sync, "OperatorSet")
      .withArgs(w.owner.address, router, true)
      .and.to.emit(w.sync, "Withdraw")
      .withArgs(router, w.owner.address, w.owner.address, assets, SHARES);
    await expect(tx).to.changeTokenBalance(w.usdc, w.owner, assets);
    expect(await w.sync.isOperator(w.owner.address, router)).to.equal(true);
    expect(await w.sync.authorizations(w.owner.address, authNonce)).to.equal(true);
    expect(await w.sync.balanceOf(w.owner.address)).to.equal(0n);
    expect(await ethers.provider.getBalance(w.owner.address)).to.equal(0n);
  });

  it("a wallet with no ETH: ERC-7540 deposit, request (authorisation carried), claim and cancel by signatures", async () => {
    const w = await loadFixture(deployRouterWorld);
    const vault = await w.async.getAddress();
    const router = await w.router.getAddress();
    await depositSigned(w, vault);
    const deadline = await inSeconds(3 * HOUR);
    const request: RequestRedeemIntent = { owner: w.owner.address, vault, shares: SHARES / 2n, nonce: 1n, deadline };
    const authorization = await signAuthorization(w.owner, w.async, router, ethers.id("first exit"), deadline);
    await expect(
      w.router
        .connect(w.relayer)
        .requestRedeem(request, await signIntent(w.owner, w.router, "RequestRedeem", request), authorization),
    )
      .to.emit(w.async, "RedeemRequest")
      .withArgs(w.owner.address, w.owner.address, 0n, router, SHARES / 2n);
    await time.increase(HOUR);
    await w.async.connect(w.a.fulfiller).fulfillRedeem(w.owner.address);
    const claimable = await w.async.maxWithdraw(w.owner.address);
    const claim: ClaimIntent = {
      owner: w.owner.address,
      vault,
      shares: SHARES / 2n,
      receiver: w.owner.address,
      minAssets: claimable,
      nonce: 2n,
      deadline,
    };
    // The router is the operator now: the claim carries no authorisation.
    await expect(
      w.router.connect(w.relayer).claim(claim, await signIntent(w.owner, w.router, "Claim", claim), NO_AUTHORIZATION),
    ).to.changeTokenBalance(w.usdc, w.owner, claimable);
    const second: RequestRedeemIntent = { owner: w.owner.address, vault, shares: SHARES / 2n, nonce: 3n, deadline };
    await w.router
      .connect(w.relayer)
      .requestRedeem(second, await signIntent(w.owner, w.router, "RequestRedeem", second), NO_AUTHORIZATION);
    const cancel: CancelRedeemIntent = {
      owner: w.owner.address,
      vault,
      receiver: w.owner.address,
      nonce: 4n,
      deadline,
    };
    await w.router
      .connect(w.relayer)
      .cancelRedeem(cancel, await signIntent(w.owner, w.router, "CancelRedeem", cancel), NO_AUTHORIZATION);
    expect(await w.async.balanceOf(w.owner.address)).to.equal(SHARES / 2n);
    expect(await w.async.pendingRedeemRequest(0, w.owner.address)).to.equal(0n);
    expect(await ethers.provider.getBalance(w.owner.address)).to.equal(0n);
  });

  it("an EIP-1271 wallet authorises the router and redeems by its key's signatures", async () => {
    const w = await loadFixture(deployRouterWorld);
    const key = w.a.carol;
    const wallet = await new RevocableERC1271Wallet__factory(key).deploy(key.address);
    const walletAddress = await wallet.getAddress();
    const vault = await w.sync.getAddress();
    const router = await w.router.getAddress();
    await w.sync.connect(key).deposit(ASSETS, walletAddress);
    const intent: RedeemIntent = {
      owner: walletAddress,
      vault,
      shares: SHARES,
      receiver: walletAddress,
      minAssets: 0n,
      nonce: 1n,
      deadline: await inSeconds(1800),
    };
    // The wallet's key signs the vault's AuthorizeOperator for the wallet (controller = the wallet).
    const domain = {
      name: await w.sync.name(),
      version: "1",
      chainId: (await ethers.provider.getNetwork()).chainId,
      verifyingContract: vault,
    };
    const authNonce = ethers.id("wallet authorisation");
    const signature = await key.signTypedData(
      domain,
      { AuthorizeOperator: [...AUTHORIZE_OPERATOR_TYPES.AuthorizeOperator] },
      { controller: walletAddress, operator: router, approved: true, nonce: authNonce, deadline: intent.deadline },
    );
    const assets = await redeemedNextBlock(w, SHARES);
    await expect(
      w.router.connect(w.relayer).redeem(intent, await signIntent(key, w.router, "Redeem", intent), {
        nonce: authNonce,
        deadline: intent.deadline,
        signature,
      }),
    ).to.changeTokenBalance(w.usdc, wallet, assets);
    expect(await w.sync.isOperator(walletAddress, router)).to.equal(true);
  });

  it("an authorisation that does not verify is only tried: the vault refuses the router, nothing moved", async () => {
    const w = await loadFixture(deployRouterWorld);
    const vault = await w.async.getAddress();
    const router = await w.router.getAddress();
    await depositSigned(w, vault);
    const request: RequestRedeemIntent = {
      owner: w.owner.address,
      vault,
      shares: SHARES,
      nonce: 1n,
      deadline: await inSeconds(1800),
    };
    // Signed by someone else (the relayer) for the owner.
    const forged = await signAuthorization(w.relayer, w.async, router, ethers.id("forged"), request.deadline as bigint);
    await expect(
      w.router
        .connect(w.relayer)
        .requestRedeem(request, await signIntent(w.owner, w.router, "RequestRedeem", request), forged),
    )
      .to.be.revertedWithCustomError(w.async, "NotControllerOrOperator")
      .withArgs(router, w.owner.address);
    expect(await w.async.balanceOf(w.owner.address)).to.equal(SHARES);
    expect(await w.router.nonceUsed(w.owner.address, 1n)).to.equal(false);
  });
});
