/** Value sets shared by the domain, the stores and the HTTP schemas. */

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
