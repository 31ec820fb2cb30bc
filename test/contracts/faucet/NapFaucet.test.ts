import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import type { NapFaucet, TestUSDC } from "../../../typechain-types";

const DAY = 24 * 3600;
const ETH_DRIP = ethers.parseEther("0.01");
const USDC_DRIP = 1_000n * 10n ** 6n;

async function deployMintingFaucet() {
  const [admin, dripper, agent, other, stranger] = await ethers.getSigners();
  const usdc = (await ethers.deployContract("TestUSDC", [admin.address])) as unknown as TestUSDC;
  const faucet = (await ethers.deployContract("NapFaucet", [
    admin.address,
    await usdc.getAddress(),
    true,
    ETH_DRIP,
    USDC_DRIP,
    DAY,
  ])) as unknown as NapFaucet;
  await usdc.grantRole(await usdc.MINTER_ROLE(), await faucet.getAddress());
  await faucet.grantRole(await faucet.DRIPPER_ROLE(), dripper.address);
  await admin.sendTransaction({
    to: await faucet.getAddress(),
    value: ethers.parseEther("1"),
  });
  return { faucet, usdc, admin, dripper, agent, other, stranger };
}

async function deployHoldingFaucet() {
  const [admin, dripper, agent] = await ethers.getSigners();
  const usdc = (await ethers.deployContract("TestUSDC", [admin.address])) as unknown as TestUSDC;
  const faucet = (await ethers.deployContract("NapFaucet", [
    admin.address,
    await usdc.getAddress(),
    false,
    ETH_DRIP,
    USDC_DRIP,
    DAY,
  ])) as unknown as NapFaucet;
  await faucet.grantRole(await faucet.DRIPPER_ROLE(), dripper.address);
  await admin.sendTransaction({
    to: await faucet.getAddress(),
    value: ethers.parseEther("1"),
  });
  return { faucet, usdc, admin, dripper, agent };
}

