import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import type { NapMinter, NapToken } from "../../../typechain-types";

const E18 = 10n ** 18n;
const BUDGET = 1_000n * E18;
const PERIOD = 86_400;

async function deployMinter() {
  const [admin, relayer, agent, other, stranger] = await ethers.getSigners();
  const token = (await ethers.deployContract("NapToken", [
    admin.address,
    admin.address,
    1_000_000n * E18,
    1_000_000_000n * E18,
  ])) as unknown as NapToken;
  const minter = (await ethers.deployContract("NapMinter", [
    admin.address,
    await token.getAddress(),
    BUDGET,
    PERIOD,
  ])) as unknown as NapMinter;
  const deployedAt = await time.latest();
  await token.grantRole(await token.MINTER_ROLE(), await minter.getAddress());
  await minter.grantRole(await minter.MINTER_ROLE(), relayer.address);
  return { token, minter, admin, relayer, agent, other, stranger, deployedAt };
}

describe("NapMinter", () => {
  it("is configured with the token, budget, period and a window starting at deployment, with an event", async () => {
    const { token, minter, deployedAt } = await loadFixture(deployMinter);
    await expect(minter.deploymentTransaction()).to.emit(minter, "BudgetSet").withArgs(BUDGET, PERIOD);
    expect(await minter.token()).to.equal(await token.getAddress());
    expect(await minter.budget()).to.equal(BUDGET);
    expect(await minter.period()).to.equal(BigInt(PERIOD));
    expect(await minter.windowStart()).to.equal(BigInt(deployedAt));
    expect(await minter.mintedInWindow()).to.equal(0n);
    expect(await minter.available()).to.deep.equal([BUDGET, BigInt(deployedAt + PERIOD)]);
    expect(await minter.MIN_PERIOD()).to.equal(3_600n);
    expect(await minter.MAX_PERIOD()).to.equal(365n * 86_400n);
  });

  it("mints a grant through the token for MINTER_ROLE, with events, and counts it in the window", async () => {
    const { token, minter, relayer, agent, deployedAt } = await loadFixture(deployMinter);
    const tx = minter.connect(relayer).mint(agent.address, 100n * E18);
    await expect(tx)
      .to.emit(minter, "GrantMinted")
      .withArgs(relayer.address, agent.address, 100n * E18, 100n * E18);
    await expect(tx)
      .to.emit(token, "NapMinted")
      .withArgs(await minter.getAddress(), agent.address, 100n * E18);
    expect(await token.balanceOf(agent.address)).to.equal(100n * E18);
    expect(await token.getVotes(agent.address)).to.equal(100n * E18);
    expect(await minter.mintedInWindow()).to.equal(100n * E18);
    expect(await minter.available()).to.deep.equal([BUDGET - 100n * E18, BigInt(deployedAt + PERIOD)]);
  });

  it("refuses a mint above what is left of the budget until the next window, which starts on the period grid", async () => {
    const { minter, relayer, agent, deployedAt } = await loadFixture(deployMinter);
    await minter.connect(relayer).mint(agent.address, BUDGET - 1n);
    await expect(minter.connect(relayer).mint(agent.address, 2n))
      .to.be.revertedWithCustomError(minter, "NapMinterBudgetExceeded")
      .withArgs(2n, 1n, deployedAt + PERIOD);
    await minter.connect(relayer).mint(agent.address, 1n);
    // Three and a half periods later: the window is the fourth after the first, and empty.
    await time.increaseTo(deployedAt + 3 * PERIOD + PERIOD / 2);
    expect(await minter.windowStart()).to.equal(BigInt(deployedAt + 3 * PERIOD));
    expect(await minter.mintedInWindow()).to.equal(0n);
    await expect(minter.connect(relayer).mint(agent.address, BUDGET))
      .to.emit(minter, "GrantMinted")
      .withArgs(relayer.address, agent.address, BUDGET, BUDGET);
    await expect(minter.connect(relayer).mint(agent.address, 1n))
      .to.be.revertedWithCustomError(minter, "NapMinterBudgetExceeded")
      .withArgs(1n, 0n, deployedAt + 4 * PERIOD);
  });

  it("passes on the token's errors (zero recipient, cap)", async () => {
    const { token, minter, relayer } = await loadFixture(deployMinter);
    await expect(minter.connect(relayer).mint(ethers.ZeroAddress, 1n)).to.be.revertedWithCustomError(
      token,
      "NapTokenZeroRecipient",
    );
  });

  it("refuses mint to anyone without MINTER_ROLE, and budget changes to anyone but the admin", async () => {
    const { minter, stranger, relayer, agent } = await loadFixture(deployMinter);
    await expect(minter.connect(stranger).mint(agent.address, 1n))
      .to.be.revertedWithCustomError(minter, "AccessControlUnauthorizedAccount")
      .withArgs(stranger.address, await minter.MINTER_ROLE());
    await expect(minter.connect(relayer).setBudget(10n ** 30n, PERIOD))
      .to.be.revertedWithCustomError(minter, "AccessControlUnauthorizedAccount")
      .withArgs(relayer.address, ethers.ZeroHash);
  });

  it("lets governance change budget and period: a new window starts now and keeps what was minted", async () => {
    const { minter, admin, relayer, agent } = await loadFixture(deployMinter);
    await minter.connect(relayer).mint(agent.address, 600n * E18);
    // Lowered below what was minted: nothing more in this window.
    await expect(minter.connect(admin).setBudget(500n * E18, 7_200))
      .to.emit(minter, "BudgetSet")
      .withArgs(500n * E18, 7_200);
    const changedAt = await time.latest();
    expect(await minter.windowStart()).to.equal(BigInt(changedAt));
    expect(await minter.mintedInWindow()).to.equal(600n * E18);
    expect(await minter.available()).to.deep.equal([0n, BigInt(changedAt + 7_200)]);
    await expect(minter.connect(relayer).mint(agent.address, 1n))
      .to.be.revertedWithCustomError(minter, "NapMinterBudgetExceeded")
      .withArgs(1n, 0n, changedAt + 7_200);
    await time.increaseTo(changedAt + 7_200);
    await minter.connect(relayer).mint(agent.address, 500n * E18);
    expect(await minter.mintedInWindow()).to.equal(500n * E18);
  });

  it("refuses a period outside 1 hour .. 365 days and a budget wider than its storage", async () => {
    const { minter, admin } = await loadFixture(deployMinter);
    await expect(minter.connect(admin).setBudget(1n, 3_599))
      .to.be.revertedWithCustomError(minter, "NapMinterPeriodOutOfBounds")
      .withArgs(3_599, 3_600, 365 * 86_400);
    await expect(minter.connect(admin).setBudget(1n, 365 * 86_400 + 1))
      .to.be.revertedWithCustomError(minter, "NapMinterPeriodOutOfBounds")
      .withArgs(365 * 86_400 + 1, 3_600, 365 * 86_400);
    const max208 = (1n << 208n) - 1n;
    await expect(minter.connect(admin).setBudget(max208 + 1n, PERIOD))
      .to.be.revertedWithCustomError(minter, "NapMinterBudgetOutOfBounds")
      .withArgs(max208 + 1n, max208);
    await minter.connect(admin).setBudget(max208, 3_600);
    expect(await minter.budget()).to.equal(max208);
  });
});
