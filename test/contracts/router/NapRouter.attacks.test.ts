import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, setBalance, time } from "@nomicfoundation/hardhat-network-helpers";
import { MaxUint256, parseEther } from "ethers";
import {
  HookUSDC__factory,
  NapRouter__factory,
  NapVault__factory,
  RouterLazyVault__factory,
  RouterReentrantOwner__factory,
  RevocableERC1271Wallet__factory,
} from "../../../typechain-types";
import { USDC, VIRTUAL_SHARES, params, roles } from "../vaults/fixtures";
import {
  NO_AUTHORIZATION,
  NO_PERMIT,
  deployRouterWorld,
  digestOf,
  inSeconds,
  signAuthorization,
  signIntent,
  signPermit,
  type DepositIntent,
  type RequestRedeemIntent,
  type RouterWorld,
} from "./fixtures";

const ASSETS = 1_000n * USDC;
const SHARES = ASSETS * VIRTUAL_SHARES;
const START = 100_000n * USDC;

async function depositIntent(w: RouterWorld, overrides: Partial<DepositIntent> = {}): Promise<DepositIntent> {
  return {
    owner: w.owner.address,
    vault: await w.sync.getAddress(),
    assets: ASSETS,
    receiver: w.owner.address,
    minShares: SHARES,
    nonce: 11n,
    deadline: await inSeconds(1800),
    ...overrides,
  };
}

/** A signed deposit of the owner key with its permit, ready to send. */
async function signedDeposit(w: RouterWorld, overrides: Partial<DepositIntent> = {}) {
  const intent = await depositIntent(w, overrides);
  const signature = await signIntent(w.owner, w.router, "Deposit", intent);
  const permit = await signPermit(w.owner, w.usdc, await w.router.getAddress(), ASSETS, intent.deadline as bigint);
  return { intent, signature, permit };
}

/** Nothing of the owner's moved and the nonce is still free. */
async function nothingMoved(w: RouterWorld, nonce: bigint) {
  expect(await w.usdc.balanceOf(w.owner.address)).to.equal(START);
  expect(await w.sync.balanceOf(w.owner.address)).to.equal(0n);
  expect(await w.usdc.balanceOf(await w.router.getAddress())).to.equal(0n);
  expect(await w.router.nonceUsed(w.owner.address, nonce)).to.equal(false);
}

