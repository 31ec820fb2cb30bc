/**
 * The exit bound on chain: a redeem request waits at most the governance timelock's delay less EXIT_MARGIN, read
 * from the timelock at each request, whatever fulfilment delay governance configured and however it changed the
 * timelock's delay since (docs/vaults.md, "Exit bound").
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import { impersonateAccount, loadFixture, setBalance, time } from "@nomicfoundation/hardhat-network-helpers";
import { parseEther } from "ethers";
import {
  ConfigurableNapVault__factory,
  TestUSDC__factory,
  TimelockController__factory,
} from "../../../typechain-types";
import { DAY, HOUR, MAX_UINT, USDC, actors, params, roles } from "./fixtures";

const TIMELOCK_DELAY = 2 * DAY;
const EXIT_MARGIN = DAY;

/** A configurable async vault whose admin is an OpenZeppelin timelock of 2 days (impersonated to act at once). */
async function vaultUnderTimelock() {
  const a = await actors();
  const usdc = await new TestUSDC__factory(a.deployer).deploy(a.deployer.address);
  const timelock = await new TimelockController__factory(a.deployer).deploy(
    TIMELOCK_DELAY,
    [a.admin.address],
    [ethers.ZeroAddress],
    ethers.ZeroAddress,
  );
  const timelockAddress = await timelock.getAddress();
  const vault = await new ConfigurableNapVault__factory(a.deployer).deploy(
    params(await usdc.getAddress(), a.feeRecipient.address, { asyncRedeem: true, fulfillmentDelay: HOUR }),
    { ...roles(a), admin: timelockAddress },
    [],
  );
  await impersonateAccount(timelockAddress);
  await setBalance(timelockAddress, parseEther("1"));
  const governance = await ethers.getSigner(timelockAddress);
  await usdc.mint(a.alice.address, 1_000n * USDC);
  await usdc.connect(a.alice).approve(await vault.getAddress(), MAX_UINT);
  await vault.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
  return { a, usdc, timelock: timelock.connect(governance), vault, admin: vault.connect(governance) };
}

describe("NapVault exit bound: a request waits at most the timelock delay less the exit margin", () => {
  it("reads the governance timelock the vault was deployed with, and the margin is one day", async () => {
    const { vault, timelock } = await loadFixture(vaultUnderTimelock);
    expect(await vault.governanceTimelock()).to.equal(await timelock.getAddress());
    expect(await vault.EXIT_MARGIN()).to.equal(BigInt(EXIT_MARGIN));
    expect(await vault.appliedFulfillmentDelay()).to.equal(BigInt(HOUR));
  });

  it("applies a delay exactly at the bound (timelock delay less the margin) in full", async () => {
    const { a, vault, admin } = await loadFixture(vaultUnderTimelock);
    await admin.setFulfillmentDelay(TIMELOCK_DELAY - EXIT_MARGIN);
    expect(await vault.appliedFulfillmentDelay()).to.equal(BigInt(DAY));
    await vault.connect(a.alice).requestRedeem(1_000n, a.alice.address, a.alice.address);
    expect(await vault.pendingRedeemReadyAt(a.alice.address)).to.equal(BigInt((await time.latest()) + DAY));
  });

  it("caps a delay one second past the bound at the bound; the configured delay stays as governance set it", async () => {
    const { a, vault, admin } = await loadFixture(vaultUnderTimelock);
    await expect(admin.setFulfillmentDelay(TIMELOCK_DELAY - EXIT_MARGIN + 1))
      .to.emit(vault, "FulfillmentDelayUpdated")
      .withArgs(BigInt(DAY + 1));
    expect(await vault.fulfillmentDelay()).to.equal(BigInt(DAY + 1));
    expect(await vault.appliedFulfillmentDelay()).to.equal(BigInt(DAY));
    await vault.connect(a.alice).requestRedeem(1_000n, a.alice.address, a.alice.address);
    expect(await vault.pendingRedeemReadyAt(a.alice.address)).to.equal(BigInt((await time.latest()) + DAY));
  });

  it("follows the timelock when governance lowers its delay: later requests wait less, one more share re-times a pending one", async () => {
    const { a, vault, admin, timelock } = await loadFixture(vaultUnderTimelock);
    await admin.setFulfillmentDelay(7 * DAY);
    await vault.connect(a.alice).requestRedeem(1_000n, a.alice.address, a.alice.address);
    expect(await vault.pendingRedeemReadyAt(a.alice.address)).to.equal(BigInt((await time.latest()) + DAY));

    await timelock.updateDelay(DAY + 2 * HOUR);
    expect(await vault.appliedFulfillmentDelay()).to.equal(BigInt(2 * HOUR));
    await vault.connect(a.alice).requestRedeem(1n, a.alice.address, a.alice.address);
    expect(await vault.pendingRedeemReadyAt(a.alice.address)).to.equal(BigInt((await time.latest()) + 2 * HOUR));
    expect(await vault.pendingRedeemRequest(0, a.alice.address)).to.equal(1_001n);
  });

  it("lets the fulfiller fill at once when the timelock waits no longer than the margin", async () => {
    const { a, vault, timelock } = await loadFixture(vaultUnderTimelock);
    await timelock.updateDelay(EXIT_MARGIN);
    expect(await vault.appliedFulfillmentDelay()).to.equal(0n);
    await vault.connect(a.alice).requestRedeem(1_000n, a.alice.address, a.alice.address);
    const requestedAt = BigInt(await time.latest());
    expect(await vault.pendingRedeemReadyAt(a.alice.address)).to.equal(requestedAt);
    await expect(vault.connect(a.fulfiller).fulfillRedeem(a.alice.address)).to.emit(vault, "RedeemFulfilled");
  });

  it("without a contract admin, or with one that is no timelock, applies the configured delay", async () => {
    const a = await actors();
    const usdc = await new TestUSDC__factory(a.deployer).deploy(a.deployer.address);
    for (const admin of [a.admin.address, await usdc.getAddress()]) {
      const vault = await new ConfigurableNapVault__factory(a.deployer).deploy(
        params(await usdc.getAddress(), a.feeRecipient.address, { asyncRedeem: true, fulfillmentDelay: 7 * DAY }),
        { ...roles(a), admin },
        [],
      );
      expect(await vault.governanceTimelock()).to.equal(admin === a.admin.address ? ethers.ZeroAddress : admin);
      expect(await vault.appliedFulfillmentDelay()).to.equal(BigInt(7 * DAY));
      await usdc.mint(a.alice.address, USDC);
      await usdc.connect(a.alice).approve(await vault.getAddress(), MAX_UINT);
      await vault.connect(a.alice).deposit(USDC, a.alice.address);
      await vault.connect(a.alice).requestRedeem(1n, a.alice.address, a.alice.address);
      expect(await vault.pendingRedeemReadyAt(a.alice.address)).to.equal(BigInt((await time.latest()) + 7 * DAY));
    }
  });
});
