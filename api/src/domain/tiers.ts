import { TIERS, type Tier } from "./model";

/**
 * Tier rules: the one place that decides an agent's tier. Documented in docs/api.md ("Tiers").
 *
 * - unverified: every agent at registration.
 * - registered: earned by submitting at least 1 strategy onchain through the service.
 * - established: earned when at least 3 of the agent's strategies passed screening (left `shadow` and not
 *   `deprecated`; see domain/screening.ts).
 *   Minimum tier for governance votes.
 * - core_contributor: earned when at least 10 strategies passed screening.
 * - Any tier can also be set by an operator (a key from AGENT_API_KEYS) through
 *   POST /api/v1/operator/agents/{agent_id}/tier; the grant is recorded with the operator key's id.
 * - Automatic promotion only ever raises a tier (to the highest tier the activity earns); it never lowers one.
 *   Only an operator grant lowers a tier.
 */

export interface TierActivity {
  strategiesSubmitted: number;
  strategiesPassedScreening: number;
}

/** Thresholds per tier, in ascending order; a tier is earned when every listed count is reached. */
export const TIER_THRESHOLDS: ReadonlyArray<{
  tier: Tier;
  strategiesSubmitted: number;
  strategiesPassedScreening: number;
}> = [
  { tier: "registered", strategiesSubmitted: 1, strategiesPassedScreening: 0 },
  { tier: "established", strategiesSubmitted: 3, strategiesPassedScreening: 3 },
  { tier: "core_contributor", strategiesSubmitted: 10, strategiesPassedScreening: 10 },
];

/** Minimum tier per permission (the vote route uses `PERMISSIONS.governanceVote`). */
export const PERMISSIONS = {
  /** Keyed endpoints in general (deposit, submit, wallet, faucet...). */
  agentAccess: "unverified",
  governanceVote: "established",
} as const satisfies Record<string, Tier>;

export function tierRank(tier: Tier): number {
  return TIERS.indexOf(tier);
}

/** True when `tier` is `minimum` or above. */
export function tierAtLeast(tier: Tier, minimum: Tier): boolean {
  return tierRank(tier) >= tierRank(minimum);
}

/** The highest tier the activity earns on its own. */
export function earnedTier(activity: TierActivity): Tier {
  let earned: Tier = "unverified";
  for (const rule of TIER_THRESHOLDS) {
    if (
      activity.strategiesSubmitted >= rule.strategiesSubmitted &&
      activity.strategiesPassedScreening >= rule.strategiesPassedScreening
    ) {
      earned = rule.tier;
    }
  }
  return earned;
}

/** The tier after automatic evaluation: the current tier, raised to the earned tier if that is higher. */
export function promotedTier(current: Tier, activity: TierActivity): Tier {
  const earned = earnedTier(activity);
  return tierRank(earned) > tierRank(current) ? earned : current;
}
