import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import type { NapToken } from "../../../typechain-types";

const E18 = 10n ** 18n;
const CAP = 1_000_000_000n * E18;

async function deployToken() {
  const [admin, holder, minter, agent, other, stranger] = await ethers.getSigners();
  const token = (await ethers.deployContract("NapToken", [
    admin.address,
    holder.address,
    1000n * E18,
    CAP,
  ])) as unknown as NapToken;
  await token.grantRole(await token.MINTER_ROLE(), minter.address);
  return { token, admin, holder, minter, agent, other, stranger };
}

describe("NapToken", () => {
  it("mints the initial supply to the holder, who self-delegates", async () => {
    const { token, holder } = await loadFixture(deployToken);
    expect(await token.name()).to.equal("NAP Governance");
    expect(await token.symbol()).to.equal("NAP");
    expect(await token.decimals()).to.equal(18n);
    expect(await token.totalSupply()).to.equal(1000n * E18);
    expect(await token.cap()).to.equal(CAP);
    expect(await token.delegates(holder.address)).to.equal(holder.address);
    expect(await token.getVotes(holder.address)).to.equal(1000n * E18);
  });

  it("runs a timestamp clock (ERC-6372)", async () => {
    const { token } = await loadFixture(deployToken);
    expect(await token.CLOCK_MODE()).to.equal("mode=timestamp");
    expect(await token.clock()).to.equal(BigInt(await time.latest()));
  });

  it("deploys with no initial supply", async () => {
    const [admin] = await ethers.getSigners();
    const token = await ethers.deployContract("NapToken", [admin.address, ethers.ZeroAddress, 0n, CAP]);
    expect(await token.totalSupply()).to.equal(0n);
  });

  it("mints by MINTER_ROLE with an event; the recipient gets votes without a delegate transaction", async () => {
    const { token, minter, agent } = await loadFixture(deployToken);
    const tx = token.connect(minter).mint(agent.address, 5n * E18);
    await expect(tx)
      .to.emit(token, "NapMinted")
      .withArgs(minter.address, agent.address, 5n * E18);
    await expect(tx).to.emit(token, "DelegateChanged").withArgs(agent.address, ethers.ZeroAddress, agent.address);
    await expect(tx)
      .to.emit(token, "DelegateVotesChanged")
      .withArgs(agent.address, 0n, 5n * E18);
    const at = await time.latest();
    expect(await token.getVotes(agent.address)).to.equal(5n * E18);
    await time.increase(1);
    expect(await token.getPastVotes(agent.address, at)).to.equal(5n * E18);
  });

  it("self-delegates on first receipt by transfer, and keeps an explicit delegation afterwards", async () => {
    const { token, holder, agent, other } = await loadFixture(deployToken);
    await token.connect(holder).transfer(agent.address, 10n * E18);
    expect(await token.delegates(agent.address)).to.equal(agent.address);
    expect(await token.getVotes(agent.address)).to.equal(10n * E18);
    expect(await token.getVotes(holder.address)).to.equal(990n * E18);
    await token.connect(agent).delegate(other.address);
    await token.connect(holder).transfer(agent.address, 1n * E18);
    expect(await token.delegates(agent.address)).to.equal(other.address);
    expect(await token.getVotes(other.address)).to.equal(11n * E18);
    expect(await token.getVotes(agent.address)).to.equal(0n);
  });

  it("refuses a mint above the cap, to zero, and by a non-minter", async () => {
    const { token, minter, agent, stranger } = await loadFixture(deployToken);
    const tooMuch = CAP - 1000n * E18 + 1n;
    await expect(token.connect(minter).mint(agent.address, tooMuch))
      .to.be.revertedWithCustomError(token, "NapTokenCapExceeded")
      .withArgs(tooMuch, CAP + 1n, CAP);
    await token.connect(minter).mint(agent.address, tooMuch - 1n);
    expect(await token.totalSupply()).to.equal(CAP);
    await expect(token.connect(minter).mint(ethers.ZeroAddress, 1n)).to.be.revertedWithCustomError(
      token,
      "NapTokenZeroRecipient",
    );
    await expect(token.connect(stranger).mint(agent.address, 1n))
      .to.be.revertedWithCustomError(token, "AccessControlUnauthorizedAccount")
      .withArgs(stranger.address, await token.MINTER_ROLE());
  });

  it("refuses an initial supply above the cap", async () => {
    const [admin] = await ethers.getSigners();
    const factory = await ethers.getContractFactory("NapToken");
    await expect(factory.deploy(admin.address, admin.address, 2n, 1n))
      .to.be.revertedWithCustomError(factory, "NapTokenCapExceeded")
      .withArgs(2n, 2n, 1n);
  });

  it("accepts an EIP-2612 permit and counts its nonce", async () => {
    const { token, holder, other } = await loadFixture(deployToken);
    const { chainId } = await ethers.provider.getNetwork();
    const deadline = (await time.latest()) + 3600;
    const signature = await holder.signTypedData(
      {
        name: "NAP Governance",
        version: "1",
        chainId,
        verifyingContract: await token.getAddress(),
      },
      {
        Permit: [
          { name: "owner", type: "address" },
          { name: "spender", type: "address" },
          { name: "value", type: "uint256" },
          { name: "nonce", type: "uint256" },
          { name: "deadline", type: "uint256" },
        ],
      },
      {
        owner: holder.address,
        spender: other.address,
        value: 7n,
        nonce: 0n,
        deadline,
      },
    );
    const { v, r, s } = ethers.Signature.from(signature);
    await token.permit(holder.address, other.address, 7n, deadline, v, r, s);
    expect(await token.allowance(holder.address, other.address)).to.equal(7n);
    expect(await token.nonces(holder.address)).to.equal(1n);
  });
});