describe("NapRouter: attacks on signed messages", () => {
  it("replay of a used message: refused, nothing moves a second time", async () => {
    const w = await loadFixture(deployRouterWorld);
    const { intent, signature, permit } = await signedDeposit(w);
    await w.router.connect(w.relayer).deposit(intent, signature, permit);
    await expect(w.router.connect(w.relayer).deposit(intent, signature, permit))
      .to.be.revertedWithCustomError(w.router, "NonceAlreadyUsed")
      .withArgs(w.owner.address, intent.nonce);
    expect(await w.sync.balanceOf(w.owner.address)).to.equal(SHARES);
    expect(await w.usdc.balanceOf(w.owner.address)).to.equal(START - ASSETS);
  });

  it("replay of a used exit message (request): refused", async () => {
    const w = await loadFixture(deployRouterWorld);
    const vault = await w.async.getAddress();
    await w.async.connect(w.a.alice).deposit(ASSETS, w.a.alice.address);
    await w.async.connect(w.a.alice).setOperator(await w.router.getAddress(), true);
    const request: RequestRedeemIntent = {
      owner: w.a.alice.address,
      vault,
      shares: SHARES / 2n,
      nonce: 1n,
      deadline: await inSeconds(1800),
    };
    const signature = await signIntent(w.a.alice, w.router, "RequestRedeem", request);
    await w.router.connect(w.relayer).requestRedeem(request, signature, NO_AUTHORIZATION);
    await expect(w.router.connect(w.relayer).requestRedeem(request, signature, NO_AUTHORIZATION))
      .to.be.revertedWithCustomError(w.router, "NonceAlreadyUsed")
      .withArgs(w.a.alice.address, 1n);
    expect(await w.async.pendingRedeemRequest(0, w.a.alice.address)).to.equal(SHARES / 2n);
  });

  it("the same message on another vault: refused as a bad signature", async () => {
    const w = await loadFixture(deployRouterWorld);
    const { intent, signature, permit } = await signedDeposit(w);
    const moved = { ...intent, vault: await w.async.getAddress() };
    await expect(w.router.connect(w.relayer).deposit(moved, signature, permit))
      .to.be.revertedWithCustomError(w.router, "InvalidSignature")
      .withArgs(w.owner.address, await digestOf(w.router, "Deposit", moved));
    await nothingMoved(w, intent.nonce as bigint);
  });

  it("the same message on another chain: a signature in chain 1's domain is refused here", async () => {
    const w = await loadFixture(deployRouterWorld);
    const intent = await depositIntent(w);
    const signature = await signIntent(w.owner, w.router, "Deposit", intent, 1n);
    const permit = await signPermit(w.owner, w.usdc, await w.router.getAddress(), ASSETS, intent.deadline as bigint);
    await expect(w.router.connect(w.relayer).deposit(intent, signature, permit))
      .to.be.revertedWithCustomError(w.router, "InvalidSignature")
      .withArgs(w.owner.address, await digestOf(w.router, "Deposit", intent));
    await nothingMoved(w, intent.nonce as bigint);
  });

  it("the same message on another deployment: a second router refuses the first one's message", async () => {
    const w = await loadFixture(deployRouterWorld);
    const other = await new NapRouter__factory(w.a.deployer).deploy();
    const { intent, signature } = await signedDeposit(w);
    const permit = await signPermit(w.owner, w.usdc, await other.getAddress(), ASSETS, intent.deadline as bigint);
    expect(await other.hashDeposit(intent)).to.not.equal(await w.router.hashDeposit(intent));
    await expect(other.connect(w.relayer).deposit(intent, signature, permit))
      .to.be.revertedWithCustomError(other, "InvalidSignature")
      .withArgs(w.owner.address, await other.hashDeposit(intent));
    await nothingMoved(w, intent.nonce as bigint);
  });

  it("a changed receiver: refused, the relayer cannot take the shares", async () => {
    const w = await loadFixture(deployRouterWorld);
    const { intent, signature, permit } = await signedDeposit(w);
    const changed = { ...intent, receiver: w.relayer.address };
    await expect(w.router.connect(w.relayer).deposit(changed, signature, permit))
      .to.be.revertedWithCustomError(w.router, "InvalidSignature")
      .withArgs(w.owner.address, await digestOf(w.router, "Deposit", changed));
    await nothingMoved(w, intent.nonce as bigint);
  });

  it("a changed amount: refused, more of the owner's assets cannot be pulled", async () => {
    const w = await loadFixture(deployRouterWorld);
    const { intent, signature } = await signedDeposit(w);
    const permit = await signPermit(
      w.owner,
      w.usdc,
      await w.router.getAddress(),
      MaxUint256,
      intent.deadline as bigint,
    );
    const changed = { ...intent, assets: START };
    await expect(w.router.connect(w.relayer).deposit(changed, signature, permit))
      .to.be.revertedWithCustomError(w.router, "InvalidSignature")
      .withArgs(w.owner.address, await digestOf(w.router, "Deposit", changed));
    await nothingMoved(w, intent.nonce as bigint);
  });

  it("a changed amount or receiver of a claim: refused", async () => {
    const w = await loadFixture(deployRouterWorld);
    const vault = await w.async.getAddress();
    const claim = {
      owner: w.a.alice.address,
      vault,
      shares: SHARES,
      receiver: w.a.alice.address,
      minAssets: 0n,
      nonce: 5n,
      deadline: await inSeconds(1800),
    };
    const signature = await signIntent(w.a.alice, w.router, "Claim", claim);
    for (const changed of [
      { ...claim, receiver: w.griefer.address },
      { ...claim, shares: SHARES + 1n },
    ]) {
      await expect(w.router.connect(w.griefer).claim(changed, signature, NO_AUTHORIZATION))
        .to.be.revertedWithCustomError(w.router, "InvalidSignature")
        .withArgs(w.a.alice.address, await digestOf(w.router, "Claim", changed));
    }
  });

  it("a Redeem's signature sent as a Claim, whose fields are the same: refused (the type is signed)", async () => {
    const w = await loadFixture(deployRouterWorld);
    const fields = {
      owner: w.a.alice.address,
      vault: await w.async.getAddress(),
      shares: SHARES,
      receiver: w.a.alice.address,
      minAssets: 0n,
      nonce: 6n,
      deadline: await inSeconds(1800),
    };
    const redeemSignature = await signIntent(w.a.alice, w.router, "Redeem", fields);
    await expect(w.router.connect(w.griefer).claim(fields, redeemSignature, NO_AUTHORIZATION))
      .to.be.revertedWithCustomError(w.router, "InvalidSignature")
      .withArgs(w.a.alice.address, await digestOf(w.router, "Claim", fields));
  });

  it("a Deposit's signature sent as a Redeem of the same words: refused (the type is signed)", async () => {
    const w = await loadFixture(deployRouterWorld);
    const deposit = await depositIntent(w, { owner: w.a.alice.address, receiver: w.a.alice.address });
    const signature = await signIntent(w.a.alice, w.router, "Deposit", deposit);
    const asRedeem = {
      owner: deposit.owner,
      vault: deposit.vault,
      shares: deposit.assets,
      receiver: deposit.receiver,
      minAssets: deposit.minShares,
      nonce: deposit.nonce,
      deadline: deposit.deadline,
    };
    await expect(w.router.connect(w.griefer).redeem(asRedeem, signature, NO_AUTHORIZATION))
      .to.be.revertedWithCustomError(w.router, "InvalidSignature")
      .withArgs(w.a.alice.address, await digestOf(w.router, "Redeem", asRedeem));
  });

  it("an expired deadline: refused one second after it, carried out at it", async () => {
    const w = await loadFixture(deployRouterWorld);
    const { intent, signature, permit } = await signedDeposit(w);
    const deadline = intent.deadline as bigint;
    await time.setNextBlockTimestamp(deadline + 1n);
    await expect(w.router.connect(w.relayer).deposit(intent, signature, permit))
      .to.be.revertedWithCustomError(w.router, "SignatureExpired")
      .withArgs(deadline, deadline + 1n);
    await nothingMoved(w, intent.nonce as bigint);

    const fresh = await signedDeposit(w, { nonce: 12n });
    await time.setNextBlockTimestamp(fresh.intent.deadline as bigint);
    await w.router.connect(w.relayer).deposit(fresh.intent, fresh.signature, fresh.permit);
    expect(await w.sync.balanceOf(w.owner.address)).to.equal(SHARES);
  });

  it("a permit front-run: someone spends the permit first, the deposit still moves exactly the signed amount", async () => {
    const w = await loadFixture(deployRouterWorld);
    const intent = await depositIntent(w);
    const signature = await signIntent(w.owner, w.router, "Deposit", intent);
    const router = await w.router.getAddress();
    const permit = await signPermit(w.owner, w.usdc, router, 3n * ASSETS, intent.deadline as bigint);
    await w.usdc
      .connect(w.griefer)
      .permit(w.owner.address, router, permit.value, permit.deadline, permit.v, permit.r, permit.s);
    const tx = w.router.connect(w.relayer).deposit(intent, signature, permit);
    await expect(tx).to.changeTokenBalances(w.usdc, [w.owner, w.sync], [-ASSETS, ASSETS]);
    expect(await w.sync.balanceOf(w.owner.address)).to.equal(SHARES);
    expect(await w.usdc.allowance(w.owner.address, router)).to.equal(2n * ASSETS);
  });

  it("a griefer who submits the message first: the owner gets exactly the signed shares, the relayer's copy is refused", async () => {
    const w = await loadFixture(deployRouterWorld);
    const { intent, signature, permit } = await signedDeposit(w, { receiver: w.a.bob.address });
    await w.router.connect(w.griefer).deposit(intent, signature, permit);
    expect(await w.sync.balanceOf(w.a.bob.address)).to.equal(SHARES);
    expect(await w.sync.balanceOf(w.griefer.address)).to.equal(0n);
    expect(await w.usdc.balanceOf(w.owner.address)).to.equal(START - ASSETS);
    await expect(w.router.connect(w.relayer).deposit(intent, signature, permit))
      .to.be.revertedWithCustomError(w.router, "NonceAlreadyUsed")
      .withArgs(w.owner.address, intent.nonce);
  });

  it("a griefer who submits the message first without its permit: nothing moves, the relayer's copy then works", async () => {
    const w = await loadFixture(deployRouterWorld);
    const { intent, signature, permit } = await signedDeposit(w);
    const router = await w.router.getAddress();
    await expect(w.router.connect(w.griefer).deposit(intent, signature, NO_PERMIT))
      .to.be.revertedWithCustomError(w.router, "InsufficientAllowance")
      .withArgs(w.owner.address, 0n, ASSETS);
    const broken = { ...permit, s: ethers.ZeroHash };
    await expect(w.router.connect(w.griefer).deposit(intent, signature, broken))
      .to.be.revertedWithCustomError(w.router, "InsufficientAllowance")
      .withArgs(w.owner.address, 0n, ASSETS);
    await nothingMoved(w, intent.nonce as bigint);
    expect(await w.usdc.allowance(w.owner.address, router)).to.equal(0n);
    await w.router.connect(w.relayer).deposit(intent, signature, permit);
    expect(await w.sync.balanceOf(w.owner.address)).to.equal(SHARES);
  });

  it("a griefer who front-runs the ERC-7741 authorisation on the vault: the signed exit still goes through", async () => {
    const w = await loadFixture(deployRouterWorld);
    const vault = await w.async.getAddress();
    const router = await w.router.getAddress();
    const { intent, signature, permit } = await signedDeposit(w, { vault });
    await w.router.connect(w.relayer).deposit(intent, signature, permit);
    const request: RequestRedeemIntent = {
      owner: w.owner.address,
      vault,
      shares: SHARES,
      nonce: 13n,
      deadline: await inSeconds(1800),
    };
    const auth = await signAuthorization(w.owner, w.async, router, ethers.id("a"), request.deadline as bigint);
    await w.async
      .connect(w.griefer)
      .authorizeOperator(w.owner.address, router, true, auth.nonce, auth.deadline, auth.signature);
    await expect(
      w.router
        .connect(w.relayer)
        .requestRedeem(request, await signIntent(w.owner, w.router, "RequestRedeem", request), auth),
    )
      .to.emit(w.async, "RedeemRequest")
      .withArgs(w.owner.address, w.owner.address, 0n, router, SHARES);
  });

  it("a signature by someone else for the owner: refused", async () => {
    const w = await loadFixture(deployRouterWorld);
    const intent = await depositIntent(w);
    const signature = await signIntent(w.griefer, w.router, "Deposit", intent);
    const permit = await signPermit(w.owner, w.usdc, await w.router.getAddress(), ASSETS, intent.deadline as bigint);
    await expect(w.router.connect(w.griefer).deposit(intent, signature, permit))
      .to.be.revertedWithCustomError(w.router, "InvalidSignature")
      .withArgs(w.owner.address, await digestOf(w.router, "Deposit", intent));
    await nothingMoved(w, intent.nonce as bigint);
  });

  it("a contract wallet whose EIP-1271 answer changes: refused while it says no, carried out once it says yes", async () => {
    const w = await loadFixture(deployRouterWorld);
    const key = w.a.carol;
    const wallet = await new RevocableERC1271Wallet__factory(key).deploy(key.address);
    const walletAddress = await wallet.getAddress();
    await w.usdc.mint(walletAddress, ASSETS);
    await wallet
      .connect(key)
      .execute(
        await w.usdc.getAddress(),
        w.usdc.interface.encodeFunctionData("approve", [await w.router.getAddress(), ASSETS]),
      );
    const intent = await depositIntent(w, { owner: walletAddress, receiver: walletAddress });
    const signature = await signIntent(key, w.router, "Deposit", intent);
    await wallet.connect(key).setAccepting(false);
    await expect(w.router.connect(w.relayer).deposit(intent, signature, NO_PERMIT))
      .to.be.revertedWithCustomError(w.router, "InvalidSignature")
      .withArgs(walletAddress, await digestOf(w.router, "Deposit", intent));
    expect(await w.usdc.balanceOf(walletAddress)).to.equal(ASSETS);
    await wallet.connect(key).setAccepting(true);
    await w.router.connect(w.relayer).deposit(intent, signature, NO_PERMIT);
    expect(await w.sync.balanceOf(walletAddress)).to.equal(SHARES);
  });

  it("a relayer that withholds: the owner sends the same message to the router itself, and it works", async () => {
    const w = await loadFixture(deployRouterWorld);
    const { intent, signature, permit } = await signedDeposit(w);
    // The relayer never sends it; the owner pays its own gas this once.
    await setBalance(w.owner.address, parseEther("1"));
    await w.router.connect(w.owner.connect(ethers.provider)).deposit(intent, signature, permit);
    expect(await w.sync.balanceOf(w.owner.address)).to.equal(SHARES);
    expect(await w.router.nonceUsed(w.owner.address, intent.nonce)).to.equal(true);
  });

  it("insufficient allowance: the router's own error, nothing moved", async () => {
    const w = await loadFixture(deployRouterWorld);
    const intent = await depositIntent(w);
    const signature = await signIntent(w.owner, w.router, "Deposit", intent);
    const permit = await signPermit(
      w.owner,
      w.usdc,
      await w.router.getAddress(),
      ASSETS - 1n,
      intent.deadline as bigint,
    );
    await expect(w.router.connect(w.relayer).deposit(intent, signature, permit))
      .to.be.revertedWithCustomError(w.router, "InsufficientAllowance")
      .withArgs(w.owner.address, ASSETS - 1n, ASSETS);
    await nothingMoved(w, intent.nonce as bigint);
  });

  it("insufficient balance: the router's own error, nothing moved", async () => {
    const w = await loadFixture(deployRouterWorld);
    const { intent, signature } = await signedDeposit(w, { assets: START + 1n, minShares: 0n });
    const permit = await signPermit(
      w.owner,
      w.usdc,
      await w.router.getAddress(),
      START + 1n,
      intent.deadline as bigint,
    );
    await expect(w.router.connect(w.relayer).deposit(intent, signature, permit))
      .to.be.revertedWithCustomError(w.router, "InsufficientBalance")
      .withArgs(w.owner.address, START, START + 1n);
    await nothingMoved(w, intent.nonce as bigint);
  });

  it("a vault that leaves the assets it was approved for: refused, the router keeps nothing", async () => {
    const w = await loadFixture(deployRouterWorld);
    const lazy = await new RouterLazyVault__factory(w.a.deployer).deploy(await w.usdc.getAddress());
    const { intent, signature, permit } = await signedDeposit(w, { vault: await lazy.getAddress(), minShares: 0n });
    await expect(w.router.connect(w.relayer).deposit(intent, signature, permit))
      .to.be.revertedWithCustomError(w.router, "VaultLeftAllowance")
      .withArgs(await lazy.getAddress(), ASSETS);
    await nothingMoved(w, intent.nonce as bigint);
  });

  it("reentrancy through a hostile token: the owner's hook cannot enter the router again mid-deposit", async () => {
    const w = await loadFixture(deployRouterWorld);
    const key = w.a.carol;
    const hook = await new HookUSDC__factory(w.a.deployer).deploy();
    const vault = await new NapVault__factory(w.a.deployer).deploy(
      params(await hook.getAddress(), w.a.feeRecipient.address, { name: "Hook Vault", symbol: "hVLT" }),
      roles(w.a),
      [],
    );
    const owner = await new RouterReentrantOwner__factory(key).deploy(key.address);
    const ownerAddress = await owner.getAddress();
    const router = await w.router.getAddress();
    await hook.mint(ownerAddress, 2n * ASSETS);
    await owner.execute(await hook.getAddress(), hook.interface.encodeFunctionData("registerSender"));
    await owner.execute(await hook.getAddress(), hook.interface.encodeFunctionData("approve", [router, MaxUint256]));
    const vaultAddress = await vault.getAddress();
    const base = { owner: ownerAddress, vault: vaultAddress, assets: ASSETS, receiver: ownerAddress, minShares: 0n };
    const first = { ...base, nonce: 1n, deadline: await inSeconds(1800) };
    const second = { ...base, nonce: 2n, deadline: await inSeconds(1800) };
    const secondSignature = await signIntent(key, w.router, "Deposit", second);
    await owner.arm(router, w.router.interface.encodeFunctionData("deposit", [second, secondSignature, NO_PERMIT]));
    await w.router.connect(w.relayer).deposit(first, await signIntent(key, w.router, "Deposit", first), NO_PERMIT);
    expect(await owner.attempted()).to.equal(true);
    expect(await owner.succeeded()).to.equal(false);
    expect(await owner.answer()).to.equal(w.router.interface.getError("ReentrancyGuardReentrantCall")!.selector);
    expect(await vault.balanceOf(ownerAddress)).to.equal(SHARES);
    expect(await hook.balanceOf(ownerAddress)).to.equal(ASSETS);
    expect(await hook.balanceOf(router)).to.equal(0n);
    // The refused inner message was not used: it is carried out once sent on its own.
    expect(await w.router.nonceUsed(ownerAddress, 2n)).to.equal(false);
    await time.setNextBlockTimestamp((await time.latest()) + 10);
    const more = await vault.previewDeposit(ASSETS, { blockTag: "pending" });
    await w.router.connect(w.relayer).deposit(second, secondSignature, NO_PERMIT);
    expect(await vault.balanceOf(ownerAddress)).to.equal(SHARES + more);
  });
});
