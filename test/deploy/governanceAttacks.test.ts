/**
 * Attacks on governance against the system as the deployment (deploy/system.ts) wires it (local parameters), each named after the
 * attack: the relayer's hot key (held by the API server) trying to mint itself a governance majority, a hostile
 * proposal that reaches the timelock, holders leaving before it executes, and the proposal guardian (holding the vault
 * guardian key too) vetoing its own replacement while every vault stays paused.
 */
import { expect } from "chai";
import { ethers } from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { HDNodeWallet, parseEther, parseUnits } from "ethers";
import { DEV_SERVER_WALLET_MNEMONIC, RELAYER_PATH } from "../../deploy/devWallets";
import { EXIT_MARGIN_SECONDS } from "../../deploy/parameters";
import { VAULT_IDS } from "../../deploy/vaults";
import { deployLocal } from "./helpers";
import {
  ConfigurableNapVault__factory,
  NapGovernor__factory,
  NapMinter__factory,
  NapToken__factory,
  NapVault__factory,
  StrategyRegistryV3__factory,
  TestUSDC__factory,
  TimelockController__factory,
} from "../../typechain-types";

const ProposalState = {
  Pending: 0n,
  Active: 1n,
  Canceled: 2n,
  Defeated: 3n,
  Succeeded: 4n,
  Queued: 5n,
  Executed: 7n,
} as const;

async function deployedSystem() {
  const signers = await ethers.getSigners();
  const deployer = signers[0];
  const { file, parameters } = await deployLocal("attack");
  const relayer = HDNodeWallet.fromPhrase(DEV_SERVER_WALLET_MNEMONIC, undefined, RELAYER_PATH).connect(ethers.provider);
  const c = file.contracts;
  return {
    file,
    parameters,
    deployer,
    signers,
    relayer,
    token: NapToken__factory.connect(c.NapToken!.address, deployer),
    governor: NapGovernor__factory.connect(c.NapGovernor!.address, deployer),
    timelock: TimelockController__factory.connect(c.TimelockController!.address, deployer),
    registry: StrategyRegistryV3__factory.connect(c.StrategyRegistryV3!.address, deployer),
    minter: NapMinter__factory.connect(c.NapMinter!.address, deployer),
  };
}

/** A proposal by the relayer that makes it the registry's only oracle (a takeover of strategy approvals). */
async function hostileProposal(f: Awaited<ReturnType<typeof deployedSystem>>) {
  const registry = await f.registry.getAddress();
  const calldata = f.registry.interface.encodeFunctionData("grantRole", [
    await f.registry.ORACLE_ROLE(),
    f.relayer.address,
  ]);
  return { targets: [registry], values: [0n], calldatas: [calldata], description: "Make the relayer an oracle" };
}

