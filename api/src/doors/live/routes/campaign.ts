import { agentAuth, authenticatedAgent } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import { eligibilityResponse } from "../../../../../packages/wire/src/live";

/** Campaign eligibility of the agent, criterion by criterion. */

export function campaignRoutes({ useCases }: RouteContext): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/api/v1/agent/galaxy/eligibility",
      tag: "campaign",
      summary: "Eligibility of the agent for the quest campaign, criterion by criterion",
      auth: agentAuth("read"),
      rateLimit: "agent",
      noStore: true,
      responses: { 200: { description: "eligibility", schema: eligibilityResponse } },
      errors: ["CHAIN_UNAVAILABLE", "NOT_CONFIGURED"],
      handler: async ({ ctx }) => {
        const eligibility = await useCases.campaign.eligibility(authenticatedAgent(ctx));
        return {
          campaign_id: eligibility.campaignId,
          agent_address: eligibility.agentAddress,
          eligible: eligibility.eligible,
          criteria: eligibility.criteria,
        };
      },
    }),
  ];
}
