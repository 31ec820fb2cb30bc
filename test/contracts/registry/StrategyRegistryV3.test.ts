import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { Status, ONE_WEEK, defaultParams, deployRegistry, expectedId, riskParamsOf, submitAs } from "./helpers";

const MAX184 = (1n << 184n) - 1n;

describe("StrategyRegistryV3", () => {
  describe("constructor and parameters", () => {
    it("stores the thresholds and period and emits their events", async () => {
      const [admin] = await ethers.getSigners();
      const registry = await ethers.deployContract("StrategyRegistryV3", [admin.address, 3, 1, 60]);
      const tx = registry.deploymentTransaction()!;
      await expect(tx).to.emit(registry, "GuardianThresholdSet").withArgs(0, 3);
      await expect(tx).to.emit(registry, "OracleThresholdSet").withArgs(0, 1);
      await expect(tx).to.emit(registry, "MinPaperTradingPeriodSet").withArgs(0, 60);
      expect(await registry.guardianThreshold()).to.equal(3n);
      expect(await registry.oracleThreshold()).to.equal(1n);
      expect(await registry.minPaperTradingPeriod()).to.equal(60n);
      expect(await registry.hasRole(await registry.DEFAULT_ADMIN_ROLE(), admin.address)).to.equal(true);
    });

    it("rejects thresholds of 0 or above 32 and a period above 365 days at deployment", async () => {
      const [admin] = await ethers.getSigners();
      const factory = await ethers.getContractFactory("StrategyRegistryV3");
      await expect(factory.deploy(admin.address, 0, 1, 0))
        .to.be.revertedWithCustomError(factory, "StrategyThresholdOutOfBounds")
        .withArgs(0, 1, 32);
      await expect(factory.deploy(admin.address, 1, 33, 0))
        .to.be.revertedWithCustomError(factory, "StrategyThresholdOutOfBounds")
        .withArgs(33, 1, 32);
      await expect(factory.deploy(admin.address, 1, 1, 365 * 86400 + 1))
        .to.be.revertedWithCustomError(factory, "StrategyPeriodOutOfBounds")
        .withArgs(365 * 86400 + 1, 365 * 86400);
    });

    it("lets the admin set each parameter within bounds, with events", async () => {
      const { registry } = await loadFixture(deployRegistry);
      await expect(registry.setGuardianThreshold(3)).to.emit(registry, "GuardianThresholdSet").withArgs(2, 3);
      await expect(registry.setOracleThreshold(32)).to.emit(registry, "OracleThresholdSet").withArgs(2, 32);
      await expect(registry.setMinPaperTradingPeriod(0))
        .to.emit(registry, "MinPaperTradingPeriodSet")
        .withArgs(ONE_WEEK, 0);
      expect(await registry.guardianThreshold()).to.equal(3n);
      expect(await registry.oracleThreshold()).to.equal(32n);
      expect(await registry.minPaperTradingPeriod()).to.equal(0n);
      await expect(registry.setGuardianThreshold(0))
        .to.be.revertedWithCustomError(registry, "StrategyThresholdOutOfBounds")
        .withArgs(0, 1, 32);
      await expect(registry.setGuardianThreshold(33))
        .to.be.revertedWithCustomError(registry, "StrategyThresholdOutOfBounds")
        .withArgs(33, 1, 32);
      await expect(registry.setOracleThreshold(0))
        .to.be.revertedWithCustomError(registry, "StrategyThresholdOutOfBounds")
        .withArgs(0, 1, 32);
      await expect(registry.setMinPaperTradingPeriod(365 * 86400 + 1))
        .to.be.revertedWithCustomError(registry, "StrategyPeriodOutOfBounds")
        .withArgs(365 * 86400 + 1, 365 * 86400);
    });

    it("refuses parameter changes from an account without the admin role", async () => {
      const { registry, stranger } = await loadFixture(deployRegistry);
      const adminRole = await registry.DEFAULT_ADMIN_ROLE();
      for (const call of [
        () => registry.connect(stranger).setGuardianThreshold(1),
        () => registry.connect(stranger).setOracleThreshold(1),
        () => registry.connect(stranger).setMinPaperTradingPeriod(1),
      ]) {
        await expect(call())
          .to.be.revertedWithCustomError(registry, "AccessControlUnauthorizedAccount")
          .withArgs(stranger.address, adminRole);
      }
    });
  });

  describe("submit", () => {
    it("records the strategy in shadow with every field, returns the derived id and emits StrategySubmitted", async () => {
      const { registry, owner } = await loadFixture(deployRegistry);
      const dna = ethers.id("my-dna");
      const params = {
        ...defaultParams(),
        flashLoansEnabled: true,
        velocityLimit: 5_000n,
      };
      const { chainId } = await ethers.provider.getNetwork();
      const id = expectedId(chainId, await registry.getAddress(), owner.address, 0n, dna);
      expect(await registry.connect(owner).submit.staticCall("Name", "Description", dna, params)).to.equal(id);
      const tx = await registry.connect(owner).submit("Name", "Description", dna, params);
      const ts = await time.latest();
      await expect(tx)
        .to.emit(registry, "StrategySubmitted")
        .withArgs(id, owner.address, dna, "Name", "Description", [10n, 200n, 500n, 100n, 70n, 5000n, true], ts);
      const s = await registry.getStrategy(id);
      expect(s.id).to.equal(id);
      expect(s.owner).to.equal(owner.address);
      expect(s.name).to.equal("Name");
      expect(s.description).to.equal("Description");
      expect(s.dna).to.equal(dna);
      expect(s.status).to.equal(BigInt(Status.Shadow));
      expect(s.pausedFrom).to.equal(BigInt(Status.Shadow));
      expect(s.createdAt).to.equal(BigInt(ts));
      expect(s.lastStatusChange).to.equal(BigInt(ts));
      expect(riskParamsOf(s.params)).to.deep.equal({
        maxPositionSizePercent: 10n,
        maxLeverage: 200n,
        stopLossPercent: 500n,
        slippageToleranceBps: 100n,
        correlationThreshold: 70n,
        velocityLimit: 5000n,
        flashLoansEnabled: true,
      });
      expect([s.guardianApprovals, s.guardianRejections, s.oracleApprovals, s.oracleRejections]).to.deep.equal([
        0n,
        0n,
        0n,
        0n,
      ]);
    });

    it("gives distinct ids to the same DNA submitted twice by one owner and by two owners", async () => {
      const { registry, owner, stranger } = await loadFixture(deployRegistry);
      const a = await submitAs(registry, owner);
      const b = await submitAs(registry, owner);
      const c = await submitAs(registry, stranger);
      expect(new Set([a, b, c]).size).to.equal(3);
      const { chainId } = await ethers.provider.getNetwork();
      expect(b).to.equal(expectedId(chainId, await registry.getAddress(), owner.address, 1n, ethers.id("dna")));
    });

    it("accepts every bound exactly at its edge, and texts of 3/100 and 10/2000 bytes", async () => {
      const { registry, owner } = await loadFixture(deployRegistry);
      const low = {
        maxPositionSizePercent: 1n,
        maxLeverage: 100n,
        stopLossPercent: 50n,
        slippageToleranceBps: 1n,
        correlationThreshold: 0n,
        velocityLimit: 1000n,
        flashLoansEnabled: false,
      };
      const high = {
        maxPositionSizePercent: 100n,
        maxLeverage: 1000n,
        stopLossPercent: 5000n,
        slippageToleranceBps: 1000n,
        correlationThreshold: 100n,
        velocityLimit: MAX184,
        flashLoansEnabled: true,
      };
      await registry.connect(owner).submit("abc", "0123456789", ethers.ZeroHash, low);
      await registry.connect(owner).submit("n".repeat(100), "d".repeat(2000), ethers.ZeroHash, high);
      const [first, second] = await registry.strategiesOf(owner.address, 0, 10);
      expect(riskParamsOf(first.params)).to.deep.equal(low);
      expect(riskParamsOf(second.params)).to.deep.equal(high);
      expect(second.description).to.equal("d".repeat(2000));
    });

    it("counts text bounds in bytes, not characters", async () => {
      const { registry, owner } = await loadFixture(deployRegistry);
      // "é" is two bytes in UTF-8: 51 of them are 102 bytes.
      await expect(registry.connect(owner).submit("é".repeat(51), "0123456789", ethers.ZeroHash, defaultParams()))
        .to.be.revertedWithCustomError(registry, "StrategyTextLengthOutOfBounds")
        .withArgs("name", 102, 3, 100);
    });

    const textCases: [string, string, string, number, number, number][] = [
      ["name", "ab", "0123456789", 2, 3, 100],
      ["name", "n".repeat(101), "0123456789", 101, 3, 100],
      ["description", "abc", "012345678", 9, 10, 2000],
      ["description", "abc", "d".repeat(2001), 2001, 10, 2000],
    ];
    for (const [field, name, description, length, min, max] of textCases) {
      it(`rejects a ${field} of ${length} bytes`, async () => {
        const { registry, owner } = await loadFixture(deployRegistry);
        await expect(registry.connect(owner).submit(name, description, ethers.ZeroHash, defaultParams()))
          .to.be.revertedWithCustomError(registry, "StrategyTextLengthOutOfBounds")
          .withArgs(field, length, min, max);
      });
    }

    const riskCases: [string, string, bigint, bigint, bigint][] = [
      ["maxPositionSizePercent", "max_position_size_percent", 0n, 1n, 100n],
      ["maxPositionSizePercent", "max_position_size_percent", 101n, 1n, 100n],
      ["maxLeverage", "max_leverage", 99n, 100n, 1000n],
      ["maxLeverage", "max_leverage", 1001n, 100n, 1000n],
      ["stopLossPercent", "stop_loss_percent", 49n, 50n, 5000n],
      ["stopLossPercent", "stop_loss_percent", 5001n, 50n, 5000n],
      ["slippageToleranceBps", "slippage_tolerance_bps", 0n, 1n, 1000n],
      ["slippageToleranceBps", "slippage_tolerance_bps", 1001n, 1n, 1000n],
      ["correlationThreshold", "correlation_threshold", 101n, 0n, 100n],
      ["velocityLimit", "velocity_limit", 999n, 1000n, MAX184],
      ["velocityLimit", "velocity_limit", MAX184 + 1n, 1000n, MAX184],
    ];
    for (const [field, param, value, min, max] of riskCases) {
      it(`rejects ${param} = ${value}`, async () => {
        const { registry, owner } = await loadFixture(deployRegistry);
        const params = { ...defaultParams(), [field]: value };
        await expect(registry.connect(owner).submit("Name", "Description", ethers.ZeroHash, params))
          .to.be.revertedWithCustomError(registry, "StrategyRiskParamOutOfBounds")
          .withArgs(param, value, min, max);
      });
    }
  });

  describe("reads", () => {
    it("pages an owner's strategies in submission order and counts them", async () => {
      const { registry, owner, stranger } = await loadFixture(deployRegistry);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await submitAs(registry, owner, `Strategy ${i}`));
      await submitAs(registry, stranger);
      expect(await registry.strategyCountOf(owner.address)).to.equal(5n);
      expect(await registry.strategyCountOf(stranger.address)).to.equal(1n);
      expect(await registry.strategyIdsOf(owner.address, 0, 100)).to.deep.equal(ids);
      expect(await registry.strategyIdsOf(owner.address, 1, 2)).to.deep.equal(ids.slice(1, 3));
      expect(await registry.strategyIdsOf(owner.address, 4, 10)).to.deep.equal(ids.slice(4));
      expect(await registry.strategyIdsOf(owner.address, 5, 10)).to.deep.equal([]);
      const page = await registry.strategiesOf(owner.address, 3, 10);
      expect(page.map((s) => s.id)).to.deep.equal(ids.slice(3));
      expect(page.map((s) => s.name)).to.deep.equal(["Strategy 3", "Strategy 4"]);
      expect(await registry.strategiesOf(owner.address, 9, 10)).to.deep.equal([]);
      expect(await registry.strategiesOf(owner.address, 0, 0)).to.deep.equal([]);
    });

    it("reverts getStrategy for an unknown id", async () => {
      const { registry } = await loadFixture(deployRegistry);
      const id = ethers.id("nope");
      await expect(registry.getStrategy(id)).to.be.revertedWithCustomError(registry, "StrategyUnknown").withArgs(id);
    });
  });

  describe("lifecycle", () => {
    async function inShadow() {
      const f = await deployRegistry();
      const id = await submitAs(f.registry, f.owner);
      return { ...f, id };
    }
    async function inReview() {
      const f = await inShadow();
      await f.registry.connect(f.screener).passScreening(f.id);
      return f;
    }
    async function inPaperTrading() {
      const f = await inReview();
      await f.registry.connect(f.guardian1).guardianVote(f.id, true);
      await f.registry.connect(f.guardian2).guardianVote(f.id, true);
      return f;
    }
    async function inOracleApproval() {
      const f = await inPaperTrading();
      await time.increase(ONE_WEEK);
      await f.registry.connect(f.manager).completePaperTrading(f.id);
      return f;
    }
    async function inLive() {
      const f = await inOracleApproval();
      await f.registry.connect(f.oracle1).oracleVote(f.id, true);
      await f.registry.connect(f.oracle2).oracleVote(f.id, true);
      return f;
    }

    it("screening pass: shadow -> guardian_review by the screener, with event and timestamp", async () => {
      const { registry, screener, id } = await loadFixture(inShadow);
      await time.increase(100);
      const tx = await registry.connect(screener).passScreening(id);
      const ts = await time.latest();
      await expect(tx)
        .to.emit(registry, "StrategyStatusChanged")
        .withArgs(id, Status.Shadow, Status.GuardianReview, screener.address, ts);
      const s = await registry.getStrategy(id);
      expect(s.status).to.equal(BigInt(Status.GuardianReview));
      expect(s.lastStatusChange).to.equal(BigInt(ts));
      expect(s.createdAt).to.equal(BigInt(ts - 101));
    });

    it("screening failure: shadow -> deprecated by the screener", async () => {
      const { registry, screener, id } = await loadFixture(inShadow);
      const at1 = await pinNextTimestamp();
      await expect(registry.connect(screener).failScreening(id))
        .to.emit(registry, "StrategyStatusChanged")
        .withArgs(id, Status.Shadow, Status.Deprecated, screener.address, at1);
      expect((await registry.getStrategy(id)).status).to.equal(BigInt(Status.Deprecated));
    });

    it("refuses screening moves outside shadow with the from and to states", async () => {
      const { registry, screener, id } = await loadFixture(inReview);
      await expect(registry.connect(screener).passScreening(id))
        .to.be.revertedWithCustomError(registry, "StrategyIllegalTransition")
        .withArgs(id, Status.GuardianReview, Status.GuardianReview);
      await expect(registry.connect(screener).failScreening(id))
        .to.be.revertedWithCustomError(registry, "StrategyIllegalTransition")
        .withArgs(id, Status.GuardianReview, Status.Deprecated);
    });

    it("guardian approvals: the k-th approval moves guardian_review -> paper_trading", async () => {
      const { registry, guardian1, guardian2, id } = await loadFixture(inReview);
      await expect(registry.connect(guardian1).guardianVote(id, true))
        .to.emit(registry, "GuardianVoteCast")
        .withArgs(id, guardian1.address, true, 1, 0)
        .and.not.to.emit(registry, "StrategyStatusChanged");
      expect(await registry.guardianVoteOf(id, guardian1.address)).to.equal(1n);
      const tx = registry.connect(guardian2).guardianVote(id, true);
      await expect(tx).to.emit(registry, "GuardianVoteCast").withArgs(id, guardian2.address, true, 2, 0);
      await expect(tx)
        .to.emit(registry, "StrategyStatusChanged")
        .withArgs(id, Status.GuardianReview, Status.PaperTrading, guardian2.address, await time.latest());
      const s = await registry.getStrategy(id);
      expect(s.status).to.equal(BigInt(Status.PaperTrading));
      expect(s.guardianApprovals).to.equal(2n);
    });

    it("guardian rejections: the k-th rejection deprecates, a mixed tally waits", async () => {
      const { registry, guardian1, guardian2, guardian3, id } = await loadFixture(inReview);
      await registry.connect(guardian1).guardianVote(id, false);
      await registry.connect(guardian2).guardianVote(id, true);
      expect((await registry.getStrategy(id)).status).to.equal(BigInt(Status.GuardianReview));
      expect(await registry.guardianVoteOf(id, guardian1.address)).to.equal(2n);
      const tx = registry.connect(guardian3).guardianVote(id, false);
      await expect(tx).to.emit(registry, "GuardianVoteCast").withArgs(id, guardian3.address, false, 1, 2);
      await expect(tx)
        .to.emit(registry, "StrategyStatusChanged")
        .withArgs(id, Status.GuardianReview, Status.Deprecated, guardian3.address, await time.latest());
    });

    it("refuses a second vote by the same guardian and a vote outside guardian_review", async () => {
      const { registry, guardian1, id } = await loadFixture(inReview);
      await registry.connect(guardian1).guardianVote(id, true);
      await expect(registry.connect(guardian1).guardianVote(id, false))
        .to.be.revertedWithCustomError(registry, "StrategyAlreadyVoted")
        .withArgs(id, guardian1.address);
      const f = await loadFixture(inShadow);
      await expect(f.registry.connect(f.guardian1).guardianVote(f.id, true))
        .to.be.revertedWithCustomError(f.registry, "StrategyIllegalTransition")
        .withArgs(f.id, Status.Shadow, Status.PaperTrading);
      await expect(f.registry.connect(f.guardian1).guardianVote(f.id, false))
        .to.be.revertedWithCustomError(f.registry, "StrategyIllegalTransition")
        .withArgs(f.id, Status.Shadow, Status.Deprecated);
    });

    it("paper trading ends in pending_oracle_approval by the manager after the minimum period, not before", async () => {
      const { registry, manager, id } = await loadFixture(inPaperTrading);
      const entered = Number((await registry.getStrategy(id)).lastStatusChange);
      await time.setNextBlockTimestamp(entered + ONE_WEEK - 1);
      await expect(registry.connect(manager).completePaperTrading(id))
        .to.be.revertedWithCustomError(registry, "StrategyPaperTradingTooShort")
        .withArgs(id, entered + ONE_WEEK, entered + ONE_WEEK - 1);
      await time.setNextBlockTimestamp(entered + ONE_WEEK);
      await expect(registry.connect(manager).completePaperTrading(id))
        .to.emit(registry, "StrategyStatusChanged")
        .withArgs(id, Status.PaperTrading, Status.PendingOracleApproval, manager.address, entered + ONE_WEEK);
    });

    it("refuses completePaperTrading outside paper_trading", async () => {
      const { registry, manager, id } = await loadFixture(inReview);
      await expect(registry.connect(manager).completePaperTrading(id))
        .to.be.revertedWithCustomError(registry, "StrategyIllegalTransition")
        .withArgs(id, Status.GuardianReview, Status.PendingOracleApproval);
    });

    it("oracle approvals make a strategy live at the k-th vote", async () => {
      const { registry, oracle1, oracle2, id } = await loadFixture(inOracleApproval);
      await expect(registry.connect(oracle1).oracleVote(id, true))
        .to.emit(registry, "OracleVoteCast")
        .withArgs(id, oracle1.address, true, 1, 0);
      expect(await registry.oracleVoteOf(id, oracle1.address)).to.equal(1n);
      await expect(registry.connect(oracle1).oracleVote(id, true))
        .to.be.revertedWithCustomError(registry, "StrategyAlreadyVoted")
        .withArgs(id, oracle1.address);
      const tx = registry.connect(oracle2).oracleVote(id, true);
      await expect(tx).to.emit(registry, "OracleVoteCast").withArgs(id, oracle2.address, true, 2, 0);
      await expect(tx)
        .to.emit(registry, "StrategyStatusChanged")
        .withArgs(id, Status.PendingOracleApproval, Status.Live, oracle2.address, await time.latest());
      const s = await registry.getStrategy(id);
      expect(s.status).to.equal(BigInt(Status.Live));
      expect(s.oracleApprovals).to.equal(2n);
    });

    it("oracle rejections deprecate at the k-th vote", async () => {
      const { registry, oracle1, oracle2, id } = await loadFixture(inOracleApproval);
      await registry.connect(oracle1).oracleVote(id, false);
      expect(await registry.oracleVoteOf(id, oracle1.address)).to.equal(2n);
      const at2 = await pinNextTimestamp();
      await expect(registry.connect(oracle2).oracleVote(id, false))
        .to.emit(registry, "StrategyStatusChanged")
        .withArgs(id, Status.PendingOracleApproval, Status.Deprecated, oracle2.address, at2);
      expect((await registry.getStrategy(id)).oracleRejections).to.equal(2n);
    });

    it("refuses an oracle vote outside pending_oracle_approval", async () => {
      const { registry, oracle1, id } = await loadFixture(inPaperTrading);
      await expect(registry.connect(oracle1).oracleVote(id, true))
        .to.be.revertedWithCustomError(registry, "StrategyIllegalTransition")
        .withArgs(id, Status.PaperTrading, Status.Live);
      await expect(registry.connect(oracle1).oracleVote(id, false))
        .to.be.revertedWithCustomError(registry, "StrategyIllegalTransition")
        .withArgs(id, Status.PaperTrading, Status.Deprecated);
    });

    const activeFixtures: [string, number, () => ReturnType<typeof inShadow>][] = [
      ["shadow", Status.Shadow, inShadow],
      ["guardian_review", Status.GuardianReview, inReview],
      ["paper_trading", Status.PaperTrading, inPaperTrading],
      ["pending_oracle_approval", Status.PendingOracleApproval, inOracleApproval],
      ["live", Status.Live, inLive],
    ];
    for (const [label, status, fixture] of activeFixtures) {
      it(`circuit breaker: pauses ${label} and resumes to ${label}`, async () => {
        const { registry, guardian3, id } = await loadFixture(fixture);
        const at3 = await pinNextTimestamp();
        await expect(registry.connect(guardian3).pause(id))
          .to.emit(registry, "StrategyStatusChanged")
          .withArgs(id, status, Status.Paused, guardian3.address, at3);
        let s = await registry.getStrategy(id);
        expect(s.status).to.equal(BigInt(Status.Paused));
        expect(s.pausedFrom).to.equal(BigInt(status));
        const at4 = await pinNextTimestamp();
        await expect(registry.connect(guardian3).resume(id))
          .to.emit(registry, "StrategyStatusChanged")
          .withArgs(id, Status.Paused, status, guardian3.address, at4);
        s = await registry.getStrategy(id);
        expect(s.status).to.equal(BigInt(status));
        expect(s.lastStatusChange).to.equal(BigInt(await time.latest()));
      });

      it(`deprecates from ${label} at the k-th guardian's deprecation vote`, async () => {
        const { registry, guardian1, guardian3, id } = await loadFixture(fixture);
        await expect(registry.connect(guardian3).deprecate(id))
          .to.emit(registry, "DeprecationVoteCast")
          .withArgs(id, guardian3.address, 1)
          .and.not.to.emit(registry, "StrategyStatusChanged");
        expect((await registry.getStrategy(id)).status).to.equal(BigInt(status));
        const at5 = await pinNextTimestamp();
        const tx = registry.connect(guardian1).deprecate(id);
        await expect(tx).to.emit(registry, "DeprecationVoteCast").withArgs(id, guardian1.address, 2);
        await expect(tx)
          .to.emit(registry, "StrategyStatusChanged")
          .withArgs(id, status, Status.Deprecated, guardian1.address, at5);
      });
    }

    it("keeps guardian votes cast before a pause and leaves paused time out of the paper-trading clock", async () => {
      const f = await loadFixture(inReview);
      await f.registry.connect(f.guardian1).guardianVote(f.id, true);
      await f.registry.connect(f.guardian1).pause(f.id);
      await expect(f.registry.connect(f.guardian2).guardianVote(f.id, true))
        .to.be.revertedWithCustomError(f.registry, "StrategyIllegalTransition")
        .withArgs(f.id, Status.Paused, Status.PaperTrading);
      await f.registry.connect(f.guardian1).resume(f.id);
      await f.registry.connect(f.guardian2).guardianVote(f.id, true);
      expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.PaperTrading));
      const entered = Number((await f.registry.getStrategy(f.id)).lastStatusChange);
      // Three days traded, paused for ten days, four more days traded: the week is complete.
      await time.setNextBlockTimestamp(entered + 3 * 86_400);
      await f.registry.connect(f.guardian1).pause(f.id);
      expect(await f.registry.paperTradingTime(f.id)).to.equal(BigInt(3 * 86_400));
      await time.setNextBlockTimestamp(entered + 13 * 86_400);
      await f.registry.connect(f.guardian1).resume(f.id);
      const readyAt = entered + 17 * 86_400;
      await time.setNextBlockTimestamp(readyAt - 1);
      await expect(f.registry.connect(f.manager).completePaperTrading(f.id))
        .to.be.revertedWithCustomError(f.registry, "StrategyPaperTradingTooShort")
        .withArgs(f.id, readyAt, readyAt - 1);
      await time.setNextBlockTimestamp(readyAt);
      await f.registry.connect(f.manager).completePaperTrading(f.id);
      expect(await f.registry.paperTradingTime(f.id)).to.equal(BigInt(ONE_WEEK));
    });

    it("deprecates a paused strategy, and deprecated is terminal for every function", async () => {
      const f = await loadFixture(inLive);
      await f.registry.connect(f.guardian1).pause(f.id);
      await f.registry.connect(f.guardian2).deprecate(f.id);
      const at6 = await pinNextTimestamp();
      await expect(f.registry.connect(f.guardian1).deprecate(f.id))
        .to.emit(f.registry, "StrategyStatusChanged")
        .withArgs(f.id, Status.Paused, Status.Deprecated, f.guardian1.address, at6);
      const D = Status.Deprecated;
      const cases = [
        [() => f.registry.connect(f.screener).passScreening(f.id), Status.GuardianReview],
        [() => f.registry.connect(f.screener).failScreening(f.id), D],
        [() => f.registry.connect(f.guardian3).guardianVote(f.id, true), Status.PaperTrading],
        [() => f.registry.connect(f.manager).completePaperTrading(f.id), Status.PendingOracleApproval],
        [() => f.registry.connect(f.oracle1).oracleVote(f.id, false), D],
        [() => f.registry.connect(f.guardian1).pause(f.id), Status.Paused],
        [() => f.registry.connect(f.guardian1).resume(f.id), D],
        [() => f.registry.connect(f.guardian1).deprecate(f.id), D],
      ] as const;
      for (const [call, to] of cases) {
        await expect(call())
          .to.be.revertedWithCustomError(f.registry, "StrategyIllegalTransition")
          .withArgs(f.id, D, to);
      }
    });

    it("refuses to pause a paused strategy and to resume an unpaused one", async () => {
      const { registry, guardian1, id } = await loadFixture(inShadow);
      await expect(registry.connect(guardian1).resume(id))
        .to.be.revertedWithCustomError(registry, "StrategyIllegalTransition")
        .withArgs(id, Status.Shadow, Status.Shadow);
      await registry.connect(guardian1).pause(id);
      await expect(registry.connect(guardian1).pause(id))
        .to.be.revertedWithCustomError(registry, "StrategyIllegalTransition")
        .withArgs(id, Status.Paused, Status.Paused);
    });

    it("refuses every lifecycle function to an account without its role", async () => {
      const f = await loadFixture(inShadow);
      const r = f.registry.connect(f.stranger);
      const [screener, guardian, manager, oracle] = await Promise.all([
        f.registry.SCREENER_ROLE(),
        f.registry.GUARDIAN_ROLE(),
        f.registry.MANAGER_ROLE(),
        f.registry.ORACLE_ROLE(),
      ]);
      const cases = [
        [() => r.passScreening(f.id), screener],
        [() => r.failScreening(f.id), screener],
        [() => r.guardianVote(f.id, true), guardian],
        [() => r.completePaperTrading(f.id), manager],
        [() => r.oracleVote(f.id, true), oracle],
        [() => r.pause(f.id), guardian],
        [() => r.resume(f.id), guardian],
        [() => r.deprecate(f.id), guardian],
      ] as const;
      for (const [call, role] of cases) {
        await expect(call())
          .to.be.revertedWithCustomError(f.registry, "AccessControlUnauthorizedAccount")
          .withArgs(f.stranger.address, role);
      }
    });

    it("reverts every lifecycle function for an unknown id", async () => {
      const f = await loadFixture(inShadow);
      const id = ethers.id("unknown");
      const cases = [
        () => f.registry.connect(f.screener).passScreening(id),
        () => f.registry.connect(f.screener).failScreening(id),
        () => f.registry.connect(f.guardian1).guardianVote(id, true),
        () => f.registry.connect(f.manager).completePaperTrading(id),
        () => f.registry.connect(f.oracle1).oracleVote(id, true),
        () => f.registry.connect(f.guardian1).pause(id),
        () => f.registry.connect(f.guardian1).resume(id),
        () => f.registry.connect(f.guardian1).deprecate(id),
      ];
      for (const call of cases) {
        await expect(call()).to.be.revertedWithCustomError(f.registry, "StrategyUnknown").withArgs(id);
      }
    });

    it("reads guardian motions and paper-trading time, and refuses them for an unknown id", async () => {
      const f = await loadFixture(inShadow);
      expect(await f.registry.guardianMotions(f.id)).to.deep.equal([0n, 0n, ethers.ZeroAddress]);
      expect(await f.registry.paperTradingTime(f.id)).to.equal(0n);
      expect(await f.registry.deprecationVoteOf(f.id, f.guardian1.address)).to.equal(false);
      expect(await f.registry.resumeVoteOf(f.id, f.guardian1.address)).to.equal(false);
      const id = ethers.id("unknown");
      const reads = [
        () => f.registry.guardianMotions(id),
        () => f.registry.paperTradingTime(id),
        () => f.registry.deprecationVoteOf(id, f.guardian1.address),
        () => f.registry.resumeVoteOf(id, f.guardian1.address),
      ];
      for (const read of reads) {
        await expect(read()).to.be.revertedWithCustomError(f.registry, "StrategyUnknown").withArgs(id);
      }
    });
  });
});

/** Fixes the next block's timestamp (one second after the latest) and returns it, before the transaction is sent. */
async function pinNextTimestamp(): Promise<number> {
  const at = (await time.latest()) + 1;
  await time.setNextBlockTimestamp(at);
  return at;
}