describe("governance attacks on the deployed system", () => {
  it("relayer hot key mints itself a governance majority and outvotes the deployer: refused, bounded by the minter budget", async () => {
    const f = await loadFixture(deployedSystem);
    const deployerVotes = await f.token.getVotes(f.deployer.address);
    expect(deployerVotes).to.equal(parseEther("1000000"));

    // The attack of the review: mint 999M NAP directly on the token.
    await expect(f.token.connect(f.relayer).mint(f.relayer.address, parseEther("999000000")))
      .to.be.revertedWithCustomError(f.token, "AccessControlUnauthorizedAccount")
      .withArgs(f.relayer.address, await f.token.MINTER_ROLE());

    // Through the minter the relayer holds a role of: at most the budget per period.
    const budget = await f.minter.budget();
    const period = await f.minter.period();
    expect(budget).to.equal(f.parameters.Tokens.minterBudget);
    expect(period).to.equal(BigInt(f.parameters.Tokens.minterPeriod));
    await expect(f.minter.connect(f.relayer).mint(f.relayer.address, parseEther("999000000")))
      .to.be.revertedWithCustomError(f.minter, "NapMinterBudgetExceeded")
      .withArgs(parseEther("999000000"), budget, (await f.minter.windowStart()) + period);

    // Minting the whole budget in each period for as long as a proposal runs (voting delay + period + timelock
    // delay) stays far below the deployer's votes.
    const g = f.parameters.Governance;
    const periods = Math.ceil((g.votingDelay + g.votingPeriod + g.timelockMinDelay) / Number(period)) + 1;
    for (let i = 0; i < periods; i++) {
      await f.minter.connect(f.relayer).mint(f.relayer.address, budget);
      await expect(f.minter.connect(f.relayer).mint(f.relayer.address, 1n)).to.be.revertedWithCustomError(
        f.minter,
        "NapMinterBudgetExceeded",
      );
      await time.increase(period);
    }
    const minted = await f.token.balanceOf(f.relayer.address);
    expect(minted).to.equal(budget * BigInt(periods));
    expect(minted).to.be.lessThan(deployerVotes);

    // The relayer proposes and votes for; the deployer votes against: defeated.
    const p = await hostileProposal(f);
    await f.governor.connect(f.relayer).propose(p.targets, p.values, p.calldatas, p.description);
    const id = await f.governor.latestProposalId();
    await time.increaseTo((await f.governor.proposalSnapshot(id)) + 1n);
    await f.governor.connect(f.relayer).castVote(id, 1);
    await f.governor.connect(f.deployer).castVote(id, 0);
    await time.increaseTo((await f.governor.proposalDeadline(id)) + 1n);
    expect(await f.governor.state(id)).to.equal(ProposalState.Defeated);
    expect(await f.registry.hasRole(await f.registry.ORACLE_ROLE(), f.relayer.address)).to.equal(false);
  });

  it("hostile proposal that won the vote is cancelled by the governor guardian while queued", async () => {
    const f = await loadFixture(deployedSystem);
    const guardian = await ethers.getSigner(f.parameters.Governance.proposalGuardian);
    expect(await f.governor.proposalGuardian()).to.equal(guardian.address);
    expect(guardian.address).to.not.equal(f.relayer.address);

    // The deployer's key is taken: it proposes the takeover and wins the vote alone.
    const p = await hostileProposal(f);
    await f.governor.connect(f.deployer).propose(p.targets, p.values, p.calldatas, p.description);
    const id = await f.governor.latestProposalId();
    await time.increaseTo((await f.governor.proposalSnapshot(id)) + 1n);
    await f.governor.connect(f.deployer).castVote(id, 1);
    await time.increaseTo((await f.governor.proposalDeadline(id)) + 1n);
    await f.governor["queue(uint256)"](id);
    expect(await f.governor.state(id)).to.equal(ProposalState.Queued);

    await expect(f.governor.connect(f.relayer)["cancel(uint256)"](id)).to.be.revertedWithCustomError(
      f.governor,
      "GovernorUnableToCancel",
    );
    await expect(f.governor.connect(guardian)["cancel(uint256)"](id))
      .to.emit(f.governor, "ProposalCanceled")
      .withArgs(id);
    expect(await f.governor.state(id)).to.equal(ProposalState.Canceled);
    await time.increase(f.parameters.Governance.timelockMinDelay);
    await expect(f.governor["execute(uint256)"](id)).to.be.revertedWithCustomError(
      f.governor,
      "GovernorUnexpectedProposalState",
    );
    expect(await f.registry.hasRole(await f.registry.ORACLE_ROLE(), f.relayer.address)).to.equal(false);
  });

  it("hostile proposal queued: an async-vault holder who asks to leave when it is queued is out before it executes", async () => {
    const f = await loadFixture(deployedSystem);
    const minDelay = await f.timelock.getMinDelay();
    let longest = 0n;
    for (const id of VAULT_IDS) {
      const delay = await NapVault__factory.connect(f.file.vaults[id].address, f.deployer).fulfillmentDelay();
      if (delay > longest) longest = delay;
    }
    expect(longest).to.equal(86_400n);
    expect(minDelay).to.be.greaterThanOrEqual(longest + BigInt(EXIT_MARGIN_SECONDS));

    // A holder of the aggressive vault (the longest delay) sees a hostile proposal queued and leaves.
    const holder = f.signers[12];
    const usdc = TestUSDC__factory.connect(f.file.usdc.address, f.deployer);
    const vault = NapVault__factory.connect(f.file.vaults.aggressive.address, holder);
    const amount = parseUnits("1000", 6);
    await usdc.mint(holder.address, amount);
    await usdc.connect(holder).approve(await vault.getAddress(), amount);
    await vault.deposit(amount, holder.address);

    const p = await hostileProposal(f);
    await f.governor.connect(f.deployer).propose(p.targets, p.values, p.calldatas, p.description);
    const id = await f.governor.latestProposalId();
    await time.increaseTo((await f.governor.proposalSnapshot(id)) + 1n);
    await f.governor.connect(f.deployer).castVote(id, 1);
    await time.increaseTo((await f.governor.proposalDeadline(id)) + 1n);
    await f.governor["queue(uint256)"](id);
    const eta = await f.governor.proposalEta(id);

    await vault.requestRedeem(await vault.balanceOf(holder.address), holder.address, holder.address);
    await time.increase(longest);
    await vault.connect(f.relayer).fulfillRedeem(holder.address);
    await vault.redeem(await vault.maxRedeem(holder.address), holder.address, holder.address);
    expect(BigInt(await time.latest())).to.be.lessThan(eta);
    // What comes back is the deposit less a day of management fee (2% a year), far above 99.9% of it.
    expect(await usdc.balanceOf(holder.address)).to.be.greaterThanOrEqual((amount * 999n) / 1000n);
  });

  it("a proposal raises the configurable vault's fulfilment delay to 7 days, the next sets fees to the hard bounds: a holder who asks to leave when it is queued is still out before it executes", async () => {
    const f = await loadFixture(deployedSystem);
    const holder = f.signers[12];
    const usdc = TestUSDC__factory.connect(f.file.usdc.address, f.deployer);
    const vault = ConfigurableNapVault__factory.connect(f.file.vaults.configurable.address, holder);
    const amount = parseUnits("1000", 6);
    await usdc.mint(holder.address, amount);
    await usdc.connect(holder).approve(await vault.getAddress(), amount);
    await vault.deposit(amount, holder.address);
    const target = await vault.getAddress();
    /** Proposes one call on the vault, votes it through with the deployer's supply and queues it; returns its id. */
    const passAndQueue = async (calldata: string, description: string) => {
      await f.governor.connect(f.deployer).propose([target], [0n], [calldata], description);
      const id = await f.governor.latestProposalId();
      await time.increaseTo((await f.governor.proposalSnapshot(id)) + 1n);
      await f.governor.connect(f.deployer).castVote(id, 1);
      await time.increaseTo((await f.governor.proposalDeadline(id)) + 1n);
      await f.governor["queue(uint256)"](id);
      return id;
    };

    // The review's attack: the first proposal raises the delay to the hard bound, 7 days, the timelock staying at 2.
    const raise = await passAndQueue(
      vault.interface.encodeFunctionData("setFulfillmentDelay", [7 * 86_400]),
      "Configurable vault: fulfilment delay 7 days",
    );
    await time.increaseTo(await f.governor.proposalEta(raise));
    await f.governor["execute(uint256)"](raise);
    expect(await vault.fulfillmentDelay()).to.equal(7n * 86_400n);

    const fees = await passAndQueue(
      vault.interface.encodeFunctionData("setFees", [500, 3_000, 0]),
      "Configurable vault: fees to the hard bounds",
    );
    const eta = await f.governor.proposalEta(fees);
    // Asked the moment the fee proposal is queued: ready after the timelock delay less the exit margin, not 7 days.
    await vault.requestRedeem(await vault.balanceOf(holder.address), holder.address, holder.address);
    const readyAt = await vault.pendingRedeemReadyAt(holder.address);
    const minDelay = await f.timelock.getMinDelay();
    expect(readyAt).to.equal(BigInt(await time.latest()) + minDelay - BigInt(EXIT_MARGIN_SECONDS));
    // Without the fulfiller: the holder fills its own request after the grace period, claims, and is out first.
    await time.increaseTo(readyAt + (await vault.FULFILLMENT_GRACE_PERIOD()));
    await vault.fulfillRedeem(holder.address);
    await vault.redeem(await vault.maxRedeem(holder.address), holder.address, holder.address);
    expect(BigInt(await time.latest())).to.be.lessThan(eta);
    expect(await usdc.balanceOf(holder.address)).to.be.greaterThanOrEqual((amount * 999n) / 1000n);
    await time.increaseTo(eta);
    await expect(f.governor["execute(uint256)"](fees)).to.emit(vault, "FeesUpdated").withArgs(500n, 3_000n, 0n);
  });

  it("the proposal guardian vetoes its own replacement and revoking a vault guardian's role while every vault stays paused: refused, governance replaces both", async () => {
    const f = await loadFixture(deployedSystem);
    // The review's attack: one hand holds the proposal guardian key and the vaults' guardian key (Roles.guardians[0]).
    const proposalGuardian = await ethers.getSigner(f.parameters.Governance.proposalGuardian);
    const vaultGuardian = await ethers.getSigner(f.parameters.Roles.guardians[0]);
    const vaults = VAULT_IDS.map((id) => NapVault__factory.connect(f.file.vaults[id].address, vaultGuardian));
    const guardianRole = await vaults[0].GUARDIAN_ROLE();
    for (const vault of vaults) await vault.pause();

    const governor = await f.governor.getAddress();
    const registry = await f.registry.getAddress();
    const newProposalGuardian = f.signers[15];
    const newVaultGuardian = f.signers[16];
    const revoke = f.registry.interface.encodeFunctionData("revokeRole", [guardianRole, vaultGuardian.address]);
    const targets = [governor, ...(await Promise.all(vaults.map((v) => v.getAddress()))), registry];
    const values = targets.map(() => 0n);
    const calldatas = [
      f.governor.interface.encodeFunctionData("setProposalGuardian", [newProposalGuardian.address]),
      ...targets.slice(1).map(() => revoke),
    ];
    const description = "Replace the proposal guardian and revoke the vault guardian";
    await f.governor.connect(f.deployer).propose(targets, values, calldatas, description);
    const id = await f.governor.latestProposalId();

    // At least `t` (the local voting delay is 1 s, so a snapshot may already be in the past).
    const reach = async (t: bigint) => {
      if (BigInt(await time.latest()) < t) await time.increaseTo(t);
    };
    const refused = async (state: bigint) => {
      expect(await f.governor.state(id)).to.equal(state);
      for (const who of [proposalGuardian, f.deployer]) {
        await expect(f.governor.connect(who)["cancel(uint256)"](id))
          .to.be.revertedWithCustomError(f.governor, "NapGovernorGuardianChangeNotCancellable")
          .withArgs(id);
      }
    };
    await refused(ProposalState.Pending);
    expect(await f.governor.isGuardianChange(id)).to.equal(true);
    await reach((await f.governor.proposalSnapshot(id)) + 1n);
    await refused(ProposalState.Active);
    await f.governor.connect(f.deployer).castVote(id, 1);
    await reach((await f.governor.proposalDeadline(id)) + 1n);
    await refused(ProposalState.Succeeded);
    await f.governor["queue(uint256)"](id);
    await refused(ProposalState.Queued);
    // Nor through the timelock: only the governor may cancel there.
    const operation = await f.timelock.hashOperationBatch(
      targets,
      values,
      calldatas,
      ethers.ZeroHash,
      ethers.toBeHex((BigInt(governor) * (1n << 96n)) ^ BigInt(ethers.id(description)), 32),
    );
    for (const who of [proposalGuardian, vaultGuardian]) {
      await expect(f.timelock.connect(who).cancel(operation))
        .to.be.revertedWithCustomError(f.timelock, "AccessControlUnauthorizedAccount")
        .withArgs(who.address, await f.timelock.CANCELLER_ROLE());
    }
    await reach(await f.governor.proposalEta(id));
    await f.governor["execute(uint256)"](id);
    expect(await f.governor.state(id)).to.equal(ProposalState.Executed);
    expect(await f.governor.proposalGuardian()).to.equal(newProposalGuardian.address);
    expect(await f.registry.hasRole(guardianRole, vaultGuardian.address)).to.equal(false);
    for (const vault of vaults) {
      expect(await vault.hasRole(guardianRole, vaultGuardian.address)).to.equal(false);
      await expect(vault.unpause())
        .to.be.revertedWithCustomError(vault, "AccessControlUnauthorizedAccount")
        .withArgs(vaultGuardian.address, guardianRole);
    }

    // The next (ordinary) proposal gives the vaults a new guardian: the old proposal guardian cannot cancel it.
    const grant = f.registry.interface.encodeFunctionData("grantRole", [guardianRole, newVaultGuardian.address]);
    await f.governor.connect(f.deployer).propose(
      targets.slice(1, 1 + vaults.length),
      vaults.map(() => 0n),
      vaults.map(() => grant),
      "A new vault guardian",
    );
    const next = await f.governor.latestProposalId();
    expect(await f.governor.isGuardianChange(next)).to.equal(false);
    await reach((await f.governor.proposalSnapshot(next)) + 1n);
    await f.governor.connect(f.deployer).castVote(next, 1);
    await reach((await f.governor.proposalDeadline(next)) + 1n);
    await f.governor["queue(uint256)"](next);
    await expect(f.governor.connect(proposalGuardian)["cancel(uint256)"](next))
      .to.be.revertedWithCustomError(f.governor, "GovernorUnableToCancel")
      .withArgs(next, proposalGuardian.address);
    await reach(await f.governor.proposalEta(next));
    await f.governor["execute(uint256)"](next);
    for (const vault of vaults) {
      await expect(vault.connect(newVaultGuardian).unpause())
        .to.emit(vault, "Unpaused")
        .withArgs(newVaultGuardian.address);
      expect(await vault.paused()).to.equal(false);
    }
  });
});
