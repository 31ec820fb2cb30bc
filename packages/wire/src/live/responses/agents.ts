import { z } from "zod";

/** The agent leaderboard and the agents' aggregate statistics. */

export const leaderboardResponse = z
  .object({
    agents: z.array(
      z.object({
        agent_name: z.string(),
        tier: z.string(),
        performance_score: z.number(),
        strategies_submitted: z.number().int(),
      }),
    ),
    count: z.number().int(),
  })
  .meta({ id: "Leaderboard" });

export const statsResponse = z
  .object({
    total_agents: z.number().int(),
    active_agents: z.number().int(),
    strategies_submitted: z.number().int(),
    total_deposits_usdc: z.number(),
  })
  .meta({ id: "AgentStats" });
