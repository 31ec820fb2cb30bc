import { z } from "zod";
import { usdcNumber } from "../../../domain/units";
import type { AgentRecord } from "../../../usecases/agents";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import { leaderboardQuery, leaderboardResponse, statsResponse } from "../../../../../packages/wire/src/live";

export function agentRoutes({ useCases }: RouteContext): RouteDefinition[] {
  const leaderboardBody = (agents: AgentRecord[]): z.input<typeof leaderboardResponse> => ({
    agents: agents.map((agent) => ({
      agent_name: agent.agentName,
      tier: agent.tier,
      performance_score: agent.performanceScore,
      strategies_submitted: agent.strategiesSubmitted,
    })),
    count: agents.length,
  });
  return [
    defineRoute({
      method: "get",
      path: "/api/v1/agents",
      tag: "agents",
      summary: "Agent leaderboard, highest performance score first",
      auth: null,
      rateLimit: "public",
      query: leaderboardQuery,
      responses: { 200: { description: "leaderboard", schema: leaderboardResponse } },
      // The service hands out the same array while its one-second cache holds, so the serialized page is reused.
      cache: {
        kept: ({ query }: { query: z.output<typeof leaderboardQuery> }) => useCases.agents.keptLeaderboard(query.limit),
        body: leaderboardBody,
      },
      handler: ({ query }) => useCases.agents.leaderboard(query.limit),
    }),
    defineRoute({
      method: "get",
      path: "/api/v1/agents/stats",
      tag: "agents",
      summary: "Aggregate agent statistics",
      auth: null,
      rateLimit: "public",
      responses: { 200: { description: "statistics", schema: statsResponse } },
      handler: async () => {
        const stats = await useCases.agents.stats();
        return {
          total_agents: stats.totalAgents,
          active_agents: stats.activeAgents,
          strategies_submitted: stats.strategiesSubmitted,
          total_deposits_usdc: usdcNumber(stats.depositsMicroUsdc),
        };
      },
    }),
  ];
}
