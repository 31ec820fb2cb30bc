import { z } from "zod";
import { TIERS } from "../../../domain/model";
import { principalOf } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";

export const grantTierParams = z.strictObject({ agent_id: z.uuid({ message: "must be a UUID" }) });
export const grantTierBody = z.strictObject({ tier: z.enum(TIERS) }).meta({ id: "TierGrant" });
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

export function operatorRoutes({ useCases, logger }: RouteContext): RouteDefinition[] {
  return [
    defineRoute({
      method: "post",
      path: "/api/v1/operator/agents/:agent_id/tier",
      tag: "operator",
      summary: "Set an agent's tier (operator keys only)",
      description:
        "Operator grant of the tier rules: sets the tier up or down. Automatic promotion may raise it later; it never lowers it.",
      auth: { kind: "operator" },
      rateLimit: "agent",
      params: grantTierParams,
      body: grantTierBody,
      responses: { 200: { description: "tier set", schema: grantTierResponse } },
      errors: ["NOT_FOUND"],
      handler: async ({ params, body, ctx }) => {
        const operator = principalOf(ctx);
        const agent = await useCases.agents.grantTier(params.agent_id, body.tier, operator.keyId);
        logger.info({ agentId: agent.agentId, tier: agent.tier, by: operator.keyId }, "tier granted");
        return {
          agent_id: agent.agentId,
          agent_name: agent.agentName,
          tier: agent.tier,
          tier_granted_by: operator.keyId,
        };
      },
    }),
  ];
}
