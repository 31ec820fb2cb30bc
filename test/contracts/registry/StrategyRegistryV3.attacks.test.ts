/**
 * Attacks on the registry's reviews, each named after the attack: votes of a guardian or oracle whose role was
 * revoked (a compromised or departed key), and split votes that leave a review where no outcome can be reached.
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
});
