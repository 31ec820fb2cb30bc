import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ConfigurableNapVault__factory } from "../../../typechain-types";
import { DAY, HOUR, MAX_UINT, USDC, booksAt, deployWorld, managementFee, params, roles } from "./fixtures";

const ADMIN_ROLE = ethers.ZeroHash;

describe("ConfigurableNapVault: governance changes within the hard bounds", () => {
  it("lets only the admin change parameters", async () => {
    const { a, configurable } = await loadFixture(deployWorld);
    const calls = [
      () => configurable.connect(a.manager).setFees(1, 1, 1),
      () => configurable.connect(a.manager).setDepositCap(1),
      () => configurable.connect(a.manager).setProfitUnlockPeriod(HOUR),
      () => configurable.connect(a.manager).setFulfillmentDelay(1),
    ];
    for (const call of calls) {
      await expect(call())
        .to.be.revertedWithCustomError(configurable, "AccessControlUnauthorizedAccount")
        .withArgs(a.manager.address, ADMIN_ROLE);
    }
  });

  it("sets fees after accruing the management fee and the hurdle at the old rates", async () => {
    const { a, usdc, configurable } = await loadFixture(deployWorld);
    await configurable.connect(a.alice).deposit(10_000n * USDC, a.alice.address);
    const at = BigInt((await time.latest()) + DAY);
    await time.setNextBlockTimestamp(at);
    const { fee } = await booksAt(configurable, at);
    expect(fee).to.equal(managementFee(10_000n * USDC, 200n, BigInt(DAY)).fee);
    const tx = configurable.connect(a.admin).setFees(500, 2_500, 2_000);
    await expect(tx).to.emit(configurable, "FeesAccrued").withArgs(a.feeRecipient.address, fee, 0);
    await expect(tx).to.emit(configurable, "FeesUpdated").withArgs(500, 2_500, 2_000);
    expect(await configurable.managementFeeBps()).to.equal(500);
    expect(await configurable.performanceFeeBps()).to.equal(2_500);
    expect(await configurable.hurdleRateBps()).to.equal(2_000);
    // The hurdle accumulator counted the time before the change at the old rate (5%) and counts at the new one
    // (20%) from it, so the hurdle holders earned is kept; a second change at the same rates changes nothing.
    const markAt = 500n * (at - (await configurable.createdAt()));
    expect(await configurable.hurdleMark()).to.equal(markAt);
    await configurable.accrueFees();
    await configurable.connect(a.admin).setFees(500, 2_500, 2_000);
    expect(await configurable.hurdleMark()).to.equal(markAt + 2_000n * (BigInt(await time.latest()) - at));
    expect(await configurable.feesOwed()).to.equal(
      (await usdc.balanceOf(await configurable.getAddress())) - (await configurable.accountedAssets()),
    );
    await expect(configurable.connect(a.admin).setFees(501, 0, 0))
      .to.be.revertedWithCustomError(configurable, "ManagementFeeTooHigh")
      .withArgs(501, 500);
    await expect(configurable.connect(a.admin).setFees(0, 3_001, 0))
      .to.be.revertedWithCustomError(configurable, "PerformanceFeeTooHigh")
      .withArgs(3_001, 3_000);
    await expect(configurable.connect(a.admin).setFees(0, 0, 2_001))
      .to.be.revertedWithCustomError(configurable, "HurdleRateTooHigh")
      .withArgs(2_001, 2_000);
    await expect(configurable.connect(a.admin).setFees(500, 3_000, 2_000))
      .to.be.revertedWithCustomError(configurable, "HurdleBeyondManagementFee")
      .withArgs(2_000, 3_000, 500);
  });

  it("sets the deposit cap, also below totalAssets and back to none", async () => {
    const { a, configurable } = await loadFixture(deployWorld);
    await configurable.connect(a.alice).deposit(10_000n * USDC, a.alice.address);
    await expect(configurable.connect(a.admin).setDepositCap(5_000n * USDC))
      .to.emit(configurable, "DepositCapUpdated")
      .withArgs(5_000n * USDC);
    expect(await configurable.maxDeposit(a.bob.address)).to.equal(0);
    expect(await configurable.maxMint(a.bob.address)).to.equal(0);
    await configurable.connect(a.admin).setDepositCap(10_500n * USDC);
    expect(await configurable.maxDeposit(a.bob.address)).to.equal(10_500n * USDC - (await configurable.totalAssets()));
    await expect(configurable.connect(a.admin).setDepositCap(10_500n * USDC + 1n))
      .to.be.revertedWithCustomError(configurable, "DepositCapNotWholeTokens")
      .withArgs(10_500n * USDC + 1n, USDC);
    await expect(configurable.connect(a.admin).setDepositCap(MAX_UINT))
      .to.emit(configurable, "DepositCapUpdated")
      .withArgs(MAX_UINT);
    expect(await configurable.depositCap()).to.equal(MAX_UINT);
    // Without a cap only the 64-bit bound of the books is left.
    expect(await configurable.maxDeposit(a.bob.address)).to.equal(2n ** 64n - 1n - (await configurable.totalAssets()));
  });

  it("sets the unlock period of later reports within bounds", async () => {
    const { a, configurable } = await loadFixture(deployWorld);
    await expect(configurable.connect(a.admin).setProfitUnlockPeriod(2 * HOUR))
      .to.emit(configurable, "ProfitUnlockPeriodUpdated")
      .withArgs(2 * HOUR);
    expect(await configurable.profitUnlockPeriod()).to.equal(2 * HOUR);
    await expect(configurable.connect(a.admin).setProfitUnlockPeriod(HOUR - 1))
      .to.be.revertedWithCustomError(configurable, "ProfitUnlockPeriodOutOfBounds")
      .withArgs(HOUR - 1, HOUR, 30 * DAY);
    await configurable.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
    await configurable.connect(a.harvester).report(100n * USDC);
    expect((await configurable.profitUnlock())[2]).to.equal((await time.latest()) + 2 * HOUR);
  });

  it("sets the fulfilment delay of later requests; a pending request keeps its ready time", async () => {
    const { a, configurable } = await loadFixture(deployWorld);
    await configurable.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
    await configurable.connect(a.alice).requestRedeem(10n ** 14n, a.alice.address, a.alice.address);
    const requestedAt = await time.latest();
    await expect(configurable.connect(a.admin).setFulfillmentDelay(2 * HOUR))
      .to.emit(configurable, "FulfillmentDelayUpdated")
      .withArgs(2 * HOUR);
    expect(await configurable.fulfillmentDelay()).to.equal(2 * HOUR);
    expect(await configurable.pendingRedeemReadyAt(a.alice.address)).to.equal(requestedAt + HOUR);
    await expect(configurable.connect(a.admin).setFulfillmentDelay(7 * DAY + 1))
      .to.be.revertedWithCustomError(configurable, "FulfillmentDelayOutOfBounds")
      .withArgs(7 * DAY + 1, 7 * DAY);
    await time.increaseTo(requestedAt + HOUR);
    await expect(configurable.connect(a.fulfiller).fulfillRedeem(a.alice.address)).to.emit(
      configurable,
      "RedeemFulfilled",
    );
    // A request made now waits the new delay.
    await configurable.connect(a.bob).deposit(1_000n * USDC, a.bob.address);
    await configurable.connect(a.bob).requestRedeem(10n ** 14n, a.bob.address, a.bob.address);
    expect(await configurable.pendingRedeemReadyAt(a.bob.address)).to.equal((await time.latest()) + 2 * HOUR);
  });

  it("refuses a delay on a synchronous configurable vault", async () => {
    const { a, usdc } = await loadFixture(deployWorld);
    const vault = await new ConfigurableNapVault__factory(a.deployer).deploy(
      params(await usdc.getAddress(), a.feeRecipient.address),
      roles(a),
      [],
    );
    await expect(vault.connect(a.admin).setFulfillmentDelay(1))
      .to.be.revertedWithCustomError(vault, "FulfillmentDelayOutOfBounds")
      .withArgs(1, 0);
  });
});
