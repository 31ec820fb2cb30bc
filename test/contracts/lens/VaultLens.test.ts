import { expect } from "chai";
import { ethers } from "hardhat";
import type { Result } from "ethers";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { VaultLens__factory } from "../../../typechain-types";
import { DAY, HOUR, MAX_UINT, USDC, deployWorld } from "../vaults/fixtures";

async function world() {
  const w = await deployWorld();
  const lens = await new VaultLens__factory(w.a.deployer).deploy();
  return { ...w, lens };
}

describe("VaultLens", () => {
  it("returns every field of each vault in one call", async () => {
    const { a, usdc, sync, async, lens } = await loadFixture(world);
    const strategy = ethers.id("momentum");
    await sync.connect(a.manager).setAllocations([{ strategyId: strategy, targetBps: 7_500 }]);
    await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
    await sync.connect(a.harvester).report(1_000n * USDC);
    await async.connect(a.guardian).pause();
    await time.increase(HOUR);

    const [s, x] = await lens.vaults([await sync.getAddress(), await async.getAddress()]);
    const assets = await sync.totalAssets();
    const [lockedAtReport, lastReport, unlockEnd, stillLocked] = await sync.profitUnlock();
    expect(s.vault).to.equal(await sync.getAddress());
    expect(s.name).to.equal("Test Vault");
    expect(s.symbol).to.equal("tVLT");
    expect(s.asset).to.equal(await usdc.getAddress());
    expect(s.assetSymbol).to.equal("USDC");
    expect(s.assetDecimals).to.equal(6);
    expect(s.shareDecimals).to.equal(12);
    expect(s.totalAssets).to.equal(assets);
    expect(s.totalSupply).to.equal(await sync.totalSupply());
    expect(s.pricePerShare).to.equal(await sync.convertToAssets(10n ** 12n));
    expect(s.pricePerShare).to.be.gt(1n * USDC);
    // 1,000 USDC unlocking over a day on ~100,000 USDC, gross of the performance fee (settled per holder on what
    // unlocks to it): about 365% a year.
    const apy = (lockedAtReport * 365n * 86_400n * 10_000n) / ((unlockEnd - lastReport) * assets);
    expect(s.apyBps).to.equal(apy);
    expect(s.apyBps).to.be.closeTo(36_500n, 400n);
    expect(s.managementFeeBps).to.equal(200);
    expect(s.performanceFeeBps).to.equal(2_000);
    expect(s.hurdleRateBps).to.equal(500);
    expect(s.riskLevel).to.equal(1);
    expect(s.isERC7540).to.equal(false);
    expect(s.fulfillmentDelay).to.equal(0);
    expect(s.paused).to.equal(false);
    expect(s.depositCap).to.equal(1_000_000n * USDC);
    expect(s.maxDeposit).to.equal(1_000_000n * USDC - assets);
    expect(s.createdAt).to.equal(await sync.createdAt());
    expect(s.profitUnlockPeriod).to.equal(DAY);
    expect(s.lockedProfit).to.equal(stillLocked);
    expect(s.feeRecipient).to.equal(a.feeRecipient.address);
    expect(s.allocations).to.deep.equal([[strategy, 7_500n]]);

    expect(x.isERC7540).to.equal(true);
    expect(x.fulfillmentDelay).to.equal(HOUR);
    expect(x.paused).to.equal(true);
    expect(x.maxDeposit).to.equal(0);
    expect(x.riskLevel).to.equal(2);
    expect(x.apyBps).to.equal(0);
    expect(x.totalAssets).to.equal(0);
    expect(x.pricePerShare).to.equal(1n * USDC);
    expect(x.allocations).to.deep.equal([]);
    expect(await lens.vaults([])).to.deep.equal([]);
  });

  it("reports no APY once the profit has unlocked", async () => {
    const { a, sync, lens } = await loadFixture(world);
    await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
    await sync.connect(a.harvester).report(1_000n * USDC);
    await time.increase(DAY);
    const [s] = await lens.vaults([await sync.getAddress()]);
    expect(s.apyBps).to.equal(0);
    expect(s.lockedProfit).to.equal(0);
    expect(s.depositCap).to.not.equal(MAX_UINT);
  });

  it("samples each vault's totalAssets, totalSupply and share price as vaults() gives them, now and at a past block", async () => {
    const { a, sync, async, lens } = await loadFixture(world);
    const list = [await sync.getAddress(), await async.getAddress()];
    await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
    await async.connect(a.alice).deposit(3_000n * USDC, a.alice.address);
    const before = await ethers.provider.getBlockNumber();
    await sync.connect(a.harvester).report(1_000n * USDC);
    await time.increase(HOUR);
    await sync.connect(a.alice).deposit(7n * USDC, a.alice.address);

    for (const blockTag of [before, "latest"] as const) {
      const views = await lens.vaults(list, { blockTag });
      const figures = await lens.samples(list, { blockTag });
      expect(figures.map((f) => [f.totalAssets, f.totalSupply, f.pricePerShare])).to.deep.equal(
        views.map((v) => [v.totalAssets, v.totalSupply, v.pricePerShare]),
      );
    }
    // An hour of a 1,000 USDC report unlocking moved the price between the two blocks.
    const [[, , pastPrice]] = await lens.samples([list[0]], { blockTag: before });
    const [[, , price]] = await lens.samples([list[0]]);
    expect(price).to.be.gt(pastPrice);
    expect(price).to.equal(await sync.convertToAssets(10n ** 12n));
    expect(await lens.samples([])).to.deep.equal([]);
  });

  it("records each vault's kept fields as vaults() gives them, at a past and the latest block", async () => {
    const { a, sync, async, lens } = await loadFixture(world);
    const list = [await sync.getAddress(), await async.getAddress()];
    const strategy = ethers.id("momentum");
    await sync.connect(a.manager).setAllocations([{ strategyId: strategy, targetBps: 7_500 }]);
    await sync.connect(a.alice).deposit(100_000n * USDC, a.alice.address);
    const before = await ethers.provider.getBlockNumber();
    await sync.connect(a.harvester).report(1_000n * USDC);
    await async.connect(a.guardian).pause();
    await time.increase(HOUR);
    await sync.connect(a.alice).deposit(7n * USDC, a.alice.address);

    // Every field of VaultRecord, by name, is the field of the same name in VaultView.
    const fields = VaultLens__factory.createInterface()
      .getFunction("records")!
      .outputs[0].arrayChildren!.components!.map((field) => field.name);
    expect(fields).to.have.length(17);
    for (const blockTag of [before, "latest"] as const) {
      const views = await lens.vaults(list, { blockTag });
      const kept = await lens.records(list, { blockTag });
      const pick = (result: Result) => fields.map((field) => result.getValue(field) as unknown);
      // Typechain types each struct as a tuple; at run time both are ethers Results, read by field name.
      expect((kept as unknown as Result[]).map(pick)).to.deep.equal((views as unknown as Result[]).map(pick));
    }
    const [s, x] = await lens.records(list);
    expect([s.name, s.symbol, s.assetDecimals, s.shareDecimals, s.riskLevel]).to.deep.equal([
      "Test Vault",
      "tVLT",
      6n,
      12n,
      1n,
    ]);
    expect(s.allocations).to.deep.equal([[strategy, 7_500n]]);
    expect([x.isERC7540, x.fulfillmentDelay, x.paused]).to.deep.equal([true, BigInt(HOUR), true]);
    expect(await lens.records([])).to.deep.equal([]);
  });

  it("returns one wallet's shares, value, pending and claimable requests in each vault", async () => {
    const { a, sync, async, lens } = await loadFixture(world);
    await sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
    await async.connect(a.alice).deposit(2_000n * USDC, a.alice.address);
    await async.connect(a.alice).requestRedeem(5n * 10n ** 14n, a.alice.address, a.alice.address);
    await time.increase(HOUR);
    await async.connect(a.fulfiller).fulfillRedeem(a.alice.address);
    await async.connect(a.alice).requestRedeem(2n * 10n ** 14n, a.alice.address, a.alice.address);

    const [p, q] = await lens.positions([await sync.getAddress(), await async.getAddress()], a.alice.address);
    expect(p.vault).to.equal(await sync.getAddress());
    expect(p.name).to.equal("Test Vault");
    expect(p.shares).to.equal(10n ** 15n);
    expect(p.assets).to.equal(await sync.convertToAssets(10n ** 15n));
    expect(p.assets).to.be.closeTo(1_000n * USDC, 10_000n); // an hour of management fee
    expect(p.pendingRedeemShares).to.equal(0);
    expect(p.claimableRedeemShares).to.equal(0);
    expect(p.claimableAssets).to.equal(0);
    expect(p.pendingRedeemReadyAt).to.equal(0);
    expect(p.claimableCancelShares).to.equal(0);

    expect(q.name).to.equal("Async Vault");
    expect(q.shares).to.equal(13n * 10n ** 14n);
    expect(q.assets).to.equal(await async.convertToAssets(13n * 10n ** 14n));
    expect(q.pendingRedeemShares).to.equal(2n * 10n ** 14n);
    expect(q.claimableRedeemShares).to.equal(5n * 10n ** 14n);
    expect(q.claimableAssets).to.equal(await async.maxWithdraw(a.alice.address));
    expect(q.pendingRedeemReadyAt).to.equal((await time.latest()) + HOUR);
    expect(q.claimableCancelShares).to.equal(0);

    await async.connect(a.alice).cancelRedeemRequest(0, a.alice.address);
    const [, canceled] = await lens.positions([await sync.getAddress(), await async.getAddress()], a.alice.address);
    expect(canceled.pendingRedeemShares).to.equal(0);
    expect(canceled.pendingRedeemReadyAt).to.equal(0);
    expect(canceled.claimableCancelShares).to.equal(2n * 10n ** 14n);

    const [empty] = await lens.positions([await sync.getAddress()], a.carol.address);
    expect([empty.shares, empty.assets]).to.deep.equal([0n, 0n]);
  });
});
