/**
 * Attacks on the governor, each named after the attack: proposals made large enough that the API's paged read
 * (`proposalsPage`, one `eth_call` per 50 proposals) exceeds the RPC's gas cap, hostile proposals that only a
 * guardian can stop once they have the votes, and the guardian cancelling the proposals that replace it or revoke a
 * guardian role (refused: governance can always do both).
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { ProposalState, TIMELOCK_DELAY, VOTING_DELAY, VOTING_PERIOD, deployGovernance, stateBitmap } from "./fixture";
import { recordFigure } from "../../helpers/figures";
import type { StrategyRegistryV3 } from "../../../typechain-types";

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

  describe("the proposal guardian vetoes its own replacement: refused in every state, and it executes", () => {
    /** Proposal 1 replaces the guardian (`f.guardian`) with `f.stranger`; the proposer holds 100 of 1000 votes. */
    async function replacement() {
      const f = await deployGovernance();
      const governor = await f.governor.getAddress();
      const targets = [governor];
      const values = [0n];
      const calldatas = [f.governor.interface.encodeFunctionData("setProposalGuardian", [f.stranger.address])];
      const description = "Replace the proposal guardian";
      await f.governor.connect(f.proposer).propose(targets, values, calldatas, description);
      const proposedAt = await time.latest();
      return { ...f, targets, values, calldatas, description, id: 1n, proposedAt };
    }
    type Replacement = Awaited<ReturnType<typeof replacement>>;

    async function toActive(f: Replacement) {
      if ((await time.latest()) < f.proposedAt + VOTING_DELAY + 1)
        await time.increaseTo(f.proposedAt + VOTING_DELAY + 1);
    }
    async function toSucceeded(f: Replacement) {
      await toActive(f);
      for (const voter of [f.forVoter, f.againstVoter, f.abstainVoter, f.proposer]) {
        await f.governor.connect(voter).castVote(f.id, 1);
      }
      await time.increaseTo(f.proposedAt + VOTING_DELAY + VOTING_PERIOD + 1);
    }
    async function toQueued(f: Replacement) {
      await toSucceeded(f);
      await f.governor["queue(uint256)"](f.id);
    }

    /** Every way to cancel it, by the guardian and by its proposer, is refused; the state does not move. */
    async function cannotCancel(f: Replacement, state: number) {
      const cancelByCalls = "cancel(address[],uint256[],bytes[],bytes32)";
      for (const who of [f.guardian, f.proposer]) {
        const governor = f.governor.connect(who);
        await expect(governor["cancel(uint256)"](f.id))
          .to.be.revertedWithCustomError(f.governor, "NapGovernorGuardianChangeNotCancellable")
          .withArgs(f.id);
        await expect(governor[cancelByCalls](f.targets, f.values, f.calldatas, ethers.id(f.description)))
          .to.be.revertedWithCustomError(f.governor, "NapGovernorGuardianChangeNotCancellable")
          .withArgs(f.id);
      }
      expect(await f.governor.state(f.id)).to.equal(BigInt(state));
      expect(await f.governor.isGuardianChange(f.id)).to.equal(true);
    }

    for (const [label, state, advance] of [
      ["pending", ProposalState.Pending, async () => undefined],
      ["active", ProposalState.Active, toActive],
      ["succeeded", ProposalState.Succeeded, toSucceeded],
      ["queued", ProposalState.Queued, toQueued],
    ] as const) {
      it(`the proposal guardian vetoes its own replacement while ${label}: refused, it executes and the old guardian loses its power`, async () => {
        const f = await loadFixture(replacement);
        await advance(f);
        await cannotCancel(f, state);
        if (state < ProposalState.Succeeded) await toSucceeded(f);
        if (state < ProposalState.Queued) await f.governor["queue(uint256)"](f.id);
        await cannotCancel(f, ProposalState.Queued);
        await time.increase(TIMELOCK_DELAY);
        await expect(f.governor["execute(uint256)"](f.id))
          .to.emit(f.governor, "ProposalGuardianSet")
          .withArgs(f.guardian.address, f.stranger.address);
        expect(await f.governor.state(f.id)).to.equal(BigInt(ProposalState.Executed));
        expect(await f.governor.proposalGuardian()).to.equal(f.stranger.address);

        // A hostile proposal next: the old guardian cannot cancel it any more, the new one can.
        const registry = await f.registry.getAddress();
        const grant = f.registry.interface.encodeFunctionData("grantRole", [
          await f.registry.ORACLE_ROLE(),
          f.proposer.address,
        ]);
        await f.governor.connect(f.proposer).propose([registry], [0n], [grant], "Make the proposer an oracle");
        await toActiveOf(f, 2n);
        await expect(f.governor.connect(f.guardian)["cancel(uint256)"](2n))
          .to.be.revertedWithCustomError(f.governor, "GovernorUnableToCancel")
          .withArgs(2n, f.guardian.address);
        await expect(f.governor.connect(f.stranger)["cancel(uint256)"](2n))
          .to.emit(f.governor, "ProposalCanceled")
          .withArgs(2n);
      });
    }

    async function toActiveOf(f: Replacement, id: bigint) {
      await time.increaseTo((await f.governor.proposalSnapshot(id)) + 1n);
    }

    it("the proposal guardian vetoes its own replacement through the timelock's cancel: it holds no CANCELLER_ROLE", async () => {
      const f = await loadFixture(replacement);
      await toQueued(f);
      const salt = ethers.toBeHex(
        (BigInt(await f.governor.getAddress()) * (1n << 96n)) ^ BigInt(ethers.id(f.description)),
        32,
      );
      const operation = await f.timelock.hashOperationBatch(f.targets, f.values, f.calldatas, ethers.ZeroHash, salt);
      expect(await f.timelock.isOperationPending(operation)).to.equal(true);
      const canceller = await f.timelock.CANCELLER_ROLE();
      expect(await f.timelock.hasRole(canceller, f.guardian.address)).to.equal(false);
      await expect(f.timelock.connect(f.guardian).cancel(operation))
        .to.be.revertedWithCustomError(f.timelock, "AccessControlUnauthorizedAccount")
        .withArgs(f.guardian.address, canceller);
      expect(await f.timelock.isOperationPending(operation)).to.equal(true);
      await time.increase(TIMELOCK_DELAY);
      await f.governor["execute(uint256)"](f.id);
      expect(await f.governor.proposalGuardian()).to.equal(f.stranger.address);
    });

    it("the proposal guardian vetoes its own replacement and revoking its registry guardian role: refused, both execute", async () => {
      const f = await loadFixture(deployGovernance);
      // A registry administered by the timelock in which the proposal guardian is also a registry guardian.
      const registry = (await ethers.deployContract("StrategyRegistryV3", [
        f.deployer.address,
        2,
        2,
        3600,
      ])) as unknown as StrategyRegistryV3;
      const guardianRole = await registry.GUARDIAN_ROLE();
      const admin = await registry.DEFAULT_ADMIN_ROLE();
      await registry.grantRole(guardianRole, f.guardian.address);
      await registry.grantRole(admin, await f.timelock.getAddress());
      await registry.renounceRole(admin, f.deployer.address);

      const targets = [await f.governor.getAddress(), await registry.getAddress()];
      const values = [0n, 0n];
      const calldatas = [
        f.governor.interface.encodeFunctionData("setProposalGuardian", [f.stranger.address]),
        registry.interface.encodeFunctionData("revokeRole", [guardianRole, f.guardian.address]),
      ];
      await f.governor.connect(f.proposer).propose(targets, values, calldatas, "Replace the guardian everywhere");
      const id = 1n;
      await time.increaseTo((await f.governor.proposalSnapshot(id)) + 1n);
      await f.governor.connect(f.forVoter).castVote(id, 1);
      await time.increaseTo((await f.governor.proposalDeadline(id)) + 1n);
      await f.governor["queue(uint256)"](id);
      await expect(f.governor.connect(f.guardian)["cancel(uint256)"](id))
        .to.be.revertedWithCustomError(f.governor, "NapGovernorGuardianChangeNotCancellable")
        .withArgs(id);
      expect(await f.governor.isGuardianChange(id)).to.equal(true);
      await time.increase(TIMELOCK_DELAY);
      await expect(f.governor["execute(uint256)"](id))
        .to.emit(registry, "RoleRevoked")
        .withArgs(guardianRole, f.guardian.address, await f.timelock.getAddress());
      expect(await registry.hasRole(guardianRole, f.guardian.address)).to.equal(false);
      expect(await f.governor.proposalGuardian()).to.equal(f.stranger.address);
    });

    it("the proposal guardian can still cancel an ordinary (hostile) proposal, even one that also replaces it", async () => {
      const f = await loadFixture(deployGovernance);
      const governor = await f.governor.getAddress();
      const registry = await f.registry.getAddress();
      const setGuardian = f.governor.interface.encodeFunctionData("setProposalGuardian", [f.stranger.address]);
      const revoke = (role: string) =>
        f.registry.interface.encodeFunctionData("revokeRole", [role, f.stranger.address]);
      const guardianRole = await f.registry.GUARDIAN_ROLE();
      const grantOracle = f.registry.interface.encodeFunctionData("grantRole", [
        await f.registry.ORACLE_ROLE(),
        f.proposer.address,
      ]);
      const cases: [string, string[], bigint[], string[]][] = [
        [
          "replaces the guardian and makes the proposer an oracle",
          [governor, registry],
          [0n, 0n],
          [setGuardian, grantOracle],
        ],
        ["revokes an oracle, not a guardian", [registry], [0n], [revoke(await f.registry.ORACLE_ROLE())]],
        [
          "grants the guardian role instead of revoking it",
          [registry],
          [0n],
          [f.registry.interface.encodeFunctionData("grantRole", [guardianRole, f.proposer.address])],
        ],
        ["replaces the guardian with a value attached", [governor], [1n], [setGuardian]],
        ["calls setProposalGuardian on another contract", [registry], [0n], [setGuardian]],
        ["replaces the guardian with trailing calldata", [governor], [0n], [setGuardian + "00"]],
        [
          "revokes a guardian with dirty address bits",
          [registry],
          [0n],
          [revoke(guardianRole).slice(0, 2 + 8 + 64) + "ff" + revoke(guardianRole).slice(2 + 8 + 64 + 2)],
        ],
      ];
      let id = 0n;
      for (const [description, targets, values, calldatas] of cases) {
        await f.governor.connect(f.proposer).propose(targets, values, calldatas, description);
        id += 1n;
        expect(await f.governor.isGuardianChange(id), description).to.equal(false);
      }
      await time.increase(VOTING_DELAY + 1);
      for (let i = 1n; i <= id; i++) {
        await f.governor.connect(f.forVoter).castVote(i, 1);
      }
      await time.increase(VOTING_PERIOD);
      for (let i = 1n; i <= id; i++) {
        await f.governor["queue(uint256)"](i);
        await expect(f.governor.connect(f.guardian)["cancel(uint256)"](i))
          .to.emit(f.governor, "ProposalCanceled")
          .withArgs(i);
      }
      expect(await f.governor.proposalGuardian()).to.equal(f.guardian.address);
      await expect(f.governor.isGuardianChange(id + 1n))
        .to.be.revertedWithCustomError(f.governor, "GovernorNonexistentProposal")
        .withArgs(id + 1n);
    });
  });

  describe("a holder at the threshold copies a visible proposal, proposes it first and cancels it while Pending", () => {
    /** The stranger gets the proposal threshold (10 NAP) of votes; returns a proposal the proposer means to make. */
    async function copyist() {
      const f = await loadFixture(deployGovernance);
      await f.token.connect(f.forVoter).transfer(f.stranger.address, 10n * 10n ** 18n);
      await time.increase(1);
      const target = await f.registry.getAddress();
      const calldata = f.registry.interface.encodeFunctionData("setMinPaperTradingPeriod", [7_200]);
      return { f, targets: [target], values: [0n], calldatas: [calldata] };
    }

    it("without a proposer suffix the copy takes the description: the real proposer gets GovernorUnexpectedProposalState", async () => {
      const { f, targets, values, calldatas } = await copyist();
      const description = "Paper trading for 2 hours";
      await f.governor.connect(f.stranger).propose(targets, values, calldatas, description);
      const copy = await f.governor.latestProposalId();
      await f.governor.connect(f.stranger)["cancel(uint256)"](copy);
      expect(await f.governor.state(copy)).to.equal(ProposalState.Canceled);
      await expect(f.governor.connect(f.proposer).propose(targets, values, calldatas, description))
        .to.be.revertedWithCustomError(f.governor, "GovernorUnexpectedProposalState")
        .withArgs(copy, ProposalState.Canceled, ethers.ZeroHash);
    });

    it("with `#proposer=` naming the real proposer the copy is refused with GovernorRestrictedProposer, and the proposal goes through", async () => {
      const { f, targets, values, calldatas } = await copyist();
      const description = `Paper trading for 2 hours#proposer=${f.proposer.address}`;
      await expect(f.governor.connect(f.stranger).propose(targets, values, calldatas, description))
        .to.be.revertedWithCustomError(f.governor, "GovernorRestrictedProposer")
        .withArgs(f.stranger.address);
      await f.governor.connect(f.proposer).propose(targets, values, calldatas, description);
      const id = await f.governor.latestProposalId();
      expect(await f.governor.proposalProposer(id)).to.equal(f.proposer.address);
      expect(await f.governor.state(id)).to.equal(ProposalState.Pending);
    });
  });
});
