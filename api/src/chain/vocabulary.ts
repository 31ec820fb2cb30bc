import {
  MILESTONES,
  PROPOSAL_STATES,
  STRATEGY_STATUSES,
  type Milestone,
  type ProposalState,
  type StrategyStatus,
} from "../domain/model";

/**
 * The chain's vocabulary: the onchain enums as the API names them. Each list is in the order of its Solidity enum
 * (IStrategyRegistryV3.Status, OpenZeppelin's IGovernor.ProposalState, IAgentBadges.Milestone), so an enum value
 * read from the chain is an index into it; test/api/chain/vocabulary.test.ts checks every list against the compiled
 * contracts. An index outside a list means the contracts and the API disagree: that is an error, never a guess.
 */

function nameOf<T extends string>(names: readonly T[], what: string, index: bigint | number): T {
  const name = names[Number(index)];
  if (name === undefined)
    throw new Error(`${what} ${index} is not in the API's vocabulary: contracts and API disagree`);
  return name;
}

/** StrategyRegistryV3.Status, by onchain index. */
export const strategyStatus = (index: bigint | number): StrategyStatus =>
  nameOf(STRATEGY_STATUSES, "strategy status", index);

/** IGovernor.ProposalState, by onchain index. */
export const proposalState = (index: bigint | number): ProposalState =>
  nameOf(PROPOSAL_STATES, "proposal state", index);

/** AgentBadges.Milestone, by onchain index. */
export const milestone = (index: bigint | number): Milestone => nameOf(MILESTONES, "badge milestone", index);

/** The onchain index of a badge milestone. */
export const milestoneIndex = (name: Milestone): number => MILESTONES.indexOf(name);
