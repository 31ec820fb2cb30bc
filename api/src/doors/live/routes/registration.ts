import { z } from "zod";
import { AGENT_TYPES } from "../../../domain/model";
import { NONCE_TTL_SECONDS } from "../../../usecases/registration";
import { defineRoute, type RouteContext, type RouteDefinition } from "../route";
import { addressSchema, isoTimestamp, textSchema } from "../../../../../packages/wire/src/live";

export const nonceQuery = z.strictObject({ wallet: addressSchema });

export const nonceResponse = z
  .object({
    nonce: z
      .string()
      .meta({ description: "32 hex characters; single use", example: "9f86d081884c7d659a2feaa0c55ad015" }),
    message: z.string().meta({ description: "full text to sign with EIP-191 personal_sign (EIP-4361 format)" }),
    expires_in_seconds: z.number().int().meta({ example: NONCE_TTL_SECONDS }),
  })
  .meta({ id: "Nonce" });

export const registerBody = z
  .strictObject({
    wallet_address: addressSchema,
    signature: z
      .string()
      .regex(/^0x([0-9a-fA-F]{2})+$/, { message: "must be 0x-prefixed hex bytes", abort: true })
      .max(2 + 2 * 4096, "must be at most 4096 bytes")
      .meta({ description: "EIP-191 signature of `message` from the nonce step (EIP-1271 for contract wallets)" }),
    nonce: z
      .string()
      .regex(/^[0-9a-fA-F]{32}$/, "must be 32 hex characters")
      .transform((value) => value.toLowerCase()),
    agent_name: textSchema(3, 100),
    agent_type: z.enum(AGENT_TYPES).default("custom"),
    description: textSchema(0, 500, { multiline: true }).optional(),
    operator_address: addressSchema,
    operator_email: z.email({ message: "must be an email address" }).max(254).optional(),
    operator_name: textSchema(1, 100).optional(),
    framework: textSchema(1, 50).optional(),
    repo_url: z
      .url({ protocol: /^https?$/, message: "must be an http(s) URL" })
      .max(2048)
      .optional(),
  })
  .meta({ id: "RegisterRequest" });

export const registerResponse = z
  .object({
    success: z.literal(true),
    agent_id: z.uuid(),
    agent_name: z.string(),
    api_key: z.string().meta({ description: "`nap-` plus 32 characters; returned exactly once" }),
    api_key_prefix: z.string().meta({ description: "first 12 characters of the key" }),
    tier: z.literal("unverified"),
    message: z.string(),
  })
  .meta({ id: "RegisterResponse" });

export const lookupResponse = z
  .union([
    z.object({
      registered: z.literal(true),
      agent_name: z.string(),
      tier: z.string(),
      status: z.string(),
      strategies_submitted: z.number().int(),
      performance_score: z.number(),
      api_key_prefix: z.string(),
      created_at: isoTimestamp,
    }),
    z.object({ registered: z.literal(false) }),
  ])
  .meta({ id: "LookupResponse" });

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
