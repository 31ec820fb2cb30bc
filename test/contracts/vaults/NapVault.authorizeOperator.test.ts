/**
 * ERC-7741 on NapVault (issue 30, vault side): a controller appoints an ERC-7540 operator by an EIP-712 signature
 * that anyone may submit (a relayer, a router, the controller itself), and operators exit a synchronous vault's
 * shares without an allowance, so one authorisation serves both kinds of vault. Each attack on the signature is a
 * test named after it; the property checks that only the exact signed message, by its controller, sets an operator.
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, setBalance, time } from "@nomicfoundation/hardhat-network-helpers";
import fc from "fast-check";
import { TypedDataEncoder, Wallet, type Signer, type TypedDataDomain } from "ethers";
import type { NapVault } from "../../../typechain-types";
import { RevocableERC1271Wallet__factory } from "../../../typechain-types";
import { HOUR, USDC, deployWorld } from "./fixtures";

const TYPES = {
  AuthorizeOperator: [
    { name: "controller", type: "address" },
    { name: "operator", type: "address" },
    { name: "approved", type: "bool" },
    { name: "nonce", type: "bytes32" },
    { name: "deadline", type: "uint256" },
  ],
};
const TYPE_STRING =
  "AuthorizeOperator(address controller,address operator,bool approved,bytes32 nonce,uint256 deadline)";
const ERC7741_ID = "0xa9e50872";

interface Authorization {
  controller: string;
  operator: string;
  approved: boolean;
  nonce: string;
  deadline: bigint;
}

/** The vault's EIP-712 domain as a wallet builds it: the share token's name, version "1", this chain, the vault. */
async function domainOf(vault: NapVault): Promise<TypedDataDomain> {
  const { chainId } = await ethers.provider.getNetwork();
  return { name: await vault.name(), version: "1", chainId, verifyingContract: await vault.getAddress() };
}

function sign(signer: Signer, domain: TypedDataDomain, auth: Authorization): Promise<string> {
  return signer.signTypedData(domain, TYPES, auth);
}

function submit(vault: NapVault, by: Signer, auth: Authorization, signature: string) {
  return vault
    .connect(by)
    .authorizeOperator(auth.controller, auth.operator, auth.approved, auth.nonce, auth.deadline, signature);
}

/**
 * A wallet that holds no ETH (its key only signs) owns 1,000 USDC of shares in the synchronous and in the
 * asynchronous vault; Bob is the operator it wants (a router), Carol the relayer that submits and pays the gas.
 */
async function keyOnlyHolder() {
  const w = await deployWorld();
  const holder = new Wallet(ethers.id("nap: ERC-7741 holder key"));
  await w.sync.connect(w.a.alice).deposit(1_000n * USDC, holder.address);
  await w.async.connect(w.a.alice).deposit(1_000n * USDC, holder.address);
  const deadline = BigInt(await time.latest()) + BigInt(HOUR);
  const auth: Authorization = {
    controller: holder.address,
    operator: w.a.bob.address,
    approved: true,
    nonce: ethers.id("nonce 1"),
    deadline,
  };
  return { ...w, holder, auth, relayer: w.a.carol, operator: w.a.bob };
}

/** The same, with Bob already the holder's operator on the synchronous vault (by a relayed signature). */
async function operatorSet() {
  const w = await keyOnlyHolder();
  await submit(w.sync, w.relayer, w.auth, await sign(w.holder, await domainOf(w.sync), w.auth));
  return w;
}

/** A contract wallet (EIP-1271) whose key signs for it, holding 1,000 USDC of shares of the synchronous vault. */
async function contractWalletHolder() {
  const w = await keyOnlyHolder();
  const key = new Wallet(ethers.id("nap: ERC-1271 wallet key"), ethers.provider);
  await setBalance(key.address, 10n ** 18n);
  const wallet = await new RevocableERC1271Wallet__factory(w.a.deployer).deploy(key.address);
  const walletAddress = await wallet.getAddress();
  await w.sync.connect(w.a.alice).deposit(1_000n * USDC, walletAddress);
  const auth = { ...w.auth, controller: walletAddress };
  return { ...w, key, wallet, walletAuth: auth };
}

