import { z } from "zod";
import { keyOperationSchema, vaultIdSchema } from "../requests";
import { isoTimestamp, txHash } from "../schemas";

/** The way out of the server wallet (to the operator address) and the operator change that moves it. */

export const exitResponse = z
  .object({
    success: z.literal(true),
    agent_address: z.string().meta({ description: "the agent's server wallet (sender)" }),
    operator_address: z.string().meta({ description: "the agent's operator address (recipient)" }),
    asset: z.enum(["usdc", "eth", "shares"]),
    vault_id: vaultIdSchema.nullable().meta({ description: "the vault whose shares moved; null for USDC and ETH" }),
    token_address: z.string().nullable().meta({ description: "the token moved (USDC or the vault); null for ETH" }),
    amount_raw: z.string().meta({ description: "what moved, in the asset's smallest unit" }),
    tx_hash: txHash,
    status: z.literal("confirmed").meta({ description: "the transaction mined successfully" }),
    block_number: z.number().int(),
  })
  .meta({ id: "ExitResult" });

export const operatorChangeResponse = z
  .object({
    success: z.literal(true),
    agent_id: z.uuid(),
    operator_address: z.string().meta({ description: "the new operator: from now on the agent's only exit" }),
    previous_operator_address: z.string(),
  })
  .meta({ id: "OperatorChangeResult" });

export const keyRotationResponse = z
  .object({
    success: z.literal(true),
    agent_id: z.uuid(),
    api_key: z.string().meta({ description: "`nap-` plus 32 characters; returned exactly once" }),
    api_key_prefix: z.string().meta({ description: "first 12 characters of the new key" }),
    previous_api_key_prefix: z
      .string()
      .meta({ description: "the key that stopped working (empty when the agent's key was revoked before)" }),
    message: z.string(),
  })
  .meta({ id: "KeyRotationResult" });

export const keyRevocationResponse = z
  .object({
    success: z.literal(true),
    agent_id: z.uuid(),
    revoked_api_key_prefix: z.string().meta({ description: "the key that stopped working" }),
    message: z.string(),
  })
  .meta({ id: "KeyRevocationResult" });

/** What a scoped key may do, as the key issuance and the key list show it. */
export const keyScopeSchema = z
  .object({
    read_only: z.boolean(),
    operations: z.array(keyOperationSchema).meta({ description: "the writes the key may call; [] when read-only" }),
    usdc_per_day: z
      .string()
      .nullable()
      .meta({ description: "USDC base units (6 decimals) the key may move out per UTC day; null: no daily limit" }),
  })
  .meta({ id: "KeyScope" });

export const scopedKeyResponse = z
  .object({
    success: z.literal(true),
    agent_id: z.uuid(),
    api_key: z.string().meta({ description: "`nap-` plus 32 characters, sent as X-API-Key; returned exactly once" }),
    api_key_prefix: z
      .string()
      .meta({ description: "first 12 characters: the key's name in the list and to revoke it" }),
    label: z.string().nullable(),
    scope: keyScopeSchema,
    expires_at: isoTimestamp,
  })
  .meta({ id: "ScopedKeyResult" });

export const scopedKeyRevocationResponse = z
  .object({
    success: z.literal(true),
    agent_id: z.uuid(),
    revoked_api_key_prefix: z.string().meta({ description: "the scoped key that stopped working on every instance" }),
    message: z.string(),
  })
  .meta({ id: "ScopedKeyRevocationResult" });

export const keyListResponse = z
  .object({
    agent_id: z.uuid(),
    keys: z.array(
      z.object({
        api_key_prefix: z.string().meta({ description: "first 12 characters of the key" }),
        kind: z
          .enum(["full", "scoped"])
          .meta({ description: "full: the agent's own key (every operation, never expires); scoped: limited" }),
        label: z.string().nullable(),
        scope: keyScopeSchema.nullable().meta({ description: "null for the full key" }),
        state: z.enum(["active", "rotated", "revoked", "expired"]),
        created_at: isoTimestamp,
        last_used_at: isoTimestamp
          .nullable()
          .meta({ description: "last request with the key, to the minute; null: none recorded" }),
        expires_at: isoTimestamp.nullable().meta({ description: "null for the full key, which does not expire" }),
        ended_at: isoTimestamp
          .nullable()
          .meta({ description: "when a rotation replaced it or it was revoked (an expired key: its expiry)" }),
      }),
    ),
  })
  .meta({
    id: "KeyList",
    description:
      "the agent's keys, newest first: the full key in use and those it held before, then the scoped keys; a scoped key sees only itself",
  });
