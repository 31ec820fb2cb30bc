/**
 * Attacks on the governor, each named after the attack: proposals made large enough that the API's paged read
 * (`proposalsPage`, one `eth_call` per 50 proposals) exceeds the RPC's gas cap, and hostile proposals that only a
 * guardian can stop once they have the votes.
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ProposalState, TIMELOCK_DELAY, VOTING_DELAY, VOTING_PERIOD, deployGovernance, stateBitmap } from "./fixture";
import { recordFigure } from "../../helpers/figures";

const MAX_DESCRIPTION_BYTES = 2_000;
const MAX_ACTIONS = 10;
/** The API reads proposals 50 to an `eth_call`. */
const API_PAGE = 50;
/** 60% of the 2^24 gas one call may use under the Osaka rules (EIP-7825), which Hardhat applies to eth_call too. */
const PAGE_GAS_BOUND = 10_000_000n;

describe("NapGovernor attacks", () => {
  it("oversized proposals push the API's proposal page past the eth_call gas cap: refused, and a page of the largest fits", async function () {
    this.timeout(300_000);
    const f = await loadFixture(deployGovernance);
    expect(await f.governor.MAX_DESCRIPTION_BYTES()).to.equal(BigInt(MAX_DESCRIPTION_BYTES));
    expect(await f.governor.MAX_ACTIONS()).to.equal(BigInt(MAX_ACTIONS));
    const target = await f.registry.getAddress();
    const g = f.governor.connect(f.proposer);

    await expect(g.propose([target], [0n], ["0x"], "d".repeat(20_000)))
      .to.be.revertedWithCustomError(f.governor, "NapGovernorDescriptionTooLong")
      .withArgs(20_000, MAX_DESCRIPTION_BYTES);
    await expect(g.propose([target], [0n], ["0x"], "é".repeat(MAX_DESCRIPTION_BYTES / 2) + "x"))
      .to.be.revertedWithCustomError(f.governor, "NapGovernorDescriptionTooLong")
      .withArgs(MAX_DESCRIPTION_BYTES + 1, MAX_DESCRIPTION_BYTES);
    const many = MAX_ACTIONS + 1;
    await expect(g.propose(Array(many).fill(target), Array(many).fill(0n), Array(many).fill("0x"), "many"))
      .to.be.revertedWithCustomError(f.governor, "NapGovernorTooManyActions")
      .withArgs(many, MAX_ACTIONS);

    // A full API page of proposals at every bound, with large calls (left out of pages), stays far below the cap.
    for (let i = 0; i < API_PAGE; i++) {
      const description = `${i}`.padEnd(MAX_DESCRIPTION_BYTES, "d");
      const calldatas = Array.from({ length: MAX_ACTIONS }, (_, a) => "0x" + `${a}`.padStart(2, "0").repeat(500));
      await g.propose(Array(MAX_ACTIONS).fill(target), Array(MAX_ACTIONS).fill(0n), calldatas, description);
    }
    await time.increase(VOTING_DELAY + 1);
    const gas = await ethers.provider.estimateGas({
      to: await f.governor.getAddress(),
      data: f.governor.interface.encodeFunctionData("proposalsPage", [0, API_PAGE]),
    });
    recordFigure(
      "NapGovernor proposalsPage gas",
      `proposalsPage(0, ${API_PAGE}) of proposals at every bound: ${gas} gas`,
    );
    expect(gas).to.be.lessThan(PAGE_GAS_BOUND);
    const page = await f.governor.proposalsPage(0, API_PAGE);
    expect(page.length).to.equal(API_PAGE);
    expect(page[API_PAGE - 1].description.length).to.equal(MAX_DESCRIPTION_BYTES);
  });

  describe("hostile proposal with a majority: the proposal guardian cancels it", () => {
    async function hostile() {
      const f = await deployGovernance();
      const target = await f.registry.getAddress();
      const calldata = f.registry.interface.encodeFunctionData("grantRole", [
        await f.registry.ORACLE_ROLE(),
        f.proposer.address,
      ]);
      const description = "Make the proposer an oracle";
      await f.governor.connect(f.proposer).propose([target], [0n], [calldata], description);
      const proposedAt = await time.latest();
      return { ...f, target, calldata, description, id: 1n, proposedAt };
    }

    async function toActive(f: Awaited<ReturnType<typeof hostile>>) {
      await time.increaseTo(f.proposedAt + VOTING_DELAY + 1);
      await f.governor.connect(f.forVoter).castVote(f.id, 1);
    }
    async function toSucceeded(f: Awaited<ReturnType<typeof hostile>>) {
      await toActive(f);
      await time.increaseTo(f.proposedAt + VOTING_DELAY + VOTING_PERIOD + 1);
    }
    async function toQueued(f: Awaited<ReturnType<typeof hostile>>) {
      await toSucceeded(f);
      await f.governor["queue(uint256)"](f.id);
    }

    for (const [label, state, advance] of [
      ["pending", ProposalState.Pending, async () => undefined],
      ["active", ProposalState.Active, toActive],
      ["succeeded", ProposalState.Succeeded, toSucceeded],
      ["queued", ProposalState.Queued, toQueued],
    ] as const) {
      it(`cancels it while ${label}, and nobody can execute it`, async () => {
        const f = await loadFixture(hostile);
        await advance(f);
        expect(await f.governor.state(f.id)).to.equal(BigInt(state));
        await expect(f.governor.connect(f.guardian)["cancel(uint256)"](f.id))
          .to.emit(f.governor, "ProposalCanceled")
          .withArgs(f.id);
        expect(await f.governor.state(f.id)).to.equal(BigInt(ProposalState.Canceled));
        await time.increase(VOTING_DELAY + VOTING_PERIOD + TIMELOCK_DELAY);
        await expect(f.governor["execute(uint256)"](f.id))
          .to.be.revertedWithCustomError(f.governor, "GovernorUnexpectedProposalState")
          .withArgs(f.id, ProposalState.Canceled, stateBitmap(ProposalState.Queued));
        expect(await f.registry.hasRole(await f.registry.ORACLE_ROLE(), f.proposer.address)).to.equal(false);
      });
    }

    it("queued: the timelock operation is cancelled too, so it cannot be executed on the timelock directly", async () => {
      const f = await loadFixture(hostile);
      await toQueued(f);
      const salt = ethers.toBeHex(
        (BigInt(await f.governor.getAddress()) * (1n << 96n)) ^ BigInt(ethers.id(f.description)),
        32,
      );
      const operation = await f.timelock.hashOperationBatch([f.target], [0n], [f.calldata], ethers.ZeroHash, salt);
      expect(await f.timelock.isOperationPending(operation)).to.equal(true);
      await expect(f.governor.connect(f.guardian)["cancel(uint256)"](f.id))
        .to.emit(f.timelock, "Cancelled")
        .withArgs(operation);
      expect(await f.timelock.isOperation(operation)).to.equal(false);
    });

    it("the proposer cannot cancel after voting opens, a stranger never; only governance replaces the guardian", async () => {
      const f = await loadFixture(hostile);
      await toActive(f);
      for (const who of [f.proposer, f.stranger]) {
        await expect(f.governor.connect(who)["cancel(uint256)"](f.id))
          .to.be.revertedWithCustomError(f.governor, "GovernorUnableToCancel")
          .withArgs(f.id, who.address);
      }
      await expect(f.governor.connect(f.guardian).setProposalGuardian(f.stranger.address))
        .to.be.revertedWithCustomError(f.governor, "GovernorOnlyExecutor")
        .withArgs(f.guardian.address);
    });
  });
});
