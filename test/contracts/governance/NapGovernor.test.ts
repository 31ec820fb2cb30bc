import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, mine, time } from "@nomicfoundation/hardhat-network-helpers";
import {
  PROPOSAL_THRESHOLD,
  ProposalState,
  TIMELOCK_DELAY,
  VOTING_DELAY,
  VOTING_PERIOD,
  deployGovernance,
  stateBitmap,
} from "./fixture";
import { deployVault, vaultConfigs } from "../../../deploy/vaults";
import { ConfigurableNapVault__factory } from "../../../typechain-types";

const E18 = 10n ** 18n;
const DESCRIPTION = "Raise the guardian threshold to 3";

async function proposed() {
  const f = await deployGovernance();
  const target = await f.registry.getAddress();
  const calldata = f.registry.interface.encodeFunctionData("setGuardianThreshold", [3]);
  await f.governor.connect(f.proposer).propose([target], [0n], [calldata], DESCRIPTION);
  const proposedAt = await time.latest();
  return { ...f, target, calldata, proposedAt, id: 1n };
}

async function voted() {
  const f = await proposed();
  await time.increaseTo(f.proposedAt + VOTING_DELAY + 1);
  await f.governor.connect(f.forVoter).castVoteWithReason(f.id, 1, "safer");
  await f.governor.connect(f.againstVoter).castVoteWithReason(f.id, 0, "slower");
  await f.governor.connect(f.abstainVoter).castVoteWithReason(f.id, 2, "no view");
  return f;
}

async function succeeded() {
  const f = await voted();
  await time.increaseTo(f.proposedAt + VOTING_DELAY + VOTING_PERIOD + 1);
  return f;
}

