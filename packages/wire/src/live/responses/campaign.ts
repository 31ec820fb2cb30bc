import { z } from "zod";
import { CAMPAIGN_CRITERIA, CAMPAIGN_ID } from "../vocabulary";

/** An agent's eligibility for the quest campaign, criterion by criterion. */

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
