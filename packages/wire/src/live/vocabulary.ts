/**
 * The names, value sets and bounds of the live API. Defined here once: the service's domain imports them (its model,
 * its strategy rules), so what a client is told and what the service enforces cannot differ.
 */

/** The six vault identifiers of the API, keys of `vaults` in the deployment file. */
export const VAULT_IDS = ["conservative", "moderate", "aggressive", "inverse", "hedged", "configurable"] as const;
export type VaultId = (typeof VAULT_IDS)[number];

/** Tiers in ascending order of trust. */
export const TIERS = ["unverified", "registered", "established", "core_contributor"] as const;
export type Tier = (typeof TIERS)[number];

export const AGENT_TYPES = ["trading", "governance", "analytics", "custom", "quant", "cfo", "research"] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

export const AGENT_STATUSES = ["active", "suspended"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** Strategy lifecycle states of the spec, in the registry's order. */
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

/** Governance proposal states, in the governor's order. */
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

/** Badge milestones: the tiers above unverified, in the badge contract's order. */
export const MILESTONES = ["registered", "established", "core_contributor"] as const satisfies readonly Tier[];
export type Milestone = (typeof MILESTONES)[number];

/** Vote support values (0, 1, 2) of the governor and the vote endpoint. */
export const VOTE_SUPPORT = ["against", "for", "abstain"] as const;
export type VoteSupport = 0 | 1 | 2;

/** Byte lengths of a strategy's UTF-8 texts (StrategyRegistryV3's NAME_* and DESCRIPTION_* bounds). */
export const TEXT_BYTES = {
  name: { min: 3, max: 100 },
  description: { min: 10, max: 2000 },
} as const;

/** The risk parameters in the API's names and units, with their defaults (the spec's) and bounds (the registry's). */
export const RISK_PARAMS = {
  max_position_size_percent: { min: 1, max: 100, fallback: 10, description: "percent of AUM" },
  max_leverage: { min: 100, max: 1000, fallback: 200, description: "100 = 1x" },
  stop_loss_percent: { min: 50, max: 5000, fallback: 500, description: "basis points" },
  slippage_tolerance_bps: { min: 1, max: 1000, fallback: 100, description: "basis points" },
  correlation_threshold: { min: 0, max: 100, fallback: 70, description: "70 = 0.7" },
  // The registry allows up to 2^184 - 1; JSON numbers are exact up to 2^53 - 1.
  velocity_limit: {
    min: 1000,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 1_000_000,
    description: "max capital movement per period, USDC base units",
  },
} as const;
export type RiskParamName = keyof typeof RISK_PARAMS;

/** Lifetime of a sign-in nonce (the spec's). */
export const NONCE_TTL_SECONDS = 600;

/** The quest campaign and the criteria its eligibility answer measures, in the answer's order. */
export const CAMPAIGN_ID = "nap-galaxy-season-1";
export const CAMPAIGN_CRITERIA = ["registered", "tier_registered", "strategy_submitted", "vault_deposit"] as const;
export type CampaignCriterion = (typeof CAMPAIGN_CRITERIA)[number];

/**
 * The operations a scoped API key may be limited to: every keyed write of the live API names one (its route's
 * `auth.access`), matched exactly (no case folding, no wildcards). Reads need no operation: every scoped key reads.
 */
export const KEY_OPERATIONS = [
  "vault.deposit",
  "vault.withdraw",
  "vault.redeem_request",
  "vault.claim",
  "vault.redeem_cancel",
  "strategy.submit",
  "governance.vote",
  "faucet",
  "exit",
] as const;
export type KeyOperation = (typeof KEY_OPERATIONS)[number];

/** A scoped key's lifetime when the request names none, and the longest allowed (the full key does not expire). */
export const SCOPED_KEY_DEFAULT_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
export const SCOPED_KEY_MAX_LIFETIME_SECONDS = 365 * 24 * 60 * 60;
export const SCOPED_KEY_MIN_LIFETIME_SECONDS = 60;
