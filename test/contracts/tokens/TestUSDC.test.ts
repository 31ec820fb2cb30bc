import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";

const ONE_USDC = 1_000_000n;

async function deployTestUSDC() {
  const [admin, minter, alice, bob] = await ethers.getSigners();
  const usdc = await ethers.deployContract("TestUSDC", [admin.address]);
  await usdc.grantRole(await usdc.MINTER_ROLE(), minter.address);
  return { usdc, admin, minter, alice, bob };
}

describe("TestUSDC", () => {
  describe("metadata", () => {
    it("has the name, symbol and 6 decimals of USDC", async () => {
      const { usdc } = await loadFixture(deployTestUSDC);
      expect(await usdc.name()).to.equal("USD Coin (test)");
      expect(await usdc.symbol()).to.equal("USDC");
      expect(await usdc.decimals()).to.equal(6n);
      expect(await usdc.totalSupply()).to.equal(0n);
    });

    it("gives the admin both the admin role and the minter role", async () => {
      const { usdc, admin } = await loadFixture(deployTestUSDC);
      expect(await usdc.hasRole(await usdc.DEFAULT_ADMIN_ROLE(), admin.address)).to.equal(true);
      expect(await usdc.hasRole(await usdc.MINTER_ROLE(), admin.address)).to.equal(true);
    });
  });

  describe("mint", () => {
    it("credits the recipient and the supply exactly and emits Transfer and Minted", async () => {
      const { usdc, minter, alice } = await loadFixture(deployTestUSDC);
      await expect(usdc.connect(minter).mint(alice.address, 250n * ONE_USDC))
        .to.emit(usdc, "Transfer")
        .withArgs(ethers.ZeroAddress, alice.address, 250n * ONE_USDC)
        .and.to.emit(usdc, "Minted")
        .withArgs(minter.address, alice.address, 250n * ONE_USDC);
      expect(await usdc.balanceOf(alice.address)).to.equal(250_000_000n);
      expect(await usdc.totalSupply()).to.equal(250_000_000n);
    });

    it("rejects a caller without the minter role with the role it lacks", async () => {
      const { usdc, alice } = await loadFixture(deployTestUSDC);
      await expect(usdc.connect(alice).mint(alice.address, ONE_USDC))
        .to.be.revertedWithCustomError(usdc, "AccessControlUnauthorizedAccount")
        .withArgs(alice.address, await usdc.MINTER_ROLE());
    });

    it("rejects the zero recipient", async () => {
      const { usdc, minter } = await loadFixture(deployTestUSDC);
      await expect(usdc.connect(minter).mint(ethers.ZeroAddress, ONE_USDC)).to.be.revertedWithCustomError(
        usdc,
        "TestUSDCZeroRecipient",
      );
    });

    it("rejects a zero amount", async () => {
      const { usdc, minter, alice } = await loadFixture(deployTestUSDC);
      await expect(usdc.connect(minter).mint(alice.address, 0n)).to.be.revertedWithCustomError(
        usdc,
        "TestUSDCZeroAmount",
      );
    });

    it("stops minting once the admin revokes the role", async () => {
      const { usdc, admin, minter, alice } = await loadFixture(deployTestUSDC);
      const role = await usdc.MINTER_ROLE();
      await expect(usdc.connect(admin).revokeRole(role, minter.address))
        .to.emit(usdc, "RoleRevoked")
        .withArgs(role, minter.address, admin.address);
      await expect(usdc.connect(minter).mint(alice.address, ONE_USDC))
        .to.be.revertedWithCustomError(usdc, "AccessControlUnauthorizedAccount")
        .withArgs(minter.address, role);
    });
  });

  describe("permit (EIP-2612)", () => {
    async function signPermit(
      usdc: Awaited<ReturnType<typeof deployTestUSDC>>["usdc"],
      owner: Awaited<ReturnType<typeof deployTestUSDC>>["alice"],
      spender: string,
      value: bigint,
      deadline: bigint,
    ) {
      const { chainId } = await ethers.provider.getNetwork();
      const domain = {
        name: "USD Coin (test)",
        version: "1",
        chainId,
        verifyingContract: await usdc.getAddress(),
      };
      const types = {
        Permit: [
          { name: "owner", type: "address" },
          { name: "spender", type: "address" },
          { name: "value", type: "uint256" },
          { name: "nonce", type: "uint256" },
          { name: "deadline", type: "uint256" },
        ],
      };
      const nonce = await usdc.nonces(owner.address);
      const signature = await owner.signTypedData(domain, types, {
        owner: owner.address,
        spender,
        value,
        nonce,
        deadline,
      });
      return ethers.Signature.from(signature);
    }

    it("sets the allowance from a signature and advances the nonce", async () => {
      const { usdc, alice, bob } = await loadFixture(deployTestUSDC);
      const deadline = BigInt((await ethers.provider.getBlock("latest"))!.timestamp + 3600);
      const sig = await signPermit(usdc, alice, bob.address, 42n * ONE_USDC, deadline);
      await expect(usdc.permit(alice.address, bob.address, 42n * ONE_USDC, deadline, sig.v, sig.r, sig.s))
        .to.emit(usdc, "Approval")
        .withArgs(alice.address, bob.address, 42_000_000n);
      expect(await usdc.allowance(alice.address, bob.address)).to.equal(42_000_000n);
      expect(await usdc.nonces(alice.address)).to.equal(1n);
    });

    it("rejects a replayed signature as signed by someone else", async () => {
      const { usdc, alice, bob } = await loadFixture(deployTestUSDC);
      const deadline = BigInt((await ethers.provider.getBlock("latest"))!.timestamp + 3600);
      const sig = await signPermit(usdc, alice, bob.address, ONE_USDC, deadline);
      await usdc.permit(alice.address, bob.address, ONE_USDC, deadline, sig.v, sig.r, sig.s);
      await expect(
        usdc.permit(alice.address, bob.address, ONE_USDC, deadline, sig.v, sig.r, sig.s),
      ).to.be.revertedWithCustomError(usdc, "ERC2612InvalidSigner");
    });

    it("rejects an expired permit with its deadline", async () => {
      const { usdc, alice, bob } = await loadFixture(deployTestUSDC);
      const deadline = BigInt((await ethers.provider.getBlock("latest"))!.timestamp - 1);
      const sig = await signPermit(usdc, alice, bob.address, ONE_USDC, deadline);
      await expect(usdc.permit(alice.address, bob.address, ONE_USDC, deadline, sig.v, sig.r, sig.s))
        .to.be.revertedWithCustomError(usdc, "ERC2612ExpiredSignature")
        .withArgs(deadline);
    });
  });
});
