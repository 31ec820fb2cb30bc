import { principalOf } from "../auth";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import { grantTierBody, grantTierParams, grantTierResponse } from "../../../../../packages/wire/src/live";

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
