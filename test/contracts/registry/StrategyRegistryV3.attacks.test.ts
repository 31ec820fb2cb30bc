/**
 * Attacks on the registry's reviews, each named after the attack: votes of a guardian or oracle whose role was
 * revoked (a compromised or departed key), split votes that leave a review where no outcome can be reached, and one
 * guardian overriding the 2-of-3 review through deprecation, pause and resume (3 guardians and 2 oracles, k = 2).
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ONE_WEEK, Status, deployRegistry, submitAs } from "./helpers";

async function inReview() {
  const f = await deployRegistry();
  const id = await submitAs(f.registry, f.owner);
  await f.registry.connect(f.screener).passScreening(id);
  return { ...f, id, guardianRole: await f.registry.GUARDIAN_ROLE(), oracleRole: await f.registry.ORACLE_ROLE() };
}

async function inOracleApproval() {
  const f = await inReview();
  await f.registry.connect(f.guardian1).guardianVote(f.id, true);
  await f.registry.connect(f.guardian2).guardianVote(f.id, true);
  await time.increase(ONE_WEEK);
  await f.registry.connect(f.manager).completePaperTrading(f.id);
  return f;
}

async function inPaperTrading() {
  const f = await inReview();
  await f.registry.connect(f.guardian1).guardianVote(f.id, true);
  await f.registry.connect(f.guardian2).guardianVote(f.id, true);
  return f;
}

async function inLive() {
  const f = await inOracleApproval();
  await f.registry.connect(f.oracle1).oracleVote(f.id, true);
  await f.registry.connect(f.oracle2).oracleVote(f.id, true);
  return f;
}

/** Fixes the next block's timestamp and returns it. */
async function at(timestamp: number): Promise<number> {
  await time.setNextBlockTimestamp(timestamp);
  return timestamp;
}

