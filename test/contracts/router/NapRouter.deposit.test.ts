import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { MaxUint256 } from "ethers";
import { RevocableERC1271Wallet__factory } from "../../../typechain-types";
import { USDC, VIRTUAL_SHARES } from "../vaults/fixtures";
import {
  INTENT_TYPES,
  NO_PERMIT,
  deployRouterWorld,
  digestOf,
  inSeconds,
  routerDomain,
  signIntent,
  signPermit,
  type DepositIntent,
  type RouterWorld,
} from "./fixtures";

const ASSETS = 1_000n * USDC;
const ACTION_DEPOSIT = 0;

async function depositIntent(w: RouterWorld, overrides: Partial<DepositIntent> = {}): Promise<DepositIntent> {
  return {
    owner: w.owner.address,
    vault: await w.sync.getAddress(),
    assets: ASSETS,
    receiver: w.owner.address,
    minShares: 0n,
    nonce: 7n,
    deadline: await inSeconds(1800),
    ...overrides,
  };
}

describe("NapRouter: deposit by signature", () => {
  it("publishes its EIP-712 domain (ERC-5267) and separator as wallets compute them", async () => {
    const { router } = await loadFixture(deployRouterWorld);
    const domain = await routerDomain(router);
    const [fields, name, version, chainId, verifyingContract, salt, extensions] = await router.eip712Domain();
    expect([fields, name, version, chainId, verifyingContract, salt, extensions]).to.deep.equal([
      "0x0f",
      "NAP Router",
      "1",
      domain.chainId,
      await router.getAddress(),
      ethers.ZeroHash,
      [],
    ]);
    expect(await router.DOMAIN_SEPARATOR()).to.equal(ethers.TypedDataEncoder.hashDomain(domain));
  });

  it("publishes the type hashes of the five intents, field order as signed", async () => {
    const { router } = await loadFixture(deployRouterWorld);
    const typeHash = (kind: keyof typeof INTENT_TYPES) =>
      ethers.id(`${kind}(${INTENT_TYPES[kind].map((field) => `${field.type} ${field.name}`).join(",")})`);
    expect(await router.DEPOSIT_TYPEHASH()).to.equal(typeHash("Deposit"));
    expect(await router.REDEEM_TYPEHASH()).to.equal(typeHash("Redeem"));
    expect(await router.REQUEST_REDEEM_TYPEHASH()).to.equal(typeHash("RequestRedeem"));
    expect(await router.CLAIM_TYPEHASH()).to.equal(typeHash("Claim"));
    expect(await router.CANCEL_REDEEM_TYPEHASH()).to.equal(typeHash("CancelRedeem"));
  });

  it("hashDeposit is the digest an EIP-712 wallet signs", async () => {
    const w = await loadFixture(deployRouterWorld);
    const intent = await depositIntent(w);
    expect(await w.router.hashDeposit(intent)).to.equal(await digestOf(w.router, "Deposit", intent));
  });

  it("a wallet with no ETH deposits by signature and permit; the relayer pays the gas", async () => {
    const w = await loadFixture(deployRouterWorld);
    const intent = await depositIntent(w, { minShares: ASSETS * VIRTUAL_SHARES });
    const signature = await signIntent(w.owner, w.router, "Deposit", intent);
    const permit = await signPermit(w.owner, w.usdc, await w.router.getAddress(), ASSETS, intent.deadline as bigint);
    const digest = await digestOf(w.router, "Deposit", intent);
    // Empty vault: shares = assets * (0 + 10^6) / (0 + 1).
    const shares = ASSETS * VIRTUAL_SHARES;
    expect(await w.router.connect(w.relayer).deposit.staticCall(intent, signature, permit)).to.equal(shares);
    const tx = w.router.connect(w.relayer).deposit(intent, signature, permit);
    await expect(tx)
      .to.emit(w.router, "SignedAction")
      .withArgs(digest, w.owner.address, intent.vault, ACTION_DEPOSIT)
      .and.to.emit(w.sync, "Deposit")
      .withArgs(await w.router.getAddress(), w.owner.address, ASSETS, shares);
    await expect(tx).to.changeTokenBalances(w.usdc, [w.owner, w.sync], [-ASSETS, ASSETS]);
    expect(await w.sync.balanceOf(w.owner.address)).to.equal(shares);
    expect(await w.usdc.balanceOf(await w.router.getAddress())).to.equal(0n);
    expect(await w.usdc.allowance(w.owner.address, await w.router.getAddress())).to.equal(0n);
    expect(await w.usdc.allowance(await w.router.getAddress(), intent.vault)).to.equal(0n);
    expect(await w.router.nonceUsed(w.owner.address, intent.nonce)).to.equal(true);
    expect(await ethers.provider.getBalance(w.owner.address)).to.equal(0n);
  });

  it("an owner that approved the router deposits without a permit, shares to another receiver", async () => {
    const w = await loadFixture(deployRouterWorld);
    await w.usdc.connect(w.a.alice).approve(await w.router.getAddress(), MaxUint256);
    const intent = await depositIntent(w, { owner: w.a.alice.address, receiver: w.a.bob.address });
    const signature = await signIntent(w.a.alice, w.router, "Deposit", intent);
    await expect(w.router.connect(w.relayer).deposit(intent, signature, NO_PERMIT)).to.changeTokenBalances(
      w.usdc,
      [w.a.alice, w.sync],
      [-ASSETS, ASSETS],
    );
    expect(await w.sync.balanceOf(w.a.bob.address)).to.equal(ASSETS * VIRTUAL_SHARES);
    expect(await w.sync.balanceOf(w.a.alice.address)).to.equal(0n);
  });

  it("an EIP-1271 contract wallet deposits by its key's signature, into an ERC-7540 vault", async () => {
    const w = await loadFixture(deployRouterWorld);
    const key = w.a.carol;
    const wallet = await new RevocableERC1271Wallet__factory(key).deploy(key.address);
    const walletAddress = await wallet.getAddress();
    await w.usdc.mint(walletAddress, ASSETS);
    const approve = w.usdc.interface.encodeFunctionData("approve", [await w.router.getAddress(), ASSETS]);
    await wallet.connect(key).execute(await w.usdc.getAddress(), approve);
    const intent = await depositIntent(w, {
      owner: walletAddress,
      receiver: walletAddress,
      vault: await w.async.getAddress(),
    });
    const signature = await signIntent(key, w.router, "Deposit", intent);
    await expect(w.router.connect(w.relayer).deposit(intent, signature, NO_PERMIT))
      .to.emit(w.router, "SignedAction")
      .withArgs(await digestOf(w.router, "Deposit", intent), walletAddress, intent.vault, ACTION_DEPOSIT);
    expect(await w.async.balanceOf(walletAddress)).to.equal(ASSETS * VIRTUAL_SHARES);
    expect(await w.usdc.balanceOf(walletAddress)).to.equal(0n);
  });

  it("refuses fewer shares than the signed minimum, nothing moved and the nonce left unused", async () => {
    const w = await loadFixture(deployRouterWorld);
    const intent = await depositIntent(w, { minShares: ASSETS * VIRTUAL_SHARES + 1n });
    const signature = await signIntent(w.owner, w.router, "Deposit", intent);
    const permit = await signPermit(w.owner, w.usdc, await w.router.getAddress(), ASSETS, intent.deadline as bigint);
    await expect(w.router.connect(w.relayer).deposit(intent, signature, permit))
      .to.be.revertedWithCustomError(w.router, "SharesBelowMinimum")
      .withArgs(ASSETS * VIRTUAL_SHARES, ASSETS * VIRTUAL_SHARES + 1n);
    expect(await w.usdc.balanceOf(w.owner.address)).to.equal(100_000n * USDC);
    expect(await w.router.nonceUsed(w.owner.address, intent.nonce)).to.equal(false);
  });

  it("the owner invalidates a nonce: the message signed with it is refused, and a second invalidation too", async () => {
    const w = await loadFixture(deployRouterWorld);
    await w.usdc.connect(w.a.alice).approve(await w.router.getAddress(), MaxUint256);
    const intent = await depositIntent(w, { owner: w.a.alice.address, receiver: w.a.alice.address });
    const signature = await signIntent(w.a.alice, w.router, "Deposit", intent);
    await expect(w.router.connect(w.a.alice).invalidateNonce(intent.nonce))
      .to.emit(w.router, "NonceInvalidated")
      .withArgs(w.a.alice.address, intent.nonce);
    await expect(w.router.connect(w.relayer).deposit(intent, signature, NO_PERMIT))
      .to.be.revertedWithCustomError(w.router, "NonceAlreadyUsed")
      .withArgs(w.a.alice.address, intent.nonce);
    await expect(w.router.connect(w.a.alice).invalidateNonce(intent.nonce))
      .to.be.revertedWithCustomError(w.router, "NonceAlreadyUsed")
      .withArgs(w.a.alice.address, intent.nonce);
    // Nonces are per owner: Bob's nonce 7 is still free.
    expect(await w.router.nonceUsed(w.a.bob.address, intent.nonce)).to.equal(false);
  });

  it("nonces are unordered: a higher nonce first, then a lower one, both carried out once", async () => {
    const w = await loadFixture(deployRouterWorld);
    await w.usdc.connect(w.a.alice).approve(await w.router.getAddress(), MaxUint256);
    const high = await depositIntent(w, { owner: w.a.alice.address, receiver: w.a.alice.address, nonce: 2n ** 255n });
    const low = await depositIntent(w, { owner: w.a.alice.address, receiver: w.a.alice.address, nonce: 1n });
    await w.router.connect(w.relayer).deposit(high, await signIntent(w.a.alice, w.router, "Deposit", high), NO_PERMIT);
    await w.router.connect(w.relayer).deposit(low, await signIntent(w.a.alice, w.router, "Deposit", low), NO_PERMIT);
    expect(await w.sync.balanceOf(w.a.alice.address)).to.equal(2n * ASSETS * VIRTUAL_SHARES);
  });

  it("nonces share storage words of 256 yet each is its own: invalidating one leaves its neighbours free", async () => {
    const w = await loadFixture(deployRouterWorld);
    const alice = w.a.alice.address;
    for (const nonce of [255n, 256n, 2n ** 256n - 1n]) {
      await w.router.connect(w.a.alice).invalidateNonce(nonce);
    }
    const used = async (nonce: bigint) => w.router.nonceUsed(alice, nonce);
    expect(await used(255n)).to.equal(true);
    expect(await used(256n)).to.equal(true);
    expect(await used(2n ** 256n - 1n)).to.equal(true);
    for (const free of [0n, 254n, 257n, 511n, 2n ** 256n - 2n, 2n ** 255n - 1n]) {
      expect(await used(free), String(free)).to.equal(false);
    }
    await expect(w.router.connect(w.a.alice).invalidateNonce(256n))
      .to.be.revertedWithCustomError(w.router, "NonceAlreadyUsed")
      .withArgs(alice, 256n);
  });

  it("the vault's own refusal (paused) reverts the whole message: nothing moved, nonce unused", async () => {
    const w = await loadFixture(deployRouterWorld);
    await w.sync.connect(w.a.guardian).pause();
    const intent = await depositIntent(w);
    const signature = await signIntent(w.owner, w.router, "Deposit", intent);
    const permit = await signPermit(w.owner, w.usdc, await w.router.getAddress(), ASSETS, intent.deadline as bigint);
    await expect(w.router.connect(w.relayer).deposit(intent, signature, permit))
      .to.be.revertedWithCustomError(w.sync, "ERC4626ExceededMaxDeposit")
      .withArgs(w.owner.address, ASSETS, 0n);
    expect(await w.usdc.balanceOf(w.owner.address)).to.equal(100_000n * USDC);
    expect(await w.usdc.allowance(w.owner.address, await w.router.getAddress())).to.equal(0n);
    expect(await w.router.nonceUsed(w.owner.address, intent.nonce)).to.equal(false);
  });
});
