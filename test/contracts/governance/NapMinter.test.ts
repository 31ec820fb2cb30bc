import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { join } from "node:path";
import type { NapMinter, NapToken } from "../../../typechain-types";
import { readParameters } from "../../../deploy/parameters";

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

  it("starts with the supply rule's defaults, a window supply read from the token and an event", async () => {
    const { minter, deployedAt } = await loadFixture(deployMinter);
    await expect(minter.deploymentTransaction())
      .to.emit(minter, "SupplyLimitSet")
      .withArgs(100n, 1_000n * E18, 10_000n);
    expect(await minter.supplyBps()).to.equal(100n);
    expect(await minter.floor()).to.equal(1_000n * E18);
    expect(await minter.recipientBps()).to.equal(10_000n);
    expect(await minter.windowSupply()).to.equal(1_000_000n * E18);
    // 1% of 1,000,000 NAP is 10,000 NAP: the fixed budget of 1,000 NAP binds.
    expect(await minter.windowLimit()).to.equal(BUDGET);
    expect(await minter.availableTo(ethers.ZeroAddress)).to.deep.equal([BUDGET, BigInt(deployedAt + PERIOD)]);
    expect(await minter.MAX_SUPPLY_BPS()).to.equal(1_000n);
    expect(await minter.MAX_FLOOR()).to.equal(100_000n * E18);
  });

  it("agents-only supply gives the relayer a majority: the relayer's hot key cannot mint itself a majority within one proposal's delays", async () => {
    // The review's attack: napInitialSupply 0, a daily budget of 10,000 NAP, ten agents get their 100 NAP grants,
    // then the relayer's key mints the rest of the window to itself and keeps minting for a whole proposal.
    const [admin, relayer, ...rest] = await ethers.getSigners();
    const agents = rest.slice(0, 10);
    const token = (await ethers.deployContract("NapToken", [
      admin.address,
      admin.address,
      0n,
      1_000_000_000n * E18,
    ])) as unknown as NapToken;
    const minter = (await ethers.deployContract("NapMinter", [
      admin.address,
      await token.getAddress(),
      10_000n * E18,
      PERIOD,
    ])) as unknown as NapMinter;
    const start = BigInt(await time.latest());
    await token.grantRole(await token.MINTER_ROLE(), await minter.getAddress());
    await minter.grantRole(await minter.MINTER_ROLE(), relayer.address);

    // A token with no supply may mint up to the floor in its first window: the ten grants.
    for (const agent of agents) await minter.connect(relayer).mint(agent.address, 100n * E18);
    await expect(minter.connect(relayer).mint(relayer.address, 9_000n * E18))
      .to.be.revertedWithCustomError(minter, "NapMinterBudgetExceeded")
      .withArgs(9_000n * E18, 0n, start + BigInt(PERIOD));
    expect(await minter.windowLimit()).to.equal(1_000n * E18);

    // Every window one proposal touches (the local chain's voting delay, voting period and timelock delay, counted
    // as the deployment check counts them): the relayer mints all the window allows to itself.
    const g = (await readParameters(join(__dirname, "../../../ignition/parameters/localhost.json5"))).Governance;
    const windows = Math.ceil((g.votingDelay + g.votingPeriod + g.timelockMinDelay) / PERIOD) + 1;
    expect(windows).to.equal(4);
    let expected = 0n;
    for (let i = 1; i <= windows; i++) {
      await time.increaseTo(start + BigInt(i * PERIOD));
      const supply = await token.totalSupply();
      const [left] = await minter.available();
      // Past the floor, a window mints 1% of the supply it opened with.
      expect(left).to.equal(supply / 100n);
      await minter.connect(relayer).mint(relayer.address, left);
      await expect(minter.connect(relayer).mint(relayer.address, 1n)).to.be.revertedWithCustomError(
        minter,
        "NapMinterBudgetExceeded",
      );
      expected += left;
    }
    const votes = await token.getVotes(relayer.address);
    const supply = await token.totalSupply();
    expect(votes).to.equal(expected);
    // 10 + 10.1 + 10.201 + 10.30301 NAP: 40.60401 of 1,040.60401 NAP (3.90%), against 9,000 of 10,000 before.
    expect(votes).to.equal(40_604_010_000_000_000_000n);
    expect(supply).to.equal(1_040_604_010_000_000_000_000n);
    expect(votes * 100n).to.be.lessThan(supply * BigInt(g.quorumPercent));
    expect(votes * 2n).to.be.lessThan(supply);
  });

  it("bounds what one recipient receives in a window by recipientBps of the window's limit", async () => {
    const { minter, admin, relayer, agent, other, deployedAt } = await loadFixture(deployMinter);
    await expect(minter.connect(admin).setSupplyLimit(100n, 1_000n * E18, 2_500n))
      .to.emit(minter, "SupplyLimitSet")
      .withArgs(100n, 1_000n * E18, 2_500n);
    const resetsAt = BigInt(deployedAt + PERIOD);
    await minter.connect(relayer).mint(agent.address, 200n * E18);
    expect(await minter.availableTo(agent.address)).to.deep.equal([50n * E18, resetsAt]);
    await expect(minter.connect(relayer).mint(agent.address, 50n * E18 + 1n))
      .to.be.revertedWithCustomError(minter, "NapMinterRecipientShareExceeded")
      .withArgs(agent.address, 50n * E18 + 1n, 50n * E18, resetsAt);
    await minter.connect(relayer).mint(agent.address, 50n * E18);
    await expect(minter.connect(relayer).mint(agent.address, 1n))
      .to.be.revertedWithCustomError(minter, "NapMinterRecipientShareExceeded")
      .withArgs(agent.address, 1n, 0n, resetsAt);
    // Another recipient has its own share; the window's limit still binds all of them.
    await minter.connect(relayer).mint(other.address, 250n * E18);
    expect(await minter.available()).to.deep.equal([500n * E18, resetsAt]);
    // The next window gives the recipient a new share.
    await time.increaseTo(resetsAt);
    expect(await minter.availableTo(agent.address)).to.deep.equal([250n * E18, resetsAt + BigInt(PERIOD)]);
    await minter.connect(relayer).mint(agent.address, 250n * E18);
  });

  it("bounds a window by the supply it opened with: a share of it, or up to the floor, never above the budget", async () => {
    const [admin, relayer, agent] = await ethers.getSigners();
    const token = (await ethers.deployContract("NapToken", [
      admin.address,
      admin.address,
      200n * E18,
      1_000_000_000n * E18,
    ])) as unknown as NapToken;
    const minter = (await ethers.deployContract("NapMinter", [
      admin.address,
      await token.getAddress(),
      5_000n * E18,
      PERIOD,
    ])) as unknown as NapMinter;
    const start = BigInt(await time.latest());
    await token.grantRole(await token.MINTER_ROLE(), await minter.getAddress());
    await minter.grantRole(await minter.MINTER_ROLE(), relayer.address);
    // 200 NAP of supply: the window may bring it up to the 1,000 NAP floor.
    expect(await minter.windowSupply()).to.equal(200n * E18);
    expect(await minter.available()).to.deep.equal([800n * E18, start + BigInt(PERIOD)]);
    await minter.connect(relayer).mint(agent.address, 800n * E18);
    // Governance raises the share to 10% and the floor to 3,000 NAP: the open window counts from its own supply.
    await minter.connect(admin).setSupplyLimit(1_000n, 3_000n * E18, 10_000n);
    expect(await minter.windowLimit()).to.equal(2_800n * E18);
    expect(await minter.available()).to.deep.equal([2_000n * E18, start + BigInt(PERIOD)]);
    await minter.connect(relayer).mint(agent.address, 2_000n * E18);
    // The next window opens with 3,000 NAP: max(300, 0) NAP.
    await time.increaseTo(start + BigInt(PERIOD));
    expect(await minter.windowSupply()).to.equal(3_000n * E18);
    expect(await minter.windowLimit()).to.equal(300n * E18);
    // A change of budget keeps the window's supply (and count): no second limit in the same window.
    await minter.connect(relayer).mint(agent.address, 100n * E18);
    await minter.connect(admin).setBudget(5_000n * E18, PERIOD);
    expect(await minter.windowSupply()).to.equal(3_000n * E18);
    expect(await minter.available()).to.deep.equal([200n * E18, BigInt(await time.latest()) + BigInt(PERIOD)]);
    // With a floor of 100,000 NAP the budget binds.
    await minter.connect(admin).setSupplyLimit(1n, 100_000n * E18, 10_000n);
    expect(await minter.windowLimit()).to.equal(5_000n * E18);
  });

  it("refuses supply settings outside their bounds, and from anyone but the admin", async () => {
    const { minter, admin, relayer } = await loadFixture(deployMinter);
    await expect(minter.connect(admin).setSupplyLimit(0n, 0n, 1n))
      .to.be.revertedWithCustomError(minter, "NapMinterSupplyLimitOutOfBounds")
      .withArgs("supplyBps", 0n, 1n, 1_000n);
    await expect(minter.connect(admin).setSupplyLimit(1_001n, 0n, 1n))
      .to.be.revertedWithCustomError(minter, "NapMinterSupplyLimitOutOfBounds")
      .withArgs("supplyBps", 1_001n, 1n, 1_000n);
    await expect(minter.connect(admin).setSupplyLimit(1n, 100_000n * E18 + 1n, 1n))
      .to.be.revertedWithCustomError(minter, "NapMinterSupplyLimitOutOfBounds")
      .withArgs("floor", 100_000n * E18 + 1n, 0n, 100_000n * E18);
    await expect(minter.connect(admin).setSupplyLimit(1n, 0n, 0n))
      .to.be.revertedWithCustomError(minter, "NapMinterSupplyLimitOutOfBounds")
      .withArgs("recipientBps", 0n, 1n, 10_000n);
    await expect(minter.connect(admin).setSupplyLimit(1n, 0n, 10_001n))
      .to.be.revertedWithCustomError(minter, "NapMinterSupplyLimitOutOfBounds")
      .withArgs("recipientBps", 10_001n, 1n, 10_000n);
    await expect(minter.connect(relayer).setSupplyLimit(1n, 0n, 1n))
      .to.be.revertedWithCustomError(minter, "AccessControlUnauthorizedAccount")
      .withArgs(relayer.address, ethers.ZeroHash);
    await expect(minter.connect(admin).setSupplyLimit(1_000n, 0n, 10_000n))
      .to.emit(minter, "SupplyLimitSet")
      .withArgs(1_000n, 0n, 10_000n);
  });
});
