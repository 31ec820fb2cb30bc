import { ethers } from "hardhat";
import type { NapGovernor, NapToken, StrategyRegistryV3, TimelockController } from "../../../typechain-types";

const E18 = 10n ** 18n;

export const VOTING_DELAY = 10;
export const VOTING_PERIOD = 100;
export const TIMELOCK_DELAY = 60;
export const PROPOSAL_THRESHOLD = 10n * E18;
export const QUORUM_PERCENT = 4n;

export const ProposalState = {
  Pending: 0,
  Active: 1,
  Canceled: 2,
  Defeated: 3,
  Succeeded: 4,
  Queued: 5,
  Expired: 6,
  Executed: 7,
} as const;

/** OpenZeppelin's state bitmap: bit i set for state i. */
export function stateBitmap(...states: number[]): string {
  return ethers.toBeHex(
    states.reduce((acc, s) => acc | (1n << BigInt(s)), 0n),
    32,
  );
}

/**
 * Token (voters: forVoter 400, againstVoter 300, abstainVoter 200, proposer 100 NAP = 1000 total), timelock
 * administered only by itself, governor as proposer and canceller, anyone as executor, and a registry whose admin is
 * the timelock; `guardian` is the governor's proposal guardian.
 */
export async function deployGovernance() {
  const [deployer, forVoter, againstVoter, abstainVoter, proposer, stranger, guardian] = await ethers.getSigners();
  const token = (await ethers.deployContract("NapToken", [
    deployer.address,
    deployer.address,
    1000n * E18,
    1_000_000n * E18,
  ])) as unknown as NapToken;
  await token.transfer(forVoter.address, 400n * E18);
  await token.transfer(againstVoter.address, 300n * E18);
  await token.transfer(abstainVoter.address, 200n * E18);
  await token.transfer(proposer.address, 100n * E18);

  const timelock = (await ethers.deployContract("TimelockController", [
    TIMELOCK_DELAY,
    [],
    [ethers.ZeroAddress],
    deployer.address,
  ])) as unknown as TimelockController;
  const governor = (await ethers.deployContract("NapGovernor", [
    await token.getAddress(),
    await timelock.getAddress(),
    VOTING_DELAY,
    VOTING_PERIOD,
    PROPOSAL_THRESHOLD,
    QUORUM_PERCENT,
    guardian.address,
  ])) as unknown as NapGovernor;
  await timelock.grantRole(await timelock.PROPOSER_ROLE(), await governor.getAddress());
  await timelock.grantRole(await timelock.CANCELLER_ROLE(), await governor.getAddress());
  await timelock.renounceRole(await timelock.DEFAULT_ADMIN_ROLE(), deployer.address);

  const registry = (await ethers.deployContract("StrategyRegistryV3", [
    await timelock.getAddress(),
    2,
    2,
    3600,
  ])) as unknown as StrategyRegistryV3;

  return {
    token,
    timelock,
    governor,
    registry,
    deployer,
    forVoter,
    againstVoter,
    abstainVoter,
    proposer,
    stranger,
    guardian,
  };
}
