import { z } from "zod";
import { isoTimestamp } from "../schemas";
import { NONCE_TTL_SECONDS } from "../vocabulary";

/** Registration: the sign-in nonce, the new agent and its key, the lookup of a wallet. */

export const nonceResponse = z
  .object({
    nonce: z
      .string()
      .meta({ description: "32 hex characters; single use", example: "9f86d081884c7d659a2feaa0c55ad015" }),
    message: z.string().meta({ description: "full text to sign with EIP-191 personal_sign (EIP-4361 format)" }),
    expires_in_seconds: z.number().int().meta({ example: NONCE_TTL_SECONDS }),
  })
  .meta({ id: "Nonce" });

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
