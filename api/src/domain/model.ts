/** Value sets shared by the domain, the stores, the chain's vocabulary and the HTTP schemas. */

/** Tiers in ascending order of trust (see domain/tiers.ts for the promotion rules). */
export const TIERS = ["unverified", "registered", "established", "core_contributor"] as const;
export type Tier = (typeof TIERS)[number];

export const AGENT_TYPES = ["trading", "governance", "analytics", "custom", "quant", "cfo", "research"] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

export const AGENT_STATUSES = ["active", "suspended"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** The six vault identifiers of the API, keys of `vaults` in the deployment file. */
export const VAULT_IDS = ["conservative", "moderate", "aggressive", "inverse", "hedged", "configurable"] as const;
export type VaultId = (typeof VAULT_IDS)[number];

/** Strategy lifecycle states of the spec, in the registry's order (chain/vocabulary.ts). */
export const STRATEGY_STATUSES = [
  "shadow",
  "guardian_review",
  "paper_trading",
  "pending_oracle_approval",
  "live",
  "paused",
  "deprecated",
] as const;
export type StrategyStatus = (typeof STRATEGY_STATUSES)[number];

/** Governance proposal states, in the governor's order (chain/vocabulary.ts). */
export const PROPOSAL_STATES = [
  "pending",
  "active",
  "canceled",
  "defeated",
  "succeeded",
  "queued",
  "expired",
  "executed",
] as const;
export type ProposalState = (typeof PROPOSAL_STATES)[number];

/** Badge milestones: the tiers above unverified, in the badge contract's order (chain/vocabulary.ts). */
export const MILESTONES = ["registered", "established", "core_contributor"] as const satisfies readonly Tier[];
export type Milestone = (typeof MILESTONES)[number];

/** Vote support values (0, 1, 2) of the governor and the vote endpoint. */
export const VOTE_SUPPORT = ["against", "for", "abstain"] as const;
export type VoteSupport = 0 | 1 | 2;