describe("NapGovernor", () => {
  it("is configured with the timestamp clock, settings, quorum and timelock", async () => {
    const { governor, token, timelock } = await loadFixture(deployGovernance);
    expect(await governor.name()).to.equal("NapGovernor");
    expect(await governor.CLOCK_MODE()).to.equal("mode=timestamp");
    expect(await governor.clock()).to.equal(BigInt(await time.latest()));
    expect(await governor.votingDelay()).to.equal(BigInt(VOTING_DELAY));
    expect(await governor.votingPeriod()).to.equal(BigInt(VOTING_PERIOD));
    expect(await governor.proposalThreshold()).to.equal(PROPOSAL_THRESHOLD);
    expect(await governor["quorumNumerator()"]()).to.equal(4n);
    expect(await governor.token()).to.equal(await token.getAddress());
    expect(await governor.timelock()).to.equal(await timelock.getAddress());
    expect(await governor.COUNTING_MODE()).to.equal("support=bravo&quorum=for,abstain");
    expect(await governor.proposalCount()).to.equal(0n);
    expect(await governor.proposalsPage(0, 10)).to.deep.equal([]);
  });

  it("runs the whole path: propose, vote against/for/abstain with reasons, queue, execute a registry change", async () => {
    const f = await loadFixture(deployGovernance);
    const target = await f.registry.getAddress();
    const calldata = f.registry.interface.encodeFunctionData("setGuardianThreshold", [3]);

    // propose: sequential id 1, event, listing
    expect(await f.governor.connect(f.proposer).propose.staticCall([target], [0n], [calldata], DESCRIPTION)).to.equal(
      1n,
    );
    const proposeTx = await f.governor.connect(f.proposer).propose([target], [0n], [calldata], DESCRIPTION);
    const t0 = await time.latest();
    await expect(proposeTx)
      .to.emit(f.governor, "ProposalCreated")
      .withArgs(
        1n,
        f.proposer.address,
        [target],
        [0n],
        [""],
        [calldata],
        t0 + VOTING_DELAY,
        t0 + VOTING_DELAY + VOTING_PERIOD,
        DESCRIPTION,
      );
    expect(await f.governor.state(1n)).to.equal(BigInt(ProposalState.Pending));
    expect(await f.governor.latestProposalId()).to.equal(1n);
    expect(await f.governor.proposalDescription(1n)).to.equal(DESCRIPTION);

    // vote: one of each support value, each with a reason
    await time.increaseTo(t0 + VOTING_DELAY + 1);
    expect(await f.governor.state(1n)).to.equal(BigInt(ProposalState.Active));
    await expect(f.governor.connect(f.againstVoter).castVoteWithReason(1n, 0, "too strict"))
      .to.emit(f.governor, "VoteCast")
      .withArgs(f.againstVoter.address, 1n, 0, 300n * E18, "too strict");
    await expect(f.governor.connect(f.forVoter).castVoteWithReason(1n, 1, "more eyes"))
      .to.emit(f.governor, "VoteCast")
      .withArgs(f.forVoter.address, 1n, 1, 400n * E18, "more eyes");
    await expect(f.governor.connect(f.abstainVoter).castVoteWithReason(1n, 2, ""))
      .to.emit(f.governor, "VoteCast")
      .withArgs(f.abstainVoter.address, 1n, 2, 200n * E18, "");
    expect(await f.governor.proposalVotes(1n)).to.deep.equal([300n * E18, 400n * E18, 200n * E18]);
    expect(await f.governor.hasVoted(1n, f.forVoter.address)).to.equal(true);

    // listing while active shows tallies, window and quorum (4% of 1000 NAP)
    const [listed] = await f.governor.proposalsPage(0, 10);
    expect(listed.id).to.equal(1n);
    expect(listed.proposer).to.equal(f.proposer.address);
    expect(listed.description).to.equal(DESCRIPTION);
    expect(listed.state).to.equal(BigInt(ProposalState.Active));
    expect([listed.againstVotes, listed.forVotes, listed.abstainVotes]).to.deep.equal([
      300n * E18,
      400n * E18,
      200n * E18,
    ]);
    expect(listed.voteStart).to.equal(BigInt(t0 + VOTING_DELAY));
    expect(listed.voteEnd).to.equal(BigInt(t0 + VOTING_DELAY + VOTING_PERIOD));
    expect(listed.eta).to.equal(0n);
    expect(listed.quorum).to.equal(40n * E18);
    expect(listed.targets).to.deep.equal([target]);
    expect(listed.length).to.equal(12); // a page leaves out values and calldata
    const full = await f.governor.getProposal(1n);
    expect(full.targets).to.deep.equal([target]);
    expect(full[12]).to.deep.equal([0n]); // `values` is shadowed by Result.values()
    expect(full.calldatas).to.deep.equal([calldata]);
    expect(full.description).to.equal(DESCRIPTION);

    // queue after the deadline
    await time.increaseTo(t0 + VOTING_DELAY + VOTING_PERIOD + 1);
    expect(await f.governor.state(1n)).to.equal(BigInt(ProposalState.Succeeded));
    const queueTx = await f.governor["queue(uint256)"](1n);
    const queuedAt = await time.latest();
    await expect(queueTx)
      .to.emit(f.governor, "ProposalQueued")
      .withArgs(1n, queuedAt + TIMELOCK_DELAY);
    expect(await f.governor.state(1n)).to.equal(BigInt(ProposalState.Queued));
    expect(await f.governor.proposalEta(1n)).to.equal(BigInt(queuedAt + TIMELOCK_DELAY));

    // execute after the timelock delay: the registry parameter changes through the timelock
    await time.increaseTo(queuedAt + TIMELOCK_DELAY);
    const executeTx = f.governor["execute(uint256)"](1n);
    await expect(executeTx).to.emit(f.governor, "ProposalExecuted").withArgs(1n);
    await expect(executeTx).to.emit(f.registry, "GuardianThresholdSet").withArgs(2n, 3n);
    expect(await f.registry.guardianThreshold()).to.equal(3n);
    expect(await f.governor.state(1n)).to.equal(BigInt(ProposalState.Executed));
    expect((await f.governor.getProposal(1n)).state).to.equal(BigInt(ProposalState.Executed));
  });

  it("changes the configurable vault's parameters through propose, vote, queue and execute", async () => {
    const f = await loadFixture(deployGovernance);
    const usdc = await ethers.deployContract("TestUSDC", [f.deployer.address]);
    const timelock = await f.timelock.getAddress();
    const { address } = await deployVault(f.deployer, vaultConfigs.configurable, await usdc.getAddress(), {
      admin: timelock,
      manager: timelock,
      harvester: f.deployer.address,
      guardian: f.deployer.address,
      fulfiller: f.deployer.address,
      feeRecipient: timelock,
    });
    const vault = ConfigurableNapVault__factory.connect(address, f.deployer);
    const calldatas = [
      vault.interface.encodeFunctionData("setFees", [150, 1_200, 400]),
      vault.interface.encodeFunctionData("setFulfillmentDelay", [7_200]),
    ];
    const description = "Configurable vault: fees 1.5% / 12% over 4%, fulfilment delay 2 hours";
    await f.governor.connect(f.proposer).propose([address, address], [0n, 0n], calldatas, description);
    const t0 = await time.latest();
    await time.increaseTo(t0 + VOTING_DELAY + 1);
    await f.governor.connect(f.forVoter).castVoteWithReason(1n, 1, "fair fees");
    await f.governor.connect(f.againstVoter).castVoteWithReason(1n, 0, "too high");
    await f.governor.connect(f.abstainVoter).castVoteWithReason(1n, 2, "no opinion");
    await time.increaseTo(t0 + VOTING_DELAY + VOTING_PERIOD + 1);
    await f.governor["queue(uint256)"](1n);
    await time.increase(TIMELOCK_DELAY);
    const execution = f.governor["execute(uint256)"](1n);
    await expect(execution).to.emit(vault, "FeesUpdated").withArgs(150n, 1_200n, 400n);
    await expect(execution).to.emit(vault, "FulfillmentDelayUpdated").withArgs(7_200n);
    expect(await vault.fulfillmentDelay()).to.equal(7_200n);
    // Nobody but the timelock may do the same directly.
    await expect(vault.setFulfillmentDelay(1))
      .to.be.revertedWithCustomError(vault, "AccessControlUnauthorizedAccount")
      .withArgs(f.deployer.address, ethers.ZeroHash);
  });

  it("refuses a proposal from an account below the proposal threshold", async () => {
    const f = await loadFixture(deployGovernance);
    const calldata = f.registry.interface.encodeFunctionData("setGuardianThreshold", [3]);
    await expect(f.governor.connect(f.stranger).propose([await f.registry.getAddress()], [0n], [calldata], "x"))
      .to.be.revertedWithCustomError(f.governor, "GovernorInsufficientProposerVotes")
      .withArgs(f.stranger.address, 0n, PROPOSAL_THRESHOLD);
  });

  it("refuses the same proposal twice", async () => {
    const f = await loadFixture(proposed);
    await expect(f.governor.connect(f.proposer).propose([f.target], [0n], [f.calldata], DESCRIPTION))
      .to.be.revertedWithCustomError(f.governor, "GovernorUnexpectedProposalState")
      .withArgs(1n, ProposalState.Pending, ethers.ZeroHash);
  });

  it("refuses a vote before voting opens and after it closes", async () => {
    const f = await loadFixture(proposed);
    await expect(f.governor.connect(f.forVoter).castVote(f.id, 1))
      .to.be.revertedWithCustomError(f.governor, "GovernorUnexpectedProposalState")
      .withArgs(f.id, ProposalState.Pending, stateBitmap(ProposalState.Active));
    await time.increaseTo(f.proposedAt + VOTING_DELAY + VOTING_PERIOD + 1);
    await expect(f.governor.connect(f.forVoter).castVote(f.id, 1))
      .to.be.revertedWithCustomError(f.governor, "GovernorUnexpectedProposalState")
      .withArgs(f.id, ProposalState.Defeated, stateBitmap(ProposalState.Active));
  });

  it("refuses a support value other than 0, 1, 2 and a second vote by the same account", async () => {
    const f = await loadFixture(proposed);
    await time.increaseTo(f.proposedAt + VOTING_DELAY + 1);
    await expect(f.governor.connect(f.forVoter).castVoteWithReason(f.id, 3, "?")).to.be.revertedWithCustomError(
      f.governor,
      "GovernorInvalidVoteType",
    );
    await f.governor.connect(f.forVoter).castVote(f.id, 1);
    await expect(f.governor.connect(f.forVoter).castVote(f.id, 0))
      .to.be.revertedWithCustomError(f.governor, "GovernorAlreadyCastVote")
      .withArgs(f.forVoter.address);
  });

  it("counts zero weight for an account that held no votes at the snapshot", async () => {
    const f = await loadFixture(proposed);
    await time.increaseTo(f.proposedAt + VOTING_DELAY + 1);
    await f.token.connect(f.forVoter).transfer(f.stranger.address, 10n * E18);
    await expect(f.governor.connect(f.stranger).castVoteWithReason(f.id, 1, "late"))
      .to.emit(f.governor, "VoteCast")
      .withArgs(f.stranger.address, f.id, 1, 0n, "late");
  });

  it("refuses to queue before success, and a defeated proposal", async () => {
    const f = await loadFixture(voted);
    await expect(f.governor["queue(uint256)"](f.id))
      .to.be.revertedWithCustomError(f.governor, "GovernorUnexpectedProposalState")
      .withArgs(f.id, ProposalState.Active, stateBitmap(ProposalState.Succeeded));

    const g = await loadFixture(proposed);
    await time.increaseTo(g.proposedAt + VOTING_DELAY + 1);
    await g.governor.connect(g.againstVoter).castVote(g.id, 0);
    await g.governor.connect(g.proposer).castVote(g.id, 1);
    await time.increaseTo(g.proposedAt + VOTING_DELAY + VOTING_PERIOD + 1);
    expect(await g.governor.state(g.id)).to.equal(BigInt(ProposalState.Defeated));
    await expect(g.governor["queue(uint256)"](g.id))
      .to.be.revertedWithCustomError(g.governor, "GovernorUnexpectedProposalState")
      .withArgs(g.id, ProposalState.Defeated, stateBitmap(ProposalState.Succeeded));
  });

  it("defeats a proposal that misses the quorum even without votes against", async () => {
    const f = await loadFixture(deployGovernance);
    // 30 NAP for, quorum is 40 NAP.
    await f.token.connect(f.proposer).transfer(f.stranger.address, 30n * E18);
    const calldata = f.registry.interface.encodeFunctionData("setOracleThreshold", [1]);
    await f.governor.connect(f.proposer).propose([await f.registry.getAddress()], [0n], [calldata], "quorum test");
    const t0 = await time.latest();
    await time.increaseTo(t0 + VOTING_DELAY + 1);
    await f.governor.connect(f.stranger).castVote(1n, 1);
    await time.increaseTo(t0 + VOTING_DELAY + VOTING_PERIOD + 1);
    expect(await f.governor.state(1n)).to.equal(BigInt(ProposalState.Defeated));
  });

  it("refuses to execute before queueing and before the timelock delay", async () => {
    const f = await loadFixture(succeeded);
    const descriptionHash = ethers.id(DESCRIPTION);
    const salt = ethers.toBeHex((BigInt(await f.governor.getAddress()) * (1n << 96n)) ^ BigInt(descriptionHash), 32);
    const operationId = await f.timelock.hashOperationBatch([f.target], [0n], [f.calldata], ethers.ZeroHash, salt);
    const Ready = stateBitmap(2);
    await expect(f.governor["execute(uint256)"](f.id))
      .to.be.revertedWithCustomError(f.governor, "GovernorUnexpectedProposalState")
      .withArgs(f.id, ProposalState.Succeeded, stateBitmap(ProposalState.Queued));
    await f.governor["queue(uint256)"](f.id);
    await expect(f.governor["execute(uint256)"](f.id))
      .to.be.revertedWithCustomError(f.timelock, "TimelockUnexpectedOperationState")
      .withArgs(operationId, Ready);
  });

  it("lets the proposer cancel a pending proposal, and not afterwards", async () => {
    const f = await loadFixture(proposed);
    await expect(f.governor.connect(f.proposer)["cancel(uint256)"](f.id))
      .to.emit(f.governor, "ProposalCanceled")
      .withArgs(f.id);
    expect(await f.governor.state(f.id)).to.equal(BigInt(ProposalState.Canceled));
    await expect(f.governor.connect(f.forVoter).castVote(f.id, 1))
      .to.be.revertedWithCustomError(f.governor, "GovernorUnexpectedProposalState")
      .withArgs(f.id, ProposalState.Canceled, stateBitmap(ProposalState.Active));
  });

  it("keeps registry parameters out of reach of anyone but the timelock", async () => {
    const f = await loadFixture(deployGovernance);
    await expect(f.registry.connect(f.deployer).setGuardianThreshold(3))
      .to.be.revertedWithCustomError(f.registry, "AccessControlUnauthorizedAccount")
      .withArgs(f.deployer.address, ethers.ZeroHash);
    await expect(
      f.timelock.connect(f.deployer).schedule(f.deployer.address, 0n, "0x", ethers.ZeroHash, ethers.ZeroHash, 60),
    )
      .to.be.revertedWithCustomError(f.timelock, "AccessControlUnauthorizedAccount")
      .withArgs(f.deployer.address, await f.timelock.PROPOSER_ROLE());
  });

  it("lists proposals by page and reverts getProposal for an unknown id", async () => {
    const f = await loadFixture(deployGovernance);
    const target = await f.registry.getAddress();
    for (let i = 1; i <= 3; i++) {
      const calldata = f.registry.interface.encodeFunctionData("setOracleThreshold", [i]);
      await f.governor.connect(f.proposer).propose([target], [0n], [calldata], `Proposal ${i}`);
    }
    expect(await f.governor.proposalCount()).to.equal(3n);
    // quorum is 0 while the snapshot is in the future
    const page = await f.governor.proposalsPage(1, 5);
    expect(page.map((p) => [p.id, p.description, p.state, p.quorum])).to.deep.equal([
      [2n, "Proposal 2", BigInt(ProposalState.Pending), 0n],
      [3n, "Proposal 3", BigInt(ProposalState.Pending), 0n],
    ]);
    expect((await f.governor.proposalsPage(0, 1)).map((p) => p.id)).to.deep.equal([1n]);
    expect(await f.governor.proposalsPage(3, 1)).to.deep.equal([]);
    expect((await f.governor.getProposal(2n)).description).to.equal("Proposal 2");
    await expect(f.governor.getProposal(4n))
      .to.be.revertedWithCustomError(f.governor, "GovernorNonexistentProposal")
      .withArgs(4n);
    await mine(1);
  });
});
