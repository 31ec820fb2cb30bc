import { z } from "zod";
import { PERMISSIONS } from "../../../domain/tiers";
import { CAMPAIGN_CRITERIA, CAMPAIGN_ID } from "../../../usecases/campaign";
import { authenticatedAgent } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";

/** Campaign eligibility of the agent, criterion by criterion. */

export const eligibilityResponse = z
  .object({
    campaign_id: z.literal(CAMPAIGN_ID),
    agent_address: z.string(),
    eligible: z.boolean().meta({ description: "every criterion met" }),
    criteria: z.array(
      z.object({
        id: z.enum(CAMPAIGN_CRITERIA),
        description: z.string(),
        met: z.boolean(),
        value: z.union([z.string(), z.number()]).meta({ description: "the measured value" }),
      }),
    ),
  })
  .meta({ id: "CampaignEligibility" });

export function campaignRoutes({ useCases }: RouteContext): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/api/v1/agent/galaxy/eligibility",
      tag: "campaign",
      summary: "Eligibility of the agent for the quest campaign, criterion by criterion",
      auth: { kind: "agent", minTier: PERMISSIONS.agentAccess },
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
