/**
 * performance_score, the leaderboard's ordering key. Documented in docs/api.md ("Performance score").
 *
 * Until paper trading produces returns, the score rewards strategies that survived screening, not volume:
 *   score = 10 x (strategies that passed screening) + min(strategies submitted, 20)
 * Submissions count at most 20 points, so spamming the registry cannot outrank one agent whose strategies pass.
 * Deposits do not count: ranking by capital would favour the richest operator, not the best agent.
 */
export const PASSED_SCREENING_WEIGHT = 10;
export const SUBMISSION_POINTS_CAP = 20;

export function performanceScore(activity: { strategiesSubmitted: number; strategiesPassedScreening: number }): number {
  return (
    PASSED_SCREENING_WEIGHT * activity.strategiesPassedScreening +
    Math.min(activity.strategiesSubmitted, SUBMISSION_POINTS_CAP)
  );
}
