import { z } from "zod";
import { addressSchema, textSchema } from "../live/schemas";
import { DEFAULT_KEY_LIFETIME_DAYS, DEFAULT_SCOPES, MAX_KEY_LIFETIME_DAYS, SCOPES } from "./vocabulary";

/**
 * The request and response schemas of the data API's access routes (/v1/auth/*, /v1/rate-limit, /v1/nodes): keys,
 * their limits, the nodes of the network. The data API's OpenAPI document is built from them.
 */

const ownerLabel = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 . _ -");

export const issueKeyBody = z.strictObject({
  name: textSchema(1, 64).optional().meta({ description: "A name to recognise the key by (default: data key)." }),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .max(SCOPES.length)
    .optional()
    .meta({ description: `Default: ${DEFAULT_SCOPES.join(", ")}. nodes:write only on Node Operator keys.` }),
  expires_in_days: z
    .number()
    .int()
    .min(1)
    .max(MAX_KEY_LIFETIME_DAYS)
    .optional()
    .meta({ description: `Lifetime in days (default ${DEFAULT_KEY_LIFETIME_DAYS}).` }),
  tier: z
    .enum(["authenticated", "node_operator"])
    .optional()
    .meta({ description: "Operators only (default node_operator); others always get authenticated." }),
  owner: ownerLabel.optional().meta({ description: "Operators only: the label of who the key is for." }),
  wallet: addressSchema.optional().meta({ description: "Wallet proof: the wallet that signed." }),
  nonce: z
    .string()
    .regex(/^[0-9a-f]{32}$/, "must be the 32 hex characters of GET /v1/auth/nonce")
    .optional(),
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]{130,4096}$/, "must be a 0x-prefixed hex signature")
    .optional(),
});

export const nonceQuery = z.strictObject({ wallet: addressSchema });

export const keyListQuery = z.strictObject({
  owner: ownerLabel.optional().meta({ description: "Operators only: whose keys (default: the caller's)." }),
});

export const keyIdParams = z.strictObject({ id: z.string() });

export const nodeHeartbeatBody = z.strictObject({
  node_id: ownerLabel.meta({ description: "The node's id, unique in the network (1-64 of A-Z a-z 0-9 . _ -)." }),
  version: z.string().regex(/^[0-9A-Za-z.+_-]{1,32}$/, "must be 1-32 characters of A-Z a-z 0-9 . + _ -"),
  url: z
    .string()
    .max(200)
    .url()
    // zod runs this check after a failed .url() too: a value no URL parser accepts must not reach new URL().
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "must be an http or https URL")
    .optional(),
  started_at: z.iso.datetime().optional().meta({ description: "When the node started (default: first heartbeat)." }),
});

const limitWindow = z
  .object({
    limit: z.number().int(),
    remaining: z.number().int().nullable().meta({ description: "null when limits are not enforced" }),
    reset: z.number().int().nullable().meta({ description: "Unix seconds at which the window ends" }),
  })
  .nullable();

const limits = z
  .object({ minute: limitWindow, day: limitWindow.meta({ description: "null: no daily cap" }) })
  .meta({ id: "AccessLimits" });

const keyFields = {
  key_id: z.string().regex(/^dk_[0-9a-f]{16}$/),
  key_prefix: z.string().meta({ description: "napd- and the first 7 characters of the key" }),
  name: z.string(),
  owner: z.string().meta({ description: "agent:<agentId>, wallet:<lowercase address> or operator:<label>" }),
  tier: z.enum(["authenticated", "node_operator"]),
  scopes: z.array(z.enum(SCOPES)),
  issued_by: z.string(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  revoked_at: z.iso.datetime().nullable(),
  state: z.enum(["active", "expired", "revoked"]),
};

export const keyView = z.object(keyFields).meta({ id: "AccessKey" });

export const issuedKey = z
  .object({ key: z.string().regex(/^napd-[0-9A-Za-z]{32}$/), ...keyFields })
  .meta({ id: "AccessIssuedKey" });

export const tokenInfo = z
  .object({
    ...keyFields,
    permissions: z.array(z.enum(SCOPES)),
    expires_in_seconds: z.number().int(),
    limits,
  })
  .meta({ id: "AccessTokenInfo" });

export const rateLimitStatus = z
  .object({
    tier: z.enum(["public", "authenticated", "node_operator"]),
    counted_by: z.enum(["ip", "key"]),
    key_id: z.string().nullable(),
    enforced: z.boolean(),
    limits,
    headers_window: z.enum(["minute", "day"]).nullable().meta({ description: "the window X-RateLimit-* describe" }),
  })
  .meta({ id: "AccessRateLimitStatus" });

export const nonceAnswer = z.object({ nonce: z.string(), message: z.string(), expires_in_seconds: z.number().int() });

export const keyList = z.object({ owner: z.string(), keys: z.array(keyView) });

export const nodeView = z
  .object({
    node_id: z.string(),
    role: z.enum(["api", "api+indexer", "external"]),
    version: z.string(),
    url: z.string().nullable(),
    status: z
      .enum(["up", "stale", "down"])
      .meta({ description: "up: heartbeat within 45 s; stale: within 5 min; down" }),
    started_at: z.iso.datetime(),
    last_heartbeat_at: z.iso.datetime(),
    external: z.boolean().meta({ description: "registered by a Node Operator key rather than run by this deployment" }),
  })
  .meta({ id: "AccessNode" });

export const nodeList = z.object({
  nodes: z.array(nodeView),
  summary: z.object({
    total: z.number().int(),
    up: z.number().int(),
    stale: z.number().int(),
    down: z.number().int(),
  }),
  heartbeat_interval_seconds: z.number().int(),
});
