import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { BlockingUSDC__factory, ConfigurableNapVault__factory, NapVault__factory } from "../../../typechain-types";
import {
  DAY,
  HOUR,
  MAX_UINT,
  USDC,
  booksAt,
  settlementAt,
  deployWorld,
  managementFee,
  params,
  roles,
  toAssets,
  toShares,
  type VaultParams,
} from "./fixtures";

const MAX_BOOKS = 2n ** 64n - 1n;

/** Sets the next block's timestamp `seconds` after the latest one and returns it. */
async function nextAt(seconds = 1): Promise<bigint> {
  const at = (await time.latest()) + seconds;
  await time.setNextBlockTimestamp(at);
  return BigInt(at);
}

const MANAGER_ROLE = ethers.id("MANAGER_ROLE");
const HARVESTER_ROLE = ethers.id("HARVESTER_ROLE");
const GUARDIAN_ROLE = ethers.id("GUARDIAN_ROLE");
const FULFILLER_ROLE = ethers.id("FULFILLER_ROLE");
const ADMIN_ROLE = ethers.ZeroHash;

describe("NapVault: deployment, ERC-4626 flows, cap, pause, allocations", () => {
  describe("deployment", () => {
    it("grants each role to its holder and none to the deployer", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      expect(await sync.hasRole(ADMIN_ROLE, a.admin.address)).to.equal(true);
      expect(await sync.hasRole(MANAGER_ROLE, a.manager.address)).to.equal(true);
      expect(await sync.hasRole(HARVESTER_ROLE, a.harvester.address)).to.equal(true);
      expect(await sync.hasRole(GUARDIAN_ROLE, a.guardian.address)).to.equal(true);
      expect(await sync.hasRole(FULFILLER_ROLE, a.fulfiller.address)).to.equal(true);
      for (const role of [ADMIN_ROLE, MANAGER_ROLE, HARVESTER_ROLE, GUARDIAN_ROLE, FULFILLER_ROLE]) {
        expect(await sync.hasRole(role, a.deployer.address)).to.equal(false);
      }
      expect(await sync.MANAGER_ROLE()).to.equal(MANAGER_ROLE);
      expect(await sync.HARVESTER_ROLE()).to.equal(HARVESTER_ROLE);
      expect(await sync.GUARDIAN_ROLE()).to.equal(GUARDIAN_ROLE);
      expect(await sync.FULFILLER_ROLE()).to.equal(FULFILLER_ROLE);
    });

    it("exposes its parameters", async () => {
      const { a, usdc, sync, async } = await loadFixture(deployWorld);
      const deployBlock = await ethers.provider.getBlock((await sync.deploymentTransaction())!.blockNumber!);
      expect(await sync.createdAt()).to.equal(deployBlock!.timestamp);
      expect(await sync.asset()).to.equal(await usdc.getAddress());
      expect(await sync.decimals()).to.equal(12);
      expect(await sync.name()).to.equal("Test Vault");
      expect(await sync.symbol()).to.equal("tVLT");
      expect(await sync.riskLevel()).to.equal(1);
      expect(await async.riskLevel()).to.equal(2);
      expect(await sync.isERC7540()).to.equal(false);
      expect(await async.isERC7540()).to.equal(true);
      expect(await sync.fulfillmentDelay()).to.equal(0);
      expect(await async.fulfillmentDelay()).to.equal(3600);
      expect(await sync.paused()).to.equal(false);
      expect(await sync.depositCap()).to.equal(1_000_000n * USDC);
      expect(await sync.profitUnlockPeriod()).to.equal(DAY);
      expect(await sync.managementFeeBps()).to.equal(200);
      expect(await sync.performanceFeeBps()).to.equal(2_000);
      expect(await sync.hurdleRateBps()).to.equal(500);
      expect(await sync.feeRecipient()).to.equal(a.feeRecipient.address);
      expect(await sync.lastFeeAccrual()).to.equal(deployBlock!.timestamp);
      // hurdleRateBps x seconds since the deployment.
      expect(await sync.hurdleMark()).to.equal(500n * (BigInt(await time.latest()) - BigInt(deployBlock!.timestamp)));
      expect(await sync.positionOf(a.alice.address)).to.deep.equal([0n, 0n, 0n]);
      expect(await sync.accountedAssets()).to.equal(0);
      expect(await sync.feesOwed()).to.equal(0);
      expect(await sync.profitUnlock()).to.deep.equal([0n, 0n, 0n, 0n]);
      expect(await sync.allocations()).to.deep.equal([]);
      expect(await sync.redeemEscrow()).to.equal(ethers.ZeroAddress);
      expect(await async.redeemEscrow()).to.not.equal(ethers.ZeroAddress);
      expect(await sync.totalClaimableAssets()).to.equal(0);
      expect(await sync.share()).to.equal(await sync.getAddress());
      expect(await sync.MAX_MANAGEMENT_FEE_BPS()).to.equal(500);
      expect(await sync.MAX_PERFORMANCE_FEE_BPS()).to.equal(3_000);
      expect(await sync.MAX_HURDLE_RATE_BPS()).to.equal(2_000);
      expect(await sync.MIN_PROFIT_UNLOCK_PERIOD()).to.equal(3600);
      expect(await sync.MAX_PROFIT_UNLOCK_PERIOD()).to.equal(30 * DAY);
      expect(await sync.MAX_FULFILLMENT_DELAY()).to.equal(7 * DAY);
      expect(await sync.FULFILLMENT_GRACE_PERIOD()).to.equal(3600);
      expect(await sync.MAX_ALLOCATIONS()).to.equal(20);
    });

    it("emits its parameters and leaves zero role addresses ungranted", async () => {
      const { a, usdc } = await loadFixture(deployWorld);
      const factory = new NapVault__factory(a.deployer);
      const p = params(await usdc.getAddress(), a.feeRecipient.address);
      const vault = await factory.deploy(p, { ...roles(a), manager: ethers.ZeroAddress }, [
        { strategyId: ethers.id("s1"), targetBps: 6_000 },
      ]);
      const tx = vault.deploymentTransaction()!;
      await expect(tx).to.emit(vault, "FeesUpdated").withArgs(200, 2_000, 500);
      await expect(tx).to.emit(vault, "FeeRecipientUpdated").withArgs(a.feeRecipient.address);
      await expect(tx)
        .to.emit(vault, "DepositCapUpdated")
        .withArgs(1_000_000n * USDC);
      await expect(tx).to.emit(vault, "ProfitUnlockPeriodUpdated").withArgs(DAY);
      await expect(tx).to.emit(vault, "FulfillmentDelayUpdated").withArgs(0);
      await expect(tx)
        .to.emit(vault, "AllocationsUpdated")
        .withArgs([[ethers.id("s1"), 6_000n]]);
      expect(await vault.hasRole(MANAGER_ROLE, ethers.ZeroAddress)).to.equal(false);
    });

    it("treats a cap of 2**32 - 1 whole tokens or more as no cap, leaving only the 64-bit bound of the books", async () => {
      const { a, usdc } = await loadFixture(deployWorld);
      const vault = await new NapVault__factory(a.deployer).deploy(
        params(await usdc.getAddress(), a.feeRecipient.address, { depositCap: (2n ** 32n - 1n) * USDC }),
        roles(a),
        [],
      );
      await expect(vault.deploymentTransaction()).to.emit(vault, "DepositCapUpdated").withArgs(MAX_UINT);
      expect(await vault.depositCap()).to.equal(MAX_UINT);
      expect(await vault.maxDeposit(a.alice.address)).to.equal(MAX_BOOKS);
      expect(await vault.maxMint(a.alice.address)).to.equal(toShares(MAX_BOOKS, 0n, 0n));
      // The last whole token below the bound is a cap.
      const capped = await new NapVault__factory(a.deployer).deploy(
        params(await usdc.getAddress(), a.feeRecipient.address, { depositCap: (2n ** 32n - 2n) * USDC }),
        roles(a),
        [],
      );
      expect(await capped.depositCap()).to.equal((2n ** 32n - 2n) * USDC);
    });

    it("refuses a cap that is not a whole number of tokens", async () => {
      const { a, usdc, sync } = await loadFixture(deployWorld);
      await expect(
        new NapVault__factory(a.deployer).deploy(
          params(await usdc.getAddress(), a.feeRecipient.address, { depositCap: 1_000n * USDC + 1n }),
          roles(a),
          [],
        ),
      )
        .to.be.revertedWithCustomError(sync, "DepositCapNotWholeTokens")
        .withArgs(1_000n * USDC + 1n, USDC);
    });

    it("keeps the room within the 64-bit bound of its books under a cap too", async () => {
      const { a, usdc } = await loadFixture(deployWorld);
      const vault = await new NapVault__factory(a.deployer).deploy(
        params(await usdc.getAddress(), a.feeRecipient.address, { depositCap: 1_000n * USDC, performanceFeeBps: 0 }),
        roles(a),
        [],
      );
      // A report fills the books with locked profit that holders' assets (and so the cap) do not count yet.
      await usdc.mint(a.harvester.address, MAX_BOOKS);
      await usdc.connect(a.harvester).approve(await vault.getAddress(), MAX_UINT);
      await vault.connect(a.harvester).report(MAX_BOOKS - 10n);
      expect(await vault.totalAssets()).to.equal(0);
      expect(await vault.maxDeposit(a.alice.address)).to.equal(10n);
    });

    it("refuses deposits past the 64-bit bound of its books without a cap", async () => {
      const { a, usdc } = await loadFixture(deployWorld);
      const vault = await new NapVault__factory(a.deployer).deploy(
        params(await usdc.getAddress(), a.feeRecipient.address, { depositCap: MAX_UINT }),
        roles(a),
        [],
      );
      await usdc.mint(a.alice.address, MAX_BOOKS + 1n);
      await usdc.connect(a.alice).approve(await vault.getAddress(), MAX_UINT);
      await expect(vault.connect(a.alice).deposit(MAX_BOOKS + 1n, a.alice.address))
        .to.be.revertedWithCustomError(vault, "ERC4626ExceededMaxDeposit")
        .withArgs(a.alice.address, MAX_BOOKS + 1n, MAX_BOOKS);
      await vault.connect(a.alice).deposit(MAX_BOOKS - 5n, a.alice.address);
      expect(await vault.maxDeposit(a.alice.address)).to.equal(5n);
    });

    const badParams: [string, Partial<VaultParams>, string, unknown[]][] = [
      ["management fee", { managementFeeBps: 501 }, "ManagementFeeTooHigh", [501, 500]],
      ["performance fee", { performanceFeeBps: 3_001 }, "PerformanceFeeTooHigh", [3_001, 3_000]],
      ["hurdle rate", { hurdleRateBps: 2_001 }, "HurdleRateTooHigh", [2_001, 2_000]],
      [
        "hurdle the management fee cannot back",
        { managementFeeBps: 200, performanceFeeBps: 2_000, hurdleRateBps: 1_001 },
        "HurdleBeyondManagementFee",
        [1_001, 2_000, 200],
      ],
      [
        "hurdle without a management fee",
        { managementFeeBps: 0, performanceFeeBps: 1, hurdleRateBps: 1 },
        "HurdleBeyondManagementFee",
        [1, 1, 0],
      ],
      ["short unlock period", { profitUnlockPeriod: 3_599 }, "ProfitUnlockPeriodOutOfBounds", [3_599, 3_600, 30 * DAY]],
      [
        "long unlock period",
        { profitUnlockPeriod: 30 * DAY + 1 },
        "ProfitUnlockPeriodOutOfBounds",
        [30 * DAY + 1, 3_600, 30 * DAY],
      ],
      ["delay on a synchronous vault", { fulfillmentDelay: 1 }, "FulfillmentDelayOutOfBounds", [1, 0]],
      [
        "long delay",
        { asyncRedeem: true, fulfillmentDelay: 7 * DAY + 1 },
        "FulfillmentDelayOutOfBounds",
        [7 * DAY + 1, 7 * DAY],
      ],
    ];
    for (const [what, override, error, args] of badParams) {
      it(`rejects an out-of-bounds ${what}`, async () => {
        const { a, usdc, sync } = await loadFixture(deployWorld);
        const factory = new NapVault__factory(a.deployer);
        await expect(factory.deploy(params(await usdc.getAddress(), a.feeRecipient.address, override), roles(a), []))
          .to.be.revertedWithCustomError(sync, error)
          .withArgs(...args);
      });
    }

    it("accepts the bounds themselves", async () => {
      const { a, usdc } = await loadFixture(deployWorld);
      // Each fee at its bound, with the hurdle the management fee backs exactly (hurdle * performance equal to
      // management * 10,000), and a hurdle with no performance fee at all.
      for (const [managementFeeBps, performanceFeeBps, hurdleRateBps] of [
        [500, 3_000, 1_666],
        [500, 2_500, 2_000],
        [0, 0, 2_000],
      ]) {
        const p = params(await usdc.getAddress(), a.feeRecipient.address, {
          managementFeeBps,
          performanceFeeBps,
          hurdleRateBps,
          profitUnlockPeriod: 3_600,
          asyncRedeem: true,
          fulfillmentDelay: 7 * DAY,
        });
        const vault = await new ConfigurableNapVault__factory(a.deployer).deploy(p, roles(a), []);
        expect(await vault.fulfillmentDelay()).to.equal(7 * DAY);
        expect(await vault.hurdleRateBps()).to.equal(hurdleRateBps);
      }
    });

    it("rejects a zero admin and a zero fee recipient", async () => {
      const { a, usdc, sync } = await loadFixture(deployWorld);
      const factory = new NapVault__factory(a.deployer);
      const usdcAddress = await usdc.getAddress();
      await expect(
        factory.deploy(params(usdcAddress, a.feeRecipient.address), { ...roles(a), admin: ethers.ZeroAddress }, []),
      ).to.be.revertedWithCustomError(sync, "ZeroAddress");
      await expect(factory.deploy(params(usdcAddress, ethers.ZeroAddress), roles(a), [])).to.be.revertedWithCustomError(
        sync,
        "ZeroAddress",
      );
    });
  });

  describe("deposit, mint, withdraw, redeem", () => {
    /** Alice's 1,000 USDC in the synchronous vault and a reported gain unlocking, so that the price is not round. */
    async function unlocking() {
      const w = await deployWorld();
      await w.sync.connect(w.a.alice).deposit(1_000n * USDC, w.a.alice.address);
      await w.sync.connect(w.a.harvester).report(333_333n);
      await time.increase(HOUR);
      return w;
    }

    it("deposits at the virtual-share price after bringing the management fee to date, rounding shares down", async () => {
      const { a, usdc, sync } = await loadFixture(deployWorld);
      const vault = await sync.getAddress();
      const first = await nextAt();
      await expect(sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address))
        .to.emit(sync, "Deposit")
        .withArgs(a.alice.address, a.alice.address, 1_000n * USDC, 1_000n * USDC * 10n ** 6n);
      expect(await sync.balanceOf(a.alice.address)).to.equal(10n ** 15n);
      expect(await usdc.balanceOf(vault)).to.equal(1_000n * USDC);
      expect(await sync.accountedAssets()).to.equal(1_000n * USDC);
      expect(await sync.lastFeeAccrual()).to.equal(first);
      // A report unlocking makes the price not round; the next deposit first takes the day's management fee.
      await sync.connect(a.harvester).report(333_333n);
      await time.increase(DAY / 2);
      const at = await nextAt();
      const { assets, fee, supply } = await booksAt(sync, at);
      expect(fee).to.be.gt(0n);
      const expected = toShares(777n, assets, supply);
      const accountedBefore = await sync.accountedAssets();
      await expect(sync.connect(a.bob).deposit(777n, a.bob.address))
        .to.emit(sync, "Deposit")
        .withArgs(a.bob.address, a.bob.address, 777n, expected);
      expect(await sync.lastFeeAccrual()).to.equal(at);
      expect(await sync.accountedAssets()).to.equal(accountedBefore - fee + 777n);
      expect(await sync.previewDeposit(777n)).to.equal(toShares(777n, await sync.totalAssets(), supply + expected));
    });

    it("mints for a receiver, charging the assets rounded up", async () => {
      const { a, usdc, sync } = await loadFixture(unlocking);
      const shares = 123_456_789n;
      const at = await nextAt();
      const { assets, supply } = await booksAt(sync, at);
      const cost = toAssets(shares, assets, supply, true);
      const before = await usdc.balanceOf(a.bob.address);
      await expect(sync.connect(a.bob).mint(shares, a.carol.address))
        .to.emit(sync, "Deposit")
        .withArgs(a.bob.address, a.carol.address, cost, shares);
      expect(await usdc.balanceOf(a.bob.address)).to.equal(before - cost);
      expect(await sync.balanceOf(a.carol.address)).to.equal(shares);
      expect(await sync.previewMint(shares)).to.equal(
        toAssets(shares, await sync.totalAssets(), await sync.totalSupply(), true),
      );
    });

    it("withdraws burning shares rounded up, and redeems paying assets rounded down", async () => {
      const { a, usdc, sync } = await loadFixture(unlocking);
      // Each exit first settles Alice's performance fee on the profit that unlocked to her (burnt with the exit),
      // then converts at the price after it.
      let at = await nextAt();
      let owed = await settlementAt(sync, a.alice.address, at);
      expect(owed.fee).to.be.gt(0n);
      let assets = owed.assets - owed.feeAssets;
      let supply = owed.supply - owed.fee;
      const burnt = toShares(100n * USDC, assets, supply, true);
      await expect(sync.connect(a.alice).withdraw(100n * USDC, a.bob.address, a.alice.address))
        .to.emit(sync, "Withdraw")
        .withArgs(a.alice.address, a.bob.address, a.alice.address, 100n * USDC, burnt);
      expect(await sync.previewWithdraw(100n * USDC)).to.equal(
        toShares(100n * USDC, await sync.totalAssets(), await sync.totalSupply(), true),
      );
      at = await nextAt();
      owed = await settlementAt(sync, a.alice.address, at);
      assets = owed.assets - owed.feeAssets;
      supply = owed.supply - owed.fee;
      const shares = 10n ** 14n + 7n;
      const paid = toAssets(shares, assets, supply);
      const before = await usdc.balanceOf(a.alice.address);
      const accountedBefore = await sync.accountedAssets();
      const { fee } = await booksAt(sync, at);
      await expect(sync.connect(a.alice).redeem(shares, a.alice.address, a.alice.address))
        .to.emit(sync, "Withdraw")
        .withArgs(a.alice.address, a.alice.address, a.alice.address, paid, shares);
      expect(await usdc.balanceOf(a.alice.address)).to.equal(before + paid);
      expect(await sync.accountedAssets()).to.equal(accountedBefore - fee - owed.feeAssets - paid);
      // Every share may leave but those the fee owed since takes, at the price after taking them.
      const [owedShares, owedAssets] = await sync.performanceFeeOwed(a.alice.address);
      const left = (await sync.balanceOf(a.alice.address)) - owedShares;
      expect(await sync.maxRedeem(a.alice.address)).to.equal(left);
      expect(await sync.maxWithdraw(a.alice.address)).to.equal(
        toAssets(left, (await sync.totalAssets()) - owedAssets, (await sync.totalSupply()) - owedShares),
      );
      expect(await sync.previewRedeem(shares)).to.equal(
        toAssets(shares, await sync.totalAssets(), await sync.totalSupply()),
      );
    });

    it("lets an approved spender redeem for an owner and refuses others", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      await expect(sync.connect(a.bob).redeem(10n ** 12n, a.bob.address, a.alice.address))
        .to.be.revertedWithCustomError(sync, "ERC20InsufficientAllowance")
        .withArgs(a.bob.address, 0, 10n ** 12n);
      await sync.connect(a.alice).approve(a.bob.address, 10n ** 12n);
      const at = await nextAt();
      const { assets, supply } = await booksAt(sync, at);
      await expect(sync.connect(a.bob).redeem(10n ** 12n, a.bob.address, a.alice.address))
        .to.emit(sync, "Withdraw")
        .withArgs(a.bob.address, a.bob.address, a.alice.address, toAssets(10n ** 12n, assets, supply), 10n ** 12n);
      expect(await sync.allowance(a.alice.address, a.bob.address)).to.equal(0);
    });

    it("refuses to redeem or withdraw more than the owner has", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      await expect(sync.connect(a.alice).redeem(10n ** 15n + 1n, a.alice.address, a.alice.address))
        .to.be.revertedWithCustomError(sync, "ERC4626ExceededMaxRedeem")
        .withArgs(a.alice.address, 10n ** 15n + 1n, 10n ** 15n);
      const at = await nextAt(DAY);
      const { assets, supply } = await booksAt(sync, at);
      const max = toAssets(10n ** 15n, assets, supply);
      expect(max).to.be.lt(1_000n * USDC); // a day of management fee
      await expect(sync.connect(a.alice).withdraw(max + 1n, a.alice.address, a.alice.address))
        .to.be.revertedWithCustomError(sync, "ERC4626ExceededMaxWithdraw")
        .withArgs(a.alice.address, max + 1n, max);
    });

    it("never rounds a round trip in favour of the holder", async () => {
      const { sync } = await loadFixture(unlocking);
      for (const amount of [1n, 7n, 999n, 1_000_001n, 123_456_789n]) {
        expect(await sync.convertToAssets(await sync.convertToShares(amount))).to.be.lte(amount);
        expect(await sync.previewRedeem(await sync.previewDeposit(amount))).to.be.lte(amount);
        expect(await sync.previewMint(await sync.previewWithdraw(amount))).to.be.gte(amount);
        expect(await sync.previewWithdraw(amount)).to.be.gte(await sync.previewDeposit(amount));
      }
    });

    it("leaves assets sent to the vault out of the price and owes them to the fee recipient", async () => {
      const { a, usdc, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      const price = await sync.convertToAssets(10n ** 12n);
      const owedBefore = await sync.feesOwed();
      await usdc.connect(a.carol).transfer(await sync.getAddress(), 5_000n * USDC);
      expect(await sync.convertToAssets(10n ** 12n)).to.equal(price);
      expect(await sync.accountedAssets()).to.equal(1_000n * USDC);
      expect(await sync.feesOwed()).to.equal(owedBefore + 5_000n * USDC);
    });
  });

  describe("deposit cap", () => {
    it("reflects the room under the cap exactly in maxDeposit and maxMint", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      const cap = 1_000_000n * USDC;
      expect(await sync.maxDeposit(a.alice.address)).to.equal(cap);
      expect(await sync.maxMint(a.alice.address)).to.equal(toShares(cap, 0n, 0n));
      await sync.connect(a.alice).deposit(400_000n * USDC, a.alice.address);
      await sync.connect(a.harvester).report(12_345n);
      await time.increase(HOUR);
      const assets = await sync.totalAssets();
      expect(await sync.maxDeposit(a.bob.address)).to.equal(cap - assets);
      expect(await sync.maxMint(a.bob.address)).to.equal(toShares(cap - assets, assets, await sync.totalSupply()));
      // At the next block the room has grown by the management fee since the last accrual.
      const at = await nextAt();
      const books = await booksAt(sync, at);
      const maxMint = toShares(cap - books.assets, books.assets, books.supply);
      await expect(sync.connect(a.bob).mint(maxMint + 1n, a.bob.address))
        .to.be.revertedWithCustomError(sync, "ERC4626ExceededMaxMint")
        .withArgs(a.bob.address, maxMint + 1n, maxMint);
      await time.setNextBlockTimestamp(at + 1n);
      const again = await booksAt(sync, at + 1n);
      const fits = toShares(cap - again.assets, again.assets, again.supply);
      await sync.connect(a.bob).mint(fits, a.bob.address);
      expect(await sync.totalAssets()).to.be.lte(cap);
      expect(cap - (await sync.totalAssets())).to.equal(await sync.maxDeposit(a.bob.address));
    });

    it("refuses a deposit above the room and allows one that fills it", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      const cap = 1_000_000n * USDC;
      await sync.connect(a.alice).deposit(cap - 10n, a.alice.address);
      let at = await nextAt();
      const room = cap - (await booksAt(sync, at)).assets;
      expect(room).to.be.gt(10n); // a second of management fee on 1,000,000 USDC frees room
      await expect(sync.connect(a.bob).deposit(room + 1n, a.bob.address))
        .to.be.revertedWithCustomError(sync, "ERC4626ExceededMaxDeposit")
        .withArgs(a.bob.address, room + 1n, room);
      at = await nextAt();
      await sync.connect(a.bob).deposit(cap - (await booksAt(sync, at)).assets, a.bob.address);
      expect(await sync.maxDeposit(a.bob.address)).to.equal(0);
      expect(await sync.maxMint(a.bob.address)).to.equal(0);
    });

    it("counts the books, not the asset balance, against the cap: assets sent to the vault take no room", async () => {
      const { a, usdc, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(400_000n * USDC, a.alice.address);
      await usdc.connect(a.carol).transfer(await sync.getAddress(), 700_000n * USDC);
      expect(await sync.maxDeposit(a.bob.address)).to.equal(1_000_000n * USDC - (await sync.totalAssets()));
    });
  });

  describe("pause", () => {
    it("lets only the guardian pause and unpause, with events", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await expect(sync.connect(a.admin).pause())
        .to.be.revertedWithCustomError(sync, "AccessControlUnauthorizedAccount")
        .withArgs(a.admin.address, GUARDIAN_ROLE);
      await expect(sync.connect(a.guardian).pause()).to.emit(sync, "Paused").withArgs(a.guardian.address);
      expect(await sync.paused()).to.equal(true);
      await expect(sync.connect(a.guardian).pause()).to.be.revertedWithCustomError(sync, "VaultIsPaused");
      await expect(sync.connect(a.alice).unpause())
        .to.be.revertedWithCustomError(sync, "AccessControlUnauthorizedAccount")
        .withArgs(a.alice.address, GUARDIAN_ROLE);
      await expect(sync.connect(a.guardian).unpause()).to.emit(sync, "Unpaused").withArgs(a.guardian.address);
      await expect(sync.connect(a.guardian).unpause()).to.be.revertedWithCustomError(sync, "VaultIsNotPaused");
    });

    it("closes entries and reports but keeps exits open", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      await sync.connect(a.guardian).pause();
      expect(await sync.maxDeposit(a.bob.address)).to.equal(0);
      expect(await sync.maxMint(a.bob.address)).to.equal(0);
      expect(await sync.maxRedeem(a.alice.address)).to.equal(10n ** 15n);
      expect(await sync.maxWithdraw(a.alice.address)).to.equal(1_000n * USDC);
      await expect(sync.connect(a.bob).deposit(1n, a.bob.address))
        .to.be.revertedWithCustomError(sync, "ERC4626ExceededMaxDeposit")
        .withArgs(a.bob.address, 1n, 0n);
      await expect(sync.connect(a.bob).mint(1n, a.bob.address))
        .to.be.revertedWithCustomError(sync, "ERC4626ExceededMaxMint")
        .withArgs(a.bob.address, 1n, 0n);
      await expect(sync.connect(a.bob).deposit(0n, a.bob.address)).to.be.revertedWithCustomError(sync, "VaultIsPaused");
      await expect(sync.connect(a.bob).mint(0n, a.bob.address)).to.be.revertedWithCustomError(sync, "VaultIsPaused");
      await expect(sync.connect(a.harvester).report(1n)).to.be.revertedWithCustomError(sync, "VaultIsPaused");
      await expect(sync.connect(a.alice).withdraw(100n * USDC, a.alice.address, a.alice.address)).to.emit(
        sync,
        "Withdraw",
      );
      await expect(sync.connect(a.alice).redeem(10n ** 14n, a.alice.address, a.alice.address)).to.emit(
        sync,
        "Withdraw",
      );
      await expect(sync.connect(a.alice).transfer(a.bob.address, 1n)).to.emit(sync, "Transfer");
      await sync.connect(a.guardian).unpause();
      expect(await sync.maxDeposit(a.bob.address)).to.equal(1_000_000n * USDC - (await sync.totalAssets()));
    });
  });

  describe("synchronous vault and ERC-7540", () => {
    it("refuses requests, has nothing to fill, and advertises only ERC-7575", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      await expect(
        sync.connect(a.alice).requestRedeem(1n, a.alice.address, a.alice.address),
      ).to.be.revertedWithCustomError(sync, "AsyncRedeemNotSupported");
      await expect(sync.connect(a.fulfiller).fulfillRedeem(a.alice.address))
        .to.be.revertedWithCustomError(sync, "NothingToFulfill")
        .withArgs(a.alice.address);
      expect(await sync.pendingRedeemRequest(0, a.alice.address)).to.equal(0);
      expect(await sync.claimableRedeemRequest(0, a.alice.address)).to.equal(0);
      expect(await sync.supportsInterface("0x2f0a18c5")).to.equal(true);
      expect(await sync.supportsInterface("0xe3bc4e65")).to.equal(false);
      expect(await sync.supportsInterface("0x620ee8e4")).to.equal(false);
      expect(await sync.supportsInterface("0x01ffc9a7")).to.equal(true); // ERC-165
      expect(await sync.supportsInterface("0x7965db0b")).to.equal(true); // IAccessControl
      expect(await sync.supportsInterface("0xffffffff")).to.equal(false);
    });
  });

  describe("allocations", () => {
    const s1 = ethers.id("strategy-1");
    const s2 = ethers.id("strategy-2");

    it("records the manager's allocations with an event", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      const list = [
        { strategyId: s1, targetBps: 6_000 },
        { strategyId: s2, targetBps: 4_000 },
      ];
      await expect(sync.connect(a.manager).setAllocations(list))
        .to.emit(sync, "AllocationsUpdated")
        .withArgs([
          [s1, 6_000n],
          [s2, 4_000n],
        ]);
      expect(await sync.allocations()).to.deep.equal([
        [s1, 6_000n],
        [s2, 4_000n],
      ]);
      await sync.connect(a.manager).setAllocations([{ strategyId: s2, targetBps: 0 }]);
      expect(await sync.allocations()).to.deep.equal([[s2, 0n]]);
      await sync.connect(a.manager).setAllocations([]);
      expect(await sync.allocations()).to.deep.equal([]);
    });

    it("rejects bad lists and other callers", async () => {
      const { a, sync } = await loadFixture(deployWorld);
      await expect(sync.connect(a.admin).setAllocations([]))
        .to.be.revertedWithCustomError(sync, "AccessControlUnauthorizedAccount")
        .withArgs(a.admin.address, MANAGER_ROLE);
      const many = Array.from({ length: 21 }, (_, i) => ({ strategyId: ethers.id(`s${i}`), targetBps: 1 }));
      await expect(sync.connect(a.manager).setAllocations(many))
        .to.be.revertedWithCustomError(sync, "TooManyAllocations")
        .withArgs(21, 20);
      await expect(
        sync.connect(a.manager).setAllocations([
          { strategyId: s1, targetBps: 1 },
          { strategyId: ethers.ZeroHash, targetBps: 1 },
        ]),
      )
        .to.be.revertedWithCustomError(sync, "ZeroStrategyId")
        .withArgs(1);
      await expect(
        sync.connect(a.manager).setAllocations([
          { strategyId: s1, targetBps: 1 },
          { strategyId: s2, targetBps: 1 },
          { strategyId: s1, targetBps: 1 },
        ]),
      )
        .to.be.revertedWithCustomError(sync, "DuplicateStrategyId")
        .withArgs(s1);
      await expect(
        sync.connect(a.manager).setAllocations([
          { strategyId: s1, targetBps: 5_000 },
          { strategyId: s2, targetBps: 5_001 },
        ]),
      )
        .to.be.revertedWithCustomError(sync, "AllocationsExceedTotal")
        .withArgs(10_001, 10_000);
    });
  });

  describe("fee recipient", () => {
    it("lets only the admin change it, paying the old recipient what it is owed first", async () => {
      const { a, usdc, sync } = await loadFixture(deployWorld);
      await sync.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      await expect(sync.connect(a.manager).setFeeRecipient(a.bob.address))
        .to.be.revertedWithCustomError(sync, "AccessControlUnauthorizedAccount")
        .withArgs(a.manager.address, ADMIN_ROLE);
      await expect(sync.connect(a.admin).setFeeRecipient(ethers.ZeroAddress)).to.be.revertedWithCustomError(
        sync,
        "ZeroAddress",
      );
      const at = await nextAt(DAY);
      const { fee } = await booksAt(sync, at);
      expect(fee).to.equal(managementFee(1_000n * USDC, 200n, at - (await sync.lastFeeAccrual())).fee);
      expect(fee).to.be.gt((5n * USDC) / 100n); // a day of 2% a year on 1,000 USDC: 0.0547 USDC
      const before = await usdc.balanceOf(a.feeRecipient.address);
      const tx = sync.connect(a.admin).setFeeRecipient(a.bob.address);
      await expect(tx).to.emit(sync, "FeesAccrued").withArgs(a.feeRecipient.address, fee, 0);
      await expect(tx).to.emit(sync, "FeesClaimed").withArgs(a.feeRecipient.address, fee);
      await expect(tx).to.emit(sync, "FeeRecipientUpdated").withArgs(a.bob.address);
      expect(await usdc.balanceOf(a.feeRecipient.address)).to.equal(before + fee);
      expect(await sync.feeRecipient()).to.equal(a.bob.address);
      expect(await sync.feesOwed()).to.equal(0);
    });

    it("changes a recipient the asset refuses to pay, leaving its fees to the new one", async () => {
      const { a } = await loadFixture(deployWorld);
      const token = await new BlockingUSDC__factory(a.deployer).deploy();
      const vault = await new NapVault__factory(a.deployer).deploy(
        params(await token.getAddress(), a.feeRecipient.address),
        roles(a),
        [],
      );
      await token.mint(a.alice.address, 1_000n * USDC);
      await token.connect(a.alice).approve(await vault.getAddress(), MAX_UINT);
      await vault.connect(a.alice).deposit(1_000n * USDC, a.alice.address);
      await time.increase(DAY);
      await token.blockRecipient(a.feeRecipient.address);
      await expect(vault.claimFees())
        .to.be.revertedWithCustomError(token, "BlockedRecipient")
        .withArgs(a.feeRecipient.address);
      const tx = vault.connect(a.admin).setFeeRecipient(a.bob.address);
      await expect(tx).to.emit(vault, "FeeRecipientUpdated").withArgs(a.bob.address);
      await expect(tx).to.not.emit(vault, "FeesClaimed");
      // Everything beyond the books, the day's fee included, now goes to the new recipient.
      const books = await vault.accountedAssets();
      const balance = await token.balanceOf(await vault.getAddress());
      expect(balance - books).to.be.gt(0);
      const at = BigInt((await time.latest()) + 1);
      await time.setNextBlockTimestamp(at);
      const { fee } = await booksAt(vault, at);
      // claimFees carries the fraction of a unit left by setFeeRecipient's accrual: at most one unit more.
      const expected = balance - books + fee;
      await expect(vault.claimFees())
        .to.emit(vault, "FeesClaimed")
        .withArgs(a.bob.address, (paid: bigint) => paid === expected || paid === expected + 1n);
      expect(await token.balanceOf(a.bob.address)).to.be.oneOf([expected, expected + 1n]);
      expect(await vault.feesOwed()).to.equal(0);
    });
  });
});