describe("NapFaucet", () => {
  it("stores its configuration and emits the amount and cooldown events at deployment", async () => {
    const { faucet, usdc } = await loadFixture(deployMintingFaucet);
    await expect(faucet.deploymentTransaction()).to.emit(faucet, "DripAmountsSet").withArgs(ETH_DRIP, USDC_DRIP);
    await expect(faucet.deploymentTransaction()).to.emit(faucet, "CooldownSet").withArgs(DAY);
    await expect(faucet.deploymentTransaction())
      .to.emit(faucet, "BudgetSet")
      .withArgs(100n * ETH_DRIP, 100n * USDC_DRIP, DAY);
    expect(await faucet.usdc()).to.equal(await usdc.getAddress());
    expect(await faucet.usdcMintable()).to.equal(true);
    expect(await faucet.ethAmount()).to.equal(ETH_DRIP);
    expect(await faucet.usdcAmount()).to.equal(USDC_DRIP);
    expect(await faucet.cooldown()).to.equal(BigInt(DAY));
  });

  it("accepts funding by plain transfer with a Funded event", async () => {
    const { faucet, other } = await loadFixture(deployMintingFaucet);
    const to = await faucet.getAddress();
    await expect(other.sendTransaction({ to, value: 123n }))
      .to.emit(faucet, "Funded")
      .withArgs(other.address, 123n);
    expect(await ethers.provider.getBalance(to)).to.equal(ethers.parseEther("1") + 123n);
  });

  it("drips ETH and minted USDC, records the time and emits Dripped", async () => {
    const { faucet, usdc, dripper, agent } = await loadFixture(deployMintingFaucet);
    expect(await faucet.nextEligibleAt(agent.address)).to.equal(0n);
    expect(await faucet.connect(dripper).drip.staticCall(agent.address)).to.deep.equal([ETH_DRIP, USDC_DRIP]);
    const tx = faucet.connect(dripper).drip(agent.address);
    await expect(tx).to.changeEtherBalances([faucet, agent], [-ETH_DRIP, ETH_DRIP]);
    const ts = await time.latest();
    await expect(tx)
      .to.emit(faucet, "Dripped")
      .withArgs(agent.address, dripper.address, ETH_DRIP, USDC_DRIP, ts + DAY);
    await expect(tx)
      .to.emit(usdc, "Minted")
      .withArgs(await faucet.getAddress(), agent.address, USDC_DRIP);
    expect(await usdc.balanceOf(agent.address)).to.equal(USDC_DRIP);
    expect(await faucet.lastDripAt(agent.address)).to.equal(BigInt(ts));
    expect(await faucet.nextEligibleAt(agent.address)).to.equal(BigInt(ts + DAY));
  });

  it("refuses a second drip inside the cooldown with the next eligible time, and allows it at that time", async () => {
    const { faucet, dripper, agent, other } = await loadFixture(deployMintingFaucet);
    await faucet.connect(dripper).drip(agent.address);
    const first = await time.latest();
    // The cooldown is per recipient: another wallet is served meanwhile.
    await expect(faucet.connect(dripper).drip(other.address)).to.emit(faucet, "Dripped");
    await time.setNextBlockTimestamp(first + DAY - 1);
    await expect(faucet.connect(dripper).drip(agent.address))
      .to.be.revertedWithCustomError(faucet, "FaucetCooldown")
      .withArgs(agent.address, first + DAY);
    await time.setNextBlockTimestamp(first + DAY);
    await expect(faucet.connect(dripper).drip(agent.address))
      .to.emit(faucet, "Dripped")
      .withArgs(agent.address, dripper.address, ETH_DRIP, USDC_DRIP, first + 2 * DAY);
  });

  it("sends USDC from its balance when it is not a minter, and refuses when the balance is short", async () => {
    const { faucet, usdc, admin, dripper, agent } = await loadFixture(deployHoldingFaucet);
    await expect(faucet.connect(dripper).drip(agent.address))
      .to.be.revertedWithCustomError(faucet, "FaucetInsufficientUsdc")
      .withArgs(0, USDC_DRIP);
    await usdc.connect(admin).mint(await faucet.getAddress(), USDC_DRIP);
    await expect(faucet.connect(dripper).drip(agent.address)).to.changeTokenBalances(
      usdc,
      [faucet, agent],
      [-USDC_DRIP, USDC_DRIP],
    );
  });

  it("drips ETH only when the USDC amount is zero or there is no USDC token", async () => {
    const [admin, dripper, agent] = await ethers.getSigners();
    const faucet = await ethers.deployContract("NapFaucet", [admin.address, ethers.ZeroAddress, false, 5n, 0n, DAY]);
    await faucet.grantRole(await faucet.DRIPPER_ROLE(), dripper.address);
    await admin.sendTransaction({ to: await faucet.getAddress(), value: 10n });
    const at = (await time.latest()) + 1;
    await time.setNextBlockTimestamp(at);
    await expect(faucet.connect(dripper).drip(agent.address))
      .to.emit(faucet, "Dripped")
      .withArgs(agent.address, dripper.address, 5n, 0n, at + DAY);
  });

  it("drips USDC only when the ETH amount is zero", async () => {
    const { faucet, usdc, dripper, agent } = await loadFixture(deployMintingFaucet);
    await faucet.setDripAmounts(0n, USDC_DRIP);
    const tx = faucet.connect(dripper).drip(agent.address);
    await expect(tx).to.changeEtherBalances([faucet, agent], [0n, 0n]);
    await expect(tx).to.changeTokenBalance(usdc, agent, USDC_DRIP);
  });

  it("refuses a drip when it holds less ETH than the drip amount", async () => {
    const [admin, dripper, agent] = await ethers.getSigners();
    const faucet = await ethers.deployContract("NapFaucet", [admin.address, ethers.ZeroAddress, false, 5n, 0n, DAY]);
    await faucet.grantRole(await faucet.DRIPPER_ROLE(), dripper.address);
    await admin.sendTransaction({ to: await faucet.getAddress(), value: 4n });
    await expect(faucet.connect(dripper).drip(agent.address))
      .to.be.revertedWithCustomError(faucet, "FaucetInsufficientEth")
      .withArgs(4n, 5n);
  });

  it("refuses a drip to the zero address, to a wallet that rejects ETH, and by a non-dripper", async () => {
    const { faucet, dripper, stranger, agent } = await loadFixture(deployMintingFaucet);
    await expect(faucet.connect(dripper).drip(ethers.ZeroAddress)).to.be.revertedWithCustomError(
      faucet,
      "FaucetZeroAddress",
    );
    const rejecter = await ethers.deployContract("EtherRejecter");
    await expect(faucet.connect(dripper).drip(await rejecter.getAddress()))
      .to.be.revertedWithCustomError(faucet, "FaucetEthTransferFailed")
      .withArgs(await rejecter.getAddress(), ETH_DRIP);
    await expect(faucet.connect(stranger).drip(agent.address))
      .to.be.revertedWithCustomError(faucet, "AccessControlUnauthorizedAccount")
      .withArgs(stranger.address, await faucet.DRIPPER_ROLE());
  });

  it("lets the admin set amounts and cooldown within bounds; the cooldown applies to past drips", async () => {
    const { faucet, dripper, agent } = await loadFixture(deployMintingFaucet);
    await faucet.connect(dripper).drip(agent.address);
    const at = await time.latest();
    await expect(faucet.setDripAmounts(ethers.parseEther("1"), 10_000n * 10n ** 6n))
      .to.emit(faucet, "DripAmountsSet")
      .withArgs(ethers.parseEther("1"), 10_000n * 10n ** 6n);
    await expect(faucet.setCooldown(3600)).to.emit(faucet, "CooldownSet").withArgs(3600);
    expect(await faucet.nextEligibleAt(agent.address)).to.equal(BigInt(at + 3600));
    await expect(faucet.setCooldown(60)).to.emit(faucet, "CooldownSet").withArgs(60);
    await expect(faucet.setCooldown(30 * DAY))
      .to.emit(faucet, "CooldownSet")
      .withArgs(30 * DAY);
  });

  it("refuses amounts and cooldowns out of bounds", async () => {
    const { faucet } = await loadFixture(deployMintingFaucet);
    const oneEth = ethers.parseEther("1");
    await expect(faucet.setDripAmounts(oneEth + 1n, 0))
      .to.be.revertedWithCustomError(faucet, "FaucetAmountOutOfBounds")
      .withArgs("eth", oneEth + 1n, oneEth);
    await expect(faucet.setDripAmounts(0, 10_000n * 10n ** 6n + 1n))
      .to.be.revertedWithCustomError(faucet, "FaucetAmountOutOfBounds")
      .withArgs("usdc", 10_000n * 10n ** 6n + 1n, 10_000n * 10n ** 6n);
    await expect(faucet.setCooldown(59))
      .to.be.revertedWithCustomError(faucet, "FaucetCooldownOutOfBounds")
      .withArgs(59, 60, 30 * DAY);
    await expect(faucet.setCooldown(30 * DAY + 1))
      .to.be.revertedWithCustomError(faucet, "FaucetCooldownOutOfBounds")
      .withArgs(30 * DAY + 1, 60, 30 * DAY);
  });

  it("refuses a USDC amount when it has no USDC token", async () => {
    const [admin] = await ethers.getSigners();
    const factory = await ethers.getContractFactory("NapFaucet");
    await expect(factory.deploy(admin.address, ethers.ZeroAddress, false, 1n, 1n, DAY)).to.be.revertedWithCustomError(
      factory,
      "FaucetNoUsdc",
    );
  });

  it("lets the admin withdraw ETH and tokens, with events", async () => {
    const { faucet, usdc, admin, other } = await loadFixture(deployMintingFaucet);
    const withdrawal = faucet.withdrawEth(other.address, 100n);
    await expect(withdrawal).to.emit(faucet, "EthWithdrawn").withArgs(other.address, 100n);
    await expect(withdrawal).to.changeEtherBalances([faucet, other], [-100n, 100n]);
    await usdc.connect(admin).mint(await faucet.getAddress(), 7n);
    const tokenWithdrawal = faucet.withdrawToken(await usdc.getAddress(), other.address, 7n);
    await expect(tokenWithdrawal)
      .to.emit(faucet, "TokenWithdrawn")
      .withArgs(await usdc.getAddress(), other.address, 7n);
    await expect(tokenWithdrawal).to.changeTokenBalances(usdc, [faucet, other], [-7n, 7n]);
  });

  it("refuses withdrawals to zero, above the balance, to a rejecting wallet, or by a non-admin", async () => {
    const { faucet, usdc, stranger, other } = await loadFixture(deployMintingFaucet);
    const balance = await ethers.provider.getBalance(await faucet.getAddress());
    await expect(faucet.withdrawEth(ethers.ZeroAddress, 1n)).to.be.revertedWithCustomError(faucet, "FaucetZeroAddress");
    await expect(faucet.withdrawToken(await usdc.getAddress(), ethers.ZeroAddress, 1n)).to.be.revertedWithCustomError(
      faucet,
      "FaucetZeroAddress",
    );
    await expect(faucet.withdrawEth(other.address, balance + 1n))
      .to.be.revertedWithCustomError(faucet, "FaucetInsufficientEth")
      .withArgs(balance, balance + 1n);
    const rejecter = await ethers.deployContract("EtherRejecter");
    await expect(faucet.withdrawEth(await rejecter.getAddress(), 1n))
      .to.be.revertedWithCustomError(faucet, "FaucetEthTransferFailed")
      .withArgs(await rejecter.getAddress(), 1n);
    const adminRole = await faucet.DEFAULT_ADMIN_ROLE();
    for (const call of [
      () => faucet.connect(stranger).withdrawEth(stranger.address, 1n),
      () => faucet.connect(stranger).withdrawToken(ethers.ZeroAddress, stranger.address, 1n),
      () => faucet.connect(stranger).setDripAmounts(1n, 0n),
      () => faucet.connect(stranger).setCooldown(3600),
    ]) {
      await expect(call())
        .to.be.revertedWithCustomError(faucet, "AccessControlUnauthorizedAccount")
        .withArgs(stranger.address, adminRole);
    }
  });

  it("faucet drained by the relayer key: 500 drips to fresh addresses stop at the window's budget", async () => {
    // The review's attack: 0.5 ETH at 0.001 ETH a drip went to 0 in 500 drips to fresh addresses.
    const [admin, relayer] = await ethers.getSigners();
    const drip = ethers.parseEther("0.001");
    const faucet = (await ethers.deployContract("NapFaucet", [
      admin.address,
      ethers.ZeroAddress,
      false,
      drip,
      0n,
      DAY,
    ])) as unknown as NapFaucet;
    const start = BigInt(await time.latest());
    await faucet.grantRole(await faucet.DRIPPER_ROLE(), relayer.address);
    await admin.sendTransaction({ to: await faucet.getAddress(), value: ethers.parseEther("0.5") });
    let sent = 0;
    let refused = 0;
    for (let i = 0; i < 500; i++) {
      try {
        await faucet.connect(relayer).drip(ethers.Wallet.createRandom().address);
        sent++;
      } catch {
        refused++;
      }
    }
    expect([sent, refused]).to.deep.equal([100, 400]);
    await expect(faucet.connect(relayer).drip(ethers.Wallet.createRandom().address))
      .to.be.revertedWithCustomError(faucet, "FaucetBudgetExceeded")
      .withArgs("eth", drip, 0n, start + BigInt(DAY));
    // The budget at deployment: 100 drips of the amounts at deployment per day.
    expect(await faucet.ethBudget()).to.equal(100n * drip);
    expect(await faucet.budgetPeriod()).to.equal(BigInt(DAY));
    expect(await ethers.provider.getBalance(await faucet.getAddress())).to.equal(ethers.parseEther("0.4"));
    expect(await faucet.budgetLeft()).to.deep.equal([0n, 0n, start + BigInt(DAY)]);
    // The next window, on the grid, gives a new budget.
    await time.increaseTo(start + BigInt(DAY));
    expect(await faucet.budgetLeft()).to.deep.equal([100n * drip, 0n, start + 2n * BigInt(DAY)]);
    await expect(faucet.connect(relayer).drip(ethers.Wallet.createRandom().address)).to.emit(faucet, "Dripped");
  });

  it("bounds the USDC of a window too, and lets the admin set the budgets, keeping what the window sent", async () => {
    const { faucet, admin, dripper, agent, other, stranger } = await loadFixture(deployMintingFaucet);
    await expect(faucet.connect(admin).setBudget(ethers.parseEther("1"), 2n * USDC_DRIP, DAY))
      .to.emit(faucet, "BudgetSet")
      .withArgs(ethers.parseEther("1"), 2n * USDC_DRIP, DAY);
    const changedAt = BigInt(await time.latest());
    await faucet.connect(dripper).drip(agent.address);
    await faucet.connect(dripper).drip(other.address);
    expect(await faucet.budgetLeft()).to.deep.equal([
      ethers.parseEther("1") - 2n * ETH_DRIP,
      0n,
      changedAt + BigInt(DAY),
    ]);
    await expect(faucet.connect(dripper).drip(stranger.address))
      .to.be.revertedWithCustomError(faucet, "FaucetBudgetExceeded")
      .withArgs("usdc", USDC_DRIP, 0n, changedAt + BigInt(DAY));
    // A new budget starts a window now that keeps what this one sent: no second budget in the same window.
    await faucet.connect(admin).setBudget(ethers.parseEther("1"), 3n * USDC_DRIP, 3_600);
    const againAt = BigInt(await time.latest());
    expect(await faucet.budgetLeft()).to.deep.equal([
      ethers.parseEther("1") - 2n * ETH_DRIP,
      USDC_DRIP,
      againAt + 3_600n,
    ]);
    await faucet.connect(dripper).drip(stranger.address);
    expect(await faucet.budgetLeft()).to.deep.equal([ethers.parseEther("1") - 3n * ETH_DRIP, 0n, againAt + 3_600n]);
  });

  it("refuses budgets and budget windows out of bounds, and budget changes by a non-admin", async () => {
    const { faucet, stranger } = await loadFixture(deployMintingFaucet);
    expect(await faucet.MAX_ETH_BUDGET()).to.equal(ethers.parseEther("100"));
    expect(await faucet.MAX_USDC_BUDGET()).to.equal(1_000_000n * 10n ** 6n);
    await expect(faucet.setBudget(ethers.parseEther("100") + 1n, 0n, DAY))
      .to.be.revertedWithCustomError(faucet, "FaucetAmountOutOfBounds")
      .withArgs("ethBudget", ethers.parseEther("100") + 1n, ethers.parseEther("100"));
    await expect(faucet.setBudget(0n, 1_000_000n * 10n ** 6n + 1n, DAY))
      .to.be.revertedWithCustomError(faucet, "FaucetAmountOutOfBounds")
      .withArgs("usdcBudget", 1_000_000n * 10n ** 6n + 1n, 1_000_000n * 10n ** 6n);
    await expect(faucet.setBudget(0n, 0n, 3_599))
      .to.be.revertedWithCustomError(faucet, "FaucetBudgetPeriodOutOfBounds")
      .withArgs(3_599, 3_600, 30 * DAY);
    await expect(faucet.setBudget(0n, 0n, 30 * DAY + 1))
      .to.be.revertedWithCustomError(faucet, "FaucetBudgetPeriodOutOfBounds")
      .withArgs(30 * DAY + 1, 3_600, 30 * DAY);
    await expect(faucet.connect(stranger).setBudget(0n, 0n, DAY))
      .to.be.revertedWithCustomError(faucet, "AccessControlUnauthorizedAccount")
      .withArgs(stranger.address, await faucet.DEFAULT_ADMIN_ROLE());
  });
});