function selector(signature: string): bigint {
  return BigInt(ethers.id(signature).slice(0, 10));
}

describe("NapVault: ERC-7741 operator authorisation by signature", () => {
  describe("the standard's surface", () => {
    it("advertises ERC-7741's id 0xa9e50872, the XOR of its four selectors, on both kinds of vault", async () => {
      const { sync, async, configurable } = await loadFixture(deployWorld);
      const id = [
        "authorizeOperator(address,address,bool,bytes32,uint256,bytes)",
        "invalidateNonce(bytes32)",
        "authorizations(address,bytes32)",
        "DOMAIN_SEPARATOR()",
      ].reduce((acc, s) => acc ^ selector(s), 0n);
      expect("0x" + id.toString(16).padStart(8, "0")).to.equal(ERC7741_ID);
      for (const vault of [sync, async, configurable]) expect(await vault.supportsInterface(ERC7741_ID)).to.equal(true);
      // The synchronous vault still does not claim to be an ERC-7540 vault.
      expect(await sync.supportsInterface("0xe3bc4e65")).to.equal(false);
    });

    it("exposes its EIP-712 domain (ERC-5267): the share token's name, version 1, this chain and vault", async () => {
      const { sync, async } = await loadFixture(deployWorld);
      const { chainId } = await ethers.provider.getNetwork();
      for (const vault of [sync, async]) {
        const address = await vault.getAddress();
        const [fields, name, version, domainChainId, verifyingContract, salt, extensions] = await vault.eip712Domain();
        expect([fields, name, version, domainChainId, verifyingContract, salt, extensions]).to.deep.equal([
          "0x0f",
          await vault.name(),
          "1",
          chainId,
          address,
          ethers.ZeroHash,
          [],
        ]);
        expect(await vault.DOMAIN_SEPARATOR()).to.equal(TypedDataEncoder.hashDomain(await domainOf(vault)));
      }
      // What wallets sign is exactly ERC-7741's type (the vault keeps its hash private: one selector less to dispatch).
      expect(TypedDataEncoder.from(TYPES).encodeType("AuthorizeOperator")).to.equal(TYPE_STRING);
      expect(await sync.DOMAIN_SEPARATOR()).to.not.equal(await async.DOMAIN_SEPARATOR());
    });
  });

  describe("authorizeOperator", () => {
    it("sets the operator of the signer for a relayer that submits it, uses the nonce up and emits OperatorSet", async () => {
      const { sync, holder, auth, relayer } = await loadFixture(keyOnlyHolder);
      const signature = await sign(holder, await domainOf(sync), auth);
      expect(await submit(sync, relayer, auth, signature).then(() => true)).to.equal(true);
      expect(await sync.isOperator(holder.address, auth.operator)).to.equal(true);
      expect(await sync.authorizations(holder.address, auth.nonce)).to.equal(true);
      // The relayer became nobody's operator.
      expect(await sync.isOperator(holder.address, relayer.address)).to.equal(false);
    });

    it("emits OperatorSet(controller, operator, approved) and returns true", async () => {
      const { async, holder, auth, relayer } = await loadFixture(keyOnlyHolder);
      const signature = await sign(holder, await domainOf(async), auth);
      const tx = async
        .connect(relayer)
        .authorizeOperator.staticCall(auth.controller, auth.operator, true, auth.nonce, auth.deadline, signature);
      expect(await tx).to.equal(true);
      await expect(submit(async, relayer, auth, signature))
        .to.emit(async, "OperatorSet")
        .withArgs(holder.address, auth.operator, true);
    });

    it("takes an operator back by a signed approved = false", async () => {
      const { sync, holder, auth, relayer } = await loadFixture(operatorSet);
      const revoke = { ...auth, approved: false, nonce: ethers.id("nonce 2") };
      await expect(submit(sync, relayer, revoke, await sign(holder, await domainOf(sync), revoke)))
        .to.emit(sync, "OperatorSet")
        .withArgs(holder.address, auth.operator, false);
      expect(await sync.isOperator(holder.address, auth.operator)).to.equal(false);
    });

    it("attack: a signature replayed after use reverts AuthorizationUsed (the nonce is used once)", async () => {
      const { sync, holder, auth, relayer } = await loadFixture(keyOnlyHolder);
      const signature = await sign(holder, await domainOf(sync), auth);
      await submit(sync, relayer, auth, signature);
      // The holder takes the operator back; replaying the old approval must not restore it.
      await sync
        .connect(relayer)
        .authorizeOperator(
          holder.address,
          auth.operator,
          false,
          ethers.id("nonce 2"),
          auth.deadline,
          await sign(holder, await domainOf(sync), { ...auth, approved: false, nonce: ethers.id("nonce 2") }),
        );
      await expect(submit(sync, relayer, auth, signature))
        .to.be.revertedWithCustomError(sync, "AuthorizationUsed")
        .withArgs(holder.address, auth.nonce);
      expect(await sync.isOperator(holder.address, auth.operator)).to.equal(false);
    });

    it("attack: a signature for one vault submitted to another vault reverts InvalidAuthorization (domain)", async () => {
      const { sync, async, configurable, holder, auth, relayer } = await loadFixture(keyOnlyHolder);
      const forSync = await sign(holder, await domainOf(sync), auth);
      for (const other of [async, configurable]) {
        await expect(submit(other, relayer, auth, forSync))
          .to.be.revertedWithCustomError(other, "InvalidAuthorization")
          .withArgs(holder.address);
        expect(await other.isOperator(holder.address, auth.operator)).to.equal(false);
      }
      // Still good where it was meant for.
      await submit(sync, relayer, auth, forSync);
      expect(await sync.isOperator(holder.address, auth.operator)).to.equal(true);
    });

    it("attack: a signature made for another chain reverts InvalidAuthorization", async () => {
      const { sync, holder, auth, relayer } = await loadFixture(keyOnlyHolder);
      const domain = await domainOf(sync);
      for (const chainId of [1n, 8453n, 84532n]) {
        const signature = await sign(holder, { ...domain, chainId }, auth);
        await expect(submit(sync, relayer, auth, signature))
          .to.be.revertedWithCustomError(sync, "InvalidAuthorization")
          .withArgs(holder.address);
      }
      expect(await sync.authorizations(holder.address, auth.nonce)).to.equal(false);
    });

    it("attack: a signature with another domain name or version reverts InvalidAuthorization", async () => {
      const { sync, holder, auth, relayer } = await loadFixture(keyOnlyHolder);
      const domain = await domainOf(sync);
      for (const changed of [
        { ...domain, name: "NAP Router" },
        { ...domain, version: "2" },
      ]) {
        await expect(submit(sync, relayer, auth, await sign(holder, changed, auth)))
          .to.be.revertedWithCustomError(sync, "InvalidAuthorization")
          .withArgs(holder.address);
      }
    });

    it("attack: an expired deadline reverts AuthorizationExpired; the deadline's own second is still valid", async () => {
      const { sync, holder, auth, relayer } = await loadFixture(keyOnlyHolder);
      const signature = await sign(holder, await domainOf(sync), auth);
      await time.setNextBlockTimestamp(auth.deadline + 1n);
      await expect(submit(sync, relayer, auth, signature))
        .to.be.revertedWithCustomError(sync, "AuthorizationExpired")
        .withArgs(auth.deadline);
      const onTime = { ...auth, nonce: ethers.id("nonce 2"), deadline: BigInt(await time.latest()) + 10n };
      const onTimeSignature = await sign(holder, await domainOf(sync), onTime);
      await time.setNextBlockTimestamp(onTime.deadline);
      await submit(sync, relayer, onTime, onTimeSignature);
      expect(await sync.isOperator(holder.address, auth.operator)).to.equal(true);
    });

    it("attack: a signature by someone else for the controller reverts InvalidAuthorization", async () => {
      const { sync, holder, auth, relayer, a } = await loadFixture(keyOnlyHolder);
      const domain = await domainOf(sync);
      // Bob, the would-be operator, and the relayer each sign the holder's authorisation themselves.
      for (const forger of [a.bob, relayer]) {
        await expect(submit(sync, relayer, auth, await sign(forger, domain, auth)))
          .to.be.revertedWithCustomError(sync, "InvalidAuthorization")
          .withArgs(holder.address);
      }
      // And a valid signature of the holder's cannot be passed off for Alice as controller.
      const forAlice = { ...auth, controller: a.alice.address };
      await expect(submit(sync, relayer, forAlice, await sign(holder, domain, auth)))
        .to.be.revertedWithCustomError(sync, "InvalidAuthorization")
        .withArgs(a.alice.address);
      expect(await sync.isOperator(holder.address, auth.operator)).to.equal(false);
      expect(await sync.isOperator(a.alice.address, auth.operator)).to.equal(false);
    });

    it("attack: a relayer that changes the operator, approval, nonce or deadline of a signed message is refused", async () => {
      const { sync, holder, auth, relayer, a } = await loadFixture(keyOnlyHolder);
      const signature = await sign(holder, await domainOf(sync), auth);
      const changed: Authorization[] = [
        { ...auth, operator: relayer.address },
        { ...auth, approved: false },
        { ...auth, nonce: ethers.id("nonce 2") },
        { ...auth, deadline: auth.deadline + 1n },
      ];
      for (const message of changed) {
        await expect(submit(sync, relayer, message, signature))
          .to.be.revertedWithCustomError(sync, "InvalidAuthorization")
          .withArgs(holder.address);
      }
      expect(await sync.isOperator(holder.address, relayer.address)).to.equal(false);
      expect(await sync.isOperator(holder.address, a.bob.address)).to.equal(false);
    });

    it("attack: a malformed or malleable (high-s) signature is refused", async () => {
      const { sync, holder, auth, relayer } = await loadFixture(keyOnlyHolder);
      const signature = ethers.Signature.from(await sign(holder, await domainOf(sync), auth));
      // secp256k1's group order: s and N - s are both valid ECDSA, and EIP-2 lets only the lower one through.
      const N = BigInt("0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
      const highS = ethers.concat([
        signature.r,
        ethers.toBeHex(N - BigInt(signature.s), 32),
        ethers.toBeHex(signature.v === 27 ? 28 : 27, 1),
      ]);
      for (const bad of ["0x", "0x1234", highS, ethers.concat([signature.serialized, "0x00"])]) {
        await expect(submit(sync, relayer, auth, bad))
          .to.be.revertedWithCustomError(sync, "InvalidAuthorization")
          .withArgs(holder.address);
      }
    });

    it("attack: a griefer submitting a bad signature with the controller's nonce does not use the nonce up", async () => {
      const { sync, holder, auth, relayer, a } = await loadFixture(keyOnlyHolder);
      await expect(submit(sync, a.alice, auth, await sign(a.alice, await domainOf(sync), auth)))
        .to.be.revertedWithCustomError(sync, "InvalidAuthorization")
        .withArgs(holder.address);
      expect(await sync.authorizations(holder.address, auth.nonce)).to.equal(false);
      await submit(sync, relayer, auth, await sign(holder, await domainOf(sync), auth));
      expect(await sync.isOperator(holder.address, auth.operator)).to.equal(true);
    });

    it("attack: invalidateNonce then use: the signed authorisation reverts AuthorizationUsed", async () => {
      const { sync, auth, relayer, a } = await loadFixture(keyOnlyHolder);
      // Alice signs, thinks better of it and invalidates the nonce before the relayer submits.
      const mine = { ...auth, controller: a.alice.address };
      const signature = await sign(a.alice, await domainOf(sync), mine);
      await sync.connect(a.alice).invalidateNonce(mine.nonce);
      expect(await sync.authorizations(a.alice.address, mine.nonce)).to.equal(true);
      await expect(submit(sync, relayer, mine, signature))
        .to.be.revertedWithCustomError(sync, "AuthorizationUsed")
        .withArgs(a.alice.address, mine.nonce);
      expect(await sync.isOperator(a.alice.address, mine.operator)).to.equal(false);
    });

    it("keeps nonces per controller and per vault: one controller's invalidation touches no one else's", async () => {
      const { sync, async, holder, auth, relayer, a } = await loadFixture(keyOnlyHolder);
      await sync.connect(a.alice).invalidateNonce(auth.nonce);
      expect(await sync.authorizations(holder.address, auth.nonce)).to.equal(false);
      await submit(sync, relayer, auth, await sign(holder, await domainOf(sync), auth));
      expect(await async.authorizations(holder.address, auth.nonce)).to.equal(false);
      await submit(async, relayer, auth, await sign(holder, await domainOf(async), auth));
      expect(await async.isOperator(holder.address, auth.operator)).to.equal(true);
    });
  });

  describe("EIP-1271 contract wallets", () => {
    it("sets the operator of a contract wallet whose key signed for it", async () => {
      const { sync, key, wallet, walletAuth, relayer } = await loadFixture(contractWalletHolder);
      await expect(submit(sync, relayer, walletAuth, await sign(key, await domainOf(sync), walletAuth)))
        .to.emit(sync, "OperatorSet")
        .withArgs(await wallet.getAddress(), walletAuth.operator, true);
    });

    it("attack: an EIP-1271 wallet that answers valid then invalid: refused while invalid, nonce kept for later", async () => {
      const { sync, key, wallet, walletAuth, relayer } = await loadFixture(contractWalletHolder);
      const walletAddress = await wallet.getAddress();
      const signature = await sign(key, await domainOf(sync), walletAuth);
      const digest = TypedDataEncoder.hash(await domainOf(sync), TYPES, walletAuth);
      expect(await wallet.isValidSignature(digest, signature)).to.equal("0x1626ba7e");
      // The wallet's key is rotated out before the relayer submits.
      await wallet.connect(key).setAccepting(false);
      expect(await wallet.isValidSignature(digest, signature)).to.equal("0xffffffff");
      await expect(submit(sync, relayer, walletAuth, signature))
        .to.be.revertedWithCustomError(sync, "InvalidAuthorization")
        .withArgs(walletAddress);
      expect(await sync.isOperator(walletAddress, walletAuth.operator)).to.equal(false);
      expect(await sync.authorizations(walletAddress, walletAuth.nonce)).to.equal(false);
      // Accepted again, the same message goes through once.
      await wallet.connect(key).setAccepting(true);
      await submit(sync, relayer, walletAuth, signature);
      expect(await sync.isOperator(walletAddress, walletAuth.operator)).to.equal(true);
      await expect(submit(sync, relayer, walletAuth, signature))
        .to.be.revertedWithCustomError(sync, "AuthorizationUsed")
        .withArgs(walletAddress, walletAuth.nonce);
    });

    it("attack: the wallet key's own ECDSA signature does not stand for the wallet when the wallet refuses it", async () => {
      const { sync, key, wallet, walletAuth, relayer } = await loadFixture(contractWalletHolder);
      await wallet.connect(key).setAccepting(false);
      // A signature the key makes recovers to the key, never to the wallet's address: only EIP-1271 can speak.
      await expect(submit(sync, relayer, walletAuth, await sign(key, await domainOf(sync), walletAuth)))
        .to.be.revertedWithCustomError(sync, "InvalidAuthorization")
        .withArgs(await wallet.getAddress());
    });
  });

  describe("operators on the synchronous vault's exits", () => {
    it("an authorised operator redeems the owner's shares to its own address without an allowance", async () => {
      const { sync, usdc, holder, operator } = await loadFixture(operatorSet);
      const shares = (await sync.balanceOf(holder.address)) / 2n;
      const at = (await time.latest()) + 1;
      await time.setNextBlockTimestamp(at);
      const assets = await sync.previewRedeem(shares, { blockTag: "pending" });
      const before = await usdc.balanceOf(operator.address);
      const balance = await sync.balanceOf(holder.address);
      await expect(sync.connect(operator).redeem(shares, operator.address, holder.address))
        .to.emit(sync, "Withdraw")
        .withArgs(operator.address, operator.address, holder.address, assets, shares);
      expect((await usdc.balanceOf(operator.address)) - before).to.equal(assets);
      expect(await sync.balanceOf(holder.address)).to.equal(balance - shares);
      expect(await sync.allowance(holder.address, operator.address)).to.equal(0n);
    });

    it("an authorised operator withdraws and exits the whole position (redeemAll) without an allowance", async () => {
      const { sync, usdc, holder, operator } = await loadFixture(operatorSet);
      const at = (await time.latest()) + 1;
      await time.setNextBlockTimestamp(at);
      const assets = 100n * USDC;
      const shares = await sync.previewWithdraw(assets, { blockTag: "pending" });
      await expect(sync.connect(operator).withdraw(assets, operator.address, holder.address))
        .to.emit(sync, "Withdraw")
        .withArgs(operator.address, operator.address, holder.address, assets, shares);
      await time.setNextBlockTimestamp(at + 1);
      const [all, rest] = await Promise.all([
        sync.maxWithdraw(holder.address, { blockTag: "pending" }),
        sync.maxRedeem(holder.address, { blockTag: "pending" }),
      ]);
      const before = await usdc.balanceOf(operator.address);
      await expect(sync.connect(operator).redeemAll(operator.address, holder.address))
        .to.emit(sync, "Withdraw")
        .withArgs(operator.address, operator.address, holder.address, all, rest);
      expect((await usdc.balanceOf(operator.address)) - before).to.equal(all);
      expect(await sync.balanceOf(holder.address)).to.equal(0n);
    });

    it("an operator that also holds an allowance does not spend it", async () => {
      const { sync, a } = await loadFixture(keyOnlyHolder);
      await sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      await sync.connect(a.alice).approve(a.bob.address, 500n * 10n ** 12n);
      await sync.connect(a.alice).setOperator(a.bob.address, true);
      await sync.connect(a.bob).redeem(400n * 10n ** 12n, a.bob.address, a.alice.address);
      expect(await sync.allowance(a.alice.address, a.bob.address)).to.equal(500n * 10n ** 12n);
    });

    it("attack: a non-operator without allowance cannot redeem, withdraw or exit another holder's shares", async () => {
      const { sync, holder, relayer } = await loadFixture(operatorSet);
      const shares = await sync.balanceOf(holder.address);
      // The relayer that submitted the authorisation became nothing by it.
      await expect(sync.connect(relayer).redeem(shares, relayer.address, holder.address))
        .to.be.revertedWithCustomError(sync, "ERC20InsufficientAllowance")
        .withArgs(relayer.address, 0n, shares);
      const assets = 100n * USDC;
      await expect(
        sync.connect(relayer).withdraw(assets, relayer.address, holder.address),
      ).to.be.revertedWithCustomError(sync, "ERC20InsufficientAllowance");
      await expect(sync.connect(relayer).redeemAll(relayer.address, holder.address)).to.be.revertedWithCustomError(
        sync,
        "ERC20InsufficientAllowance",
      );
      expect(await sync.balanceOf(holder.address)).to.equal(shares);
    });

    it("attack: an operator of one holder cannot exit another holder's shares", async () => {
      const { sync, holder, operator, a } = await loadFixture(operatorSet);
      await sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      const shares = await sync.balanceOf(a.alice.address);
      await expect(sync.connect(operator).redeem(shares, operator.address, a.alice.address))
        .to.be.revertedWithCustomError(sync, "ERC20InsufficientAllowance")
        .withArgs(operator.address, 0n, shares);
      expect(await sync.isOperator(holder.address, operator.address)).to.equal(true);
    });

    it("attack: an operator taken back by signature is refused again", async () => {
      const { sync, holder, auth, relayer, operator } = await loadFixture(operatorSet);
      const revoke = { ...auth, approved: false, nonce: ethers.id("nonce 2") };
      await submit(sync, relayer, revoke, await sign(holder, await domainOf(sync), revoke));
      const shares = await sync.balanceOf(holder.address);
      await expect(sync.connect(operator).redeem(shares, operator.address, holder.address))
        .to.be.revertedWithCustomError(sync, "ERC20InsufficientAllowance")
        .withArgs(operator.address, 0n, shares);
    });
  });

  describe("operators on the asynchronous vault", () => {
    it("a relayed authorisation lets the operator request, and claim to itself, for a holder without ETH", async () => {
      const { async, usdc, holder, auth, relayer, operator } = await loadFixture(keyOnlyHolder);
      await submit(async, relayer, auth, await sign(holder, await domainOf(async), auth));
      const shares = await async.balanceOf(holder.address);
      await expect(async.connect(operator).requestRedeem(shares, holder.address, holder.address))
        .to.emit(async, "RedeemRequest")
        .withArgs(holder.address, holder.address, 0n, operator.address, shares);
      await time.increase(2 * HOUR);
      await async.connect(relayer).fulfillRedeem(holder.address);
      const claimable = await async.maxWithdraw(holder.address);
      const before = await usdc.balanceOf(operator.address);
      await async.connect(operator).redeem(shares, operator.address, holder.address);
      expect((await usdc.balanceOf(operator.address)) - before).to.equal(claimable);
      expect(await ethers.provider.getBalance(holder.address)).to.equal(0n);
    });
  });

  it("property: only the exact message its controller signed, before its deadline, sets an operator, once", async () => {
    const { sync, holder, auth, relayer, a } = await loadFixture(keyOnlyHolder);
    const domain = await domainOf(sync);
    const tampers = ["none", "operator", "approved", "nonce", "deadline", "controller", "signer", "chain", "vault"];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...tampers),
        fc.boolean(),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.integer({ min: -5, max: 3_600 }),
        async (tamper, approved, nonceBytes, secondsLeft) => {
          await loadFixture(keyOnlyHolder);
          const now = await time.latest();
          const signed: Authorization = {
            ...auth,
            approved,
            nonce: ethers.hexlify(nonceBytes),
            deadline: BigInt(now + secondsLeft),
          };
          let sent = signed;
          let signer: Signer = holder;
          let signedDomain = domain;
          if (tamper === "operator") sent = { ...signed, operator: a.carol.address };
          if (tamper === "approved") sent = { ...signed, approved: !approved };
          if (tamper === "nonce") sent = { ...signed, nonce: ethers.id(signed.nonce) };
          if (tamper === "deadline") sent = { ...signed, deadline: signed.deadline + 1n };
          if (tamper === "controller") sent = { ...signed, controller: a.alice.address };
          if (tamper === "signer") signer = a.alice;
          if (tamper === "chain") signedDomain = { ...domain, chainId: 1n };
          if (tamper === "vault") signedDomain = { ...domain, verifyingContract: a.deployer.address };
          const signature = await sign(signer, signedDomain, signed);
          await time.setNextBlockTimestamp(now + 1);
          const expired = now + 1 > Number(sent.deadline);
          const tx = submit(sync, relayer, sent, signature);
          if (expired) {
            await expect(tx).to.be.revertedWithCustomError(sync, "AuthorizationExpired").withArgs(sent.deadline);
          } else if (tamper !== "none") {
            await expect(tx).to.be.revertedWithCustomError(sync, "InvalidAuthorization").withArgs(sent.controller);
          } else {
            await expect(tx).to.emit(sync, "OperatorSet").withArgs(holder.address, auth.operator, approved);
            await expect(submit(sync, relayer, sent, signature))
              .to.be.revertedWithCustomError(sync, "AuthorizationUsed")
              .withArgs(holder.address, sent.nonce);
          }
          const operatorNow = await sync.isOperator(holder.address, auth.operator);
          expect(operatorNow).to.equal(tamper === "none" && !expired && approved);
          expect(await sync.isOperator(holder.address, a.carol.address)).to.equal(false);
          expect(await sync.isOperator(a.alice.address, auth.operator)).to.equal(false);
          expect(await sync.authorizations(holder.address, sent.nonce)).to.equal(tamper === "none" && !expired);
        },
      ),
      { numRuns: 40 },
    );
  });
});
