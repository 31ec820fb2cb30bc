import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import {
  lookupResponse,
  nonceQuery,
  nonceResponse,
  registerBody,
  registerResponse,
} from "../../../../../packages/wire/src/live";

export function registrationRoutes({ useCases }: RouteContext): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/api/v1/agent/auth/nonce",
      tag: "registration",
      summary: "Get a nonce and the message to sign",
      description:
        "Issues a single-use nonce bound to `wallet`, valid for 600 seconds, and the exact EIP-4361 message to sign.",
      auth: null,
      rateLimit: "public",
      query: nonceQuery,
      responses: { 200: { description: "nonce issued", schema: nonceResponse } },
      handler: ({ query }) => useCases.registration.issueNonce(query.wallet),
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/agent/auth/register",
      tag: "registration",
      summary: "Register an agent and receive its API key",
      description:
        "Verifies the signature of the nonce's message (EIP-191, or EIP-1271 for contract wallets), consumes the nonce and returns the API key once.",
      auth: null,
      rateLimit: "public",
      body: registerBody,
      responses: { 200: { description: "registered (the key is in this answer only)", schema: registerResponse } },
      // 409: an agent is already registered for the wallet; 503: the chain is needed (EIP-1271, a new wallet index).
      errors: ["CONFLICT", "CHAIN_UNAVAILABLE"],
      noStore: true,
      handler: async ({ body }) => {
        const { agent, apiKey } = await useCases.registration.register(body);
        return {
          success: true,
          agent_id: agent.agentId,
          agent_name: agent.agentName,
          api_key: apiKey,
          api_key_prefix: agent.apiKeyPrefix,
          tier: agent.tier,
          message: "Agent registered. Store the API key now: it is shown only once.",
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/api/v1/agent/auth/lookup",
      tag: "registration",
      summary: "Look up the registration of a wallet",
      auth: null,
      rateLimit: "public",
      query: nonceQuery,
      responses: { 200: { description: "registration state", schema: lookupResponse } },
      handler: async ({ query }) => {
        const agent = await useCases.agents.findByWallet(query.wallet);
        if (!agent) return { registered: false };
        return {
          registered: true,
          agent_name: agent.agentName,
          tier: agent.tier,
          status: agent.status,
          strategies_submitted: agent.strategiesSubmitted,
          performance_score: agent.performanceScore,
          api_key_prefix: agent.apiKeyPrefix,
          created_at: agent.createdAt.toISOString(),
        };
      },
    }),
  ];
}
