/**
 * Value sets shared by the domain, the stores, the chain's vocabulary and the HTTP schemas: the wire contract's lists,
 * so a client is told exactly these; test/api/chain/vocabulary.test.ts holds them against the contracts' enums.
 */
export {
  AGENT_STATUSES,
  AGENT_TYPES,
  MILESTONES,
  PROPOSAL_STATES,
  STRATEGY_STATUSES,
  TIERS,
  VAULT_IDS,
  VOTE_SUPPORT,
  type AgentStatus,
  type AgentType,
  type Milestone,
  type ProposalState,
  type StrategyStatus,
  type Tier,
  type VaultId,
  type VoteSupport,
} from "../../../packages/wire/src/live/vocabulary";