describe("StrategyRegistryV3 review attacks", () => {
  it("revoked guardian's approval pushes a strategy into paper trading: its vote no longer counts", async () => {
    const f = await loadFixture(inReview);
    await f.registry.connect(f.guardian1).guardianVote(f.id, true);
    // guardian1's key is found compromised and its role revoked; its approval must not count any more.
    await f.registry.revokeRole(f.guardianRole, f.guardian1.address);
    await expect(f.registry.connect(f.guardian2).guardianVote(f.id, true))
      .to.emit(f.registry, "GuardianVoteCast")
      .withArgs(f.id, f.guardian2.address, true, 1, 0)
      .and.not.to.emit(f.registry, "StrategyStatusChanged");
    let view = await f.registry.getStrategy(f.id);
    expect(view.status).to.equal(BigInt(Status.GuardianReview));
    expect([view.guardianApprovals, view.guardianRejections]).to.deep.equal([1n, 0n]);
    // A current guardian's approval decides.
    await expect(f.registry.connect(f.guardian3).guardianVote(f.id, true))
      .to.emit(f.registry, "StrategyStatusChanged")
      .withArgs(
        f.id,
        Status.GuardianReview,
        Status.PaperTrading,
        f.guardian3.address,
        await time.latest().then((t) => t + 1),
      );
    view = await f.registry.getStrategy(f.id);
    expect([view.guardianApprovals, view.guardianRejections]).to.deep.equal([2n, 0n]);
  });

  it("renounced oracle's approval makes a strategy live: its vote no longer counts", async () => {
    const f = await loadFixture(inOracleApproval);
    const [, , , , , , , , , , oracle3] = await ethers.getSigners();
    await f.registry.grantRole(f.oracleRole, oracle3.address);
    await f.registry.connect(f.oracle1).oracleVote(f.id, true);
    await f.registry.connect(f.oracle1).renounceRole(f.oracleRole, f.oracle1.address);
    await expect(f.registry.connect(f.oracle2).oracleVote(f.id, true))
      .to.emit(f.registry, "OracleVoteCast")
      .withArgs(f.id, f.oracle2.address, true, 1, 0)
      .and.not.to.emit(f.registry, "StrategyStatusChanged");
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.PendingOracleApproval));
    await f.registry.connect(oracle3).oracleVote(f.id, true);
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.Live));
  });

  it("split guardian vote with every guardian in leaves the review stuck: the last vote starts a new round", async () => {
    const f = await loadFixture(inReview);
    const [, , , , , , , , , , guardian4] = await ethers.getSigners();
    await f.registry.grantRole(f.guardianRole, guardian4.address);
    await f.registry.setGuardianThreshold(3);
    await f.registry.connect(f.guardian1).guardianVote(f.id, true);
    await f.registry.connect(f.guardian2).guardianVote(f.id, true);
    await f.registry.connect(f.guardian3).guardianVote(f.id, false);
    // 2 for, 2 against of 4 guardians with k = 3: neither side can reach 3 any more.
    await expect(f.registry.connect(guardian4).guardianVote(f.id, false))
      .to.emit(f.registry, "ReviewReset")
      .withArgs(f.id, Status.GuardianReview, 1, 2, 2);
    expect(await f.registry.reviewRounds(f.id)).to.deep.equal([1n, 0n]);
    expect(await f.registry.guardianVoteOf(f.id, f.guardian1.address)).to.equal(0n);
    // Every guardian may vote again; three approvals now decide.
    for (const g of [f.guardian1, f.guardian2, guardian4]) await f.registry.connect(g).guardianVote(f.id, true);
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.PaperTrading));
  });

  it("split oracle vote after a non-voter is revoked leaves the approval stuck: anyone settles it into a new round", async () => {
    const f = await loadFixture(inOracleApproval);
    const [, , , , , , , , , , oracle3] = await ethers.getSigners();
    await f.registry.grantRole(f.oracleRole, oracle3.address);
    await f.registry.connect(f.oracle1).oracleVote(f.id, true);
    await f.registry.connect(f.oracle2).oracleVote(f.id, false);
    await expect(f.registry.connect(f.stranger).settleReview(f.id))
      .to.be.revertedWithCustomError(f.registry, "StrategyReviewUndecided")
      .withArgs(f.id, 1, 1, 1, 2);
    // oracle3 leaves without voting: 1 for, 1 against, nobody left to vote.
    await f.registry.revokeRole(f.oracleRole, oracle3.address);
    await expect(f.registry.connect(f.stranger).settleReview(f.id))
      .to.emit(f.registry, "ReviewReset")
      .withArgs(f.id, Status.PendingOracleApproval, 1, 1, 1);
    await f.registry.connect(f.oracle1).oracleVote(f.id, true);
    await f.registry.connect(f.oracle2).oracleVote(f.id, true);
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.Live));
  });

  it("threshold lowered below a split tally: anyone settles it, and a rejection wins the tie at the threshold", async () => {
    const f = await loadFixture(inReview);
    await f.registry.connect(f.guardian1).guardianVote(f.id, false);
    await f.registry.connect(f.guardian2).guardianVote(f.id, true);
    // The admin lowers k to 1 while both votes are in: the rejection of a current guardian decides (rejection wins
    // a tie at the threshold).
    await f.registry.setGuardianThreshold(1);
    await expect(f.registry.connect(f.stranger).settleReview(f.id))
      .to.emit(f.registry, "StrategyStatusChanged")
      .withArgs(
        f.id,
        Status.GuardianReview,
        Status.Deprecated,
        f.stranger.address,
        await time.latest().then((t) => t + 1),
      );
  });

  it("settleReview refuses a strategy outside a review and an unknown id", async () => {
    const f = await loadFixture(inReview);
    await f.registry.connect(f.guardian1).guardianVote(f.id, true);
    await f.registry.connect(f.guardian2).guardianVote(f.id, true);
    await expect(f.registry.connect(f.stranger).settleReview(f.id))
      .to.be.revertedWithCustomError(f.registry, "StrategyNotInReview")
      .withArgs(f.id, Status.PaperTrading);
    await expect(f.registry.settleReview(ethers.ZeroHash))
      .to.be.revertedWithCustomError(f.registry, "StrategyUnknown")
      .withArgs(ethers.ZeroHash);
  });

  it("one registry guardian deprecates an approved strategy: its deprecation is one vote, k guardians deprecate", async () => {
    const f = await loadFixture(inLive);
    // Approved 2/3 by the guardians and 2/2 by the oracles; guardian3, who never approved it, tries to end it alone.
    await f.registry.connect(f.guardian3).deprecate(f.id);
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.Live));
    expect(await f.registry.deprecationVoteOf(f.id, f.guardian3.address)).to.equal(true);
    expect(await f.registry.guardianMotions(f.id)).to.deep.equal([1n, 0n, ethers.ZeroAddress]);
    // The same key again, and the same key after pausing it (a paused strategy stays in the state it paused in).
    await expect(f.registry.connect(f.guardian3).deprecate(f.id))
      .to.be.revertedWithCustomError(f.registry, "StrategyAlreadyVoted")
      .withArgs(f.id, f.guardian3.address);
    await f.registry.connect(f.guardian3).pause(f.id);
    await expect(f.registry.connect(f.guardian3).deprecate(f.id))
      .to.be.revertedWithCustomError(f.registry, "StrategyAlreadyVoted")
      .withArgs(f.id, f.guardian3.address);
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.Paused));
    // A second guardian makes the quorum.
    const ts = await at((await time.latest()) + 1);
    const tx = f.registry.connect(f.guardian1).deprecate(f.id);
    await expect(tx).to.emit(f.registry, "DeprecationVoteCast").withArgs(f.id, f.guardian1.address, 2);
    await expect(tx)
      .to.emit(f.registry, "StrategyStatusChanged")
      .withArgs(f.id, Status.Paused, Status.Deprecated, f.guardian1.address, ts);
  });

  it("one registry guardian deprecates with a revoked colleague's vote: only current guardians count", async () => {
    const f = await loadFixture(inLive);
    const vote = await f.registry.connect(f.guardian1).deprecate(f.id);
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.Live));
    await expect(vote).to.emit(f.registry, "DeprecationVoteCast").withArgs(f.id, f.guardian1.address, 1);
    await f.registry.revokeRole(f.guardianRole, f.guardian1.address);
    await expect(f.registry.connect(f.guardian2).deprecate(f.id))
      .to.emit(f.registry, "DeprecationVoteCast")
      .withArgs(f.id, f.guardian2.address, 1)
      .and.not.to.emit(f.registry, "StrategyStatusChanged");
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.Live));
    await f.registry.connect(f.guardian3).deprecate(f.id);
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.Deprecated));
  });

  it("one registry guardian deprecates with a vote cast in an earlier state: deprecation votes lapse when the lifecycle moves on", async () => {
    const f = await loadFixture(inReview);
    await f.registry.connect(f.guardian3).deprecate(f.id);
    // The review approves it 2/3: guardian3's deprecation vote was about the strategy under review.
    await f.registry.connect(f.guardian1).guardianVote(f.id, true);
    await f.registry.connect(f.guardian2).guardianVote(f.id, true);
    expect(await f.registry.deprecationVoteOf(f.id, f.guardian3.address)).to.equal(false);
    await expect(f.registry.connect(f.guardian1).deprecate(f.id))
      .to.emit(f.registry, "DeprecationVoteCast")
      .withArgs(f.id, f.guardian1.address, 1)
      .and.not.to.emit(f.registry, "StrategyStatusChanged");
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.PaperTrading));
    // guardian3 votes again in paper_trading: the quorum.
    await f.registry.connect(f.guardian3).deprecate(f.id);
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.Deprecated));
  });

  it("one guardian keeps a strategy in paper trading by pause and resume: paused time is excluded, the clock does not restart", async () => {
    const f = await loadFixture(inPaperTrading);
    const entered = Number((await f.registry.getStrategy(f.id)).lastStatusChange);
    // guardian3 pauses for an hour on each of six days of the first week, and every sixth day after that.
    const HOUR = 3600;
    const DAY = 86_400;
    let paused = 0;
    for (let day = 1; day <= 6; day++) {
      await at(entered + day * DAY + paused);
      await f.registry.connect(f.guardian3).pause(f.id);
      await at(entered + day * DAY + paused + HOUR);
      await f.registry.connect(f.guardian3).resume(f.id);
      paused += HOUR;
    }
    // Seven days of paper trading are complete at entered + 7 days + the six hours it spent paused.
    const readyAt = entered + ONE_WEEK + paused;
    await at(readyAt - 1);
    await expect(f.registry.connect(f.manager).completePaperTrading(f.id))
      .to.be.revertedWithCustomError(f.registry, "StrategyPaperTradingTooShort")
      .withArgs(f.id, readyAt, readyAt - 1);
    await at(readyAt);
    await expect(f.registry.connect(f.manager).completePaperTrading(f.id))
      .to.emit(f.registry, "StrategyStatusChanged")
      .withArgs(f.id, Status.PaperTrading, Status.PendingOracleApproval, f.manager.address, readyAt);
  });

  it("one guardian keeps a strategy in paper trading by pause and resume: after five weeks of it the strategy completes at once", async () => {
    const f = await loadFixture(inPaperTrading);
    const entered = Number((await f.registry.getStrategy(f.id)).lastStatusChange);
    const DAY = 86_400;
    // Five times, guardian3 pauses six days after the last resume, before a week of uninterrupted trading, and
    // resumes one second later.
    let t = entered;
    for (let round = 0; round < 5; round++) {
      t += 6 * DAY;
      await at(t);
      await f.registry.connect(f.guardian3).pause(f.id);
      t += 1;
      await at(t);
      await f.registry.connect(f.guardian3).resume(f.id);
    }
    // 30 days and 1 s traded (5 s paused): far past the one-week minimum, so the manager completes it now.
    await at(t + 1);
    await expect(f.registry.connect(f.manager).completePaperTrading(f.id))
      .to.emit(f.registry, "StrategyStatusChanged")
      .withArgs(f.id, Status.PaperTrading, Status.PendingOracleApproval, f.manager.address, t + 1);
    expect(await f.registry.paperTradingTime(f.id)).to.equal(BigInt(30 * DAY + 1));
  });

  it("one guardian undoes another's pause: its resume is one vote, k guardians resume", async () => {
    const f = await loadFixture(inLive);
    await f.registry.connect(f.guardian1).pause(f.id);
    // guardian2 tries to undo the circuit breaker in the next block.
    await f.registry.connect(f.guardian2).resume(f.id);
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.Paused));
    expect(await f.registry.resumeVoteOf(f.id, f.guardian2.address)).to.equal(true);
    expect(await f.registry.guardianMotions(f.id)).to.deep.equal([0n, 1n, f.guardian1.address]);
    await expect(f.registry.connect(f.guardian2).resume(f.id))
      .to.be.revertedWithCustomError(f.registry, "StrategyAlreadyVoted")
      .withArgs(f.id, f.guardian2.address);
    // A second guardian besides the pauser makes the quorum.
    const ts = await at((await time.latest()) + 1);
    const tx = f.registry.connect(f.guardian3).resume(f.id);
    await expect(tx).to.emit(f.registry, "ResumeVoteCast").withArgs(f.id, f.guardian3.address, 2);
    await expect(tx)
      .to.emit(f.registry, "StrategyStatusChanged")
      .withArgs(f.id, Status.Paused, Status.Live, f.guardian3.address, ts);
    // A resume vote counts only in the pause it was cast in.
    await f.registry.connect(f.guardian1).pause(f.id);
    expect(await f.registry.resumeVoteOf(f.id, f.guardian2.address)).to.equal(false);
    await expect(f.registry.connect(f.guardian2).resume(f.id))
      .to.emit(f.registry, "ResumeVoteCast")
      .withArgs(f.id, f.guardian2.address, 1)
      .and.not.to.emit(f.registry, "StrategyStatusChanged");
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.Paused));
  });

  it("one guardian undoes another's pause after the threshold is lowered: a repeated call carries the motion", async () => {
    const f = await loadFixture(inLive);
    await f.registry.connect(f.guardian1).pause(f.id);
    await f.registry.connect(f.guardian2).resume(f.id);
    await f.registry.setGuardianThreshold(1);
    // Governance lowered k to 1: the vote already cast is a quorum, and its guardian may carry it.
    await expect(f.registry.connect(f.guardian2).resume(f.id))
      .to.emit(f.registry, "StrategyStatusChanged")
      .and.not.to.emit(f.registry, "ResumeVoteCast");
    expect((await f.registry.getStrategy(f.id)).status).to.equal(BigInt(Status.Live));
  });
});
