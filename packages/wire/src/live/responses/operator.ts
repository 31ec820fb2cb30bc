import { z } from "zod";
import { TIERS } from "../vocabulary";

/** An operator's tier grant. */

export const grantTierResponse = z
  .object({
    agent_id: z.string(),
    agent_name: z.string(),
    tier: z.enum(TIERS),
    tier_granted_by: z
      .string()
      .meta({ description: "id of the operator key (operator:N, N = position in AGENT_API_KEYS)" }),
  })
  .meta({ id: "TierGrantResult" });
