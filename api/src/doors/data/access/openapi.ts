import { z } from "zod";
import { MAX_KEY_LIFETIME_DAYS } from "./keys";
import { TIER_LIMITS } from "./limits";
import { issueKeyBody, nodeHeartbeatBody } from "./routes";
import { ISSUANCE_LIMITS } from "./issuanceLimits";
import { SCOPES, SCOPE_DESCRIPTIONS } from "./scopes";

/**
 * OpenAPI 3.1 fragments of the access layer, for the lead's data API document: `paths`, and `components` (schemas,
 * headers, responses, security schemes) whose names all start with `Access` or are the data API's shared `DataError`,
 * so that they merge without clashes. Request bodies come from the routes' own zod schemas.
 */

type Json = Record<string, unknown>;

function requestSchema(schema: z.ZodType): Json {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as Json;
  delete json.$schema;
  return json;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json) => ({ "application/json": { schema } });

const LIMIT_HEADERS = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/AccessRateLimitLimit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/AccessRateLimitRemaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/AccessRateLimitReset" },
};

function ok(description: string, schema: Json, status = "200"): Json {
  return { [status]: { description, headers: LIMIT_HEADERS, content: json(schema) } };
}

const ERRORS = {
  "401": { $ref: "#/components/responses/AccessUnauthorized" },
  "429": { $ref: "#/components/responses/AccessRateLimited" },
  "503": { $ref: "#/components/responses/AccessUnavailable" },
};
const BAD_INPUT = { "400": { $ref: "#/components/responses/AccessBadInput" } };
/** Routes that read a body: past the body limit, 413 before it is read whole. */
const TOO_LARGE = { "413": { $ref: "#/components/responses/AccessPayloadTooLarge" } };

const windowSchema = {
  type: ["object", "null"],
  required: ["limit", "remaining", "reset"],
  properties: {
    limit: { type: "integer" },
    remaining: { type: ["integer", "null"], description: "null when limits are not enforced" },
    reset: { type: ["integer", "null"], description: "Unix seconds at which the window ends" },
  },
};

const keySchema = {
  type: "object",
  required: [
    "key_id",
    "key_prefix",
    "name",
    "owner",
    "tier",
    "scopes",
    "issued_by",
    "created_at",
    "expires_at",
    "revoked_at",
    "state",
  ],
  properties: {
    key_id: { type: "string", pattern: "^dk_[0-9a-f]{16}$" },
    key_prefix: { type: "string", description: "napd- and the first 7 characters of the key" },
    name: { type: "string" },
    owner: { type: "string", description: "agent:<agentId>, wallet:<lowercase address> or operator:<label>" },
    tier: { enum: ["authenticated", "node_operator"] },
    scopes: { type: "array", items: { enum: [...SCOPES] } },
    issued_by: { type: "string" },
    created_at: { type: "string", format: "date-time" },
    expires_at: { type: "string", format: "date-time" },
    revoked_at: { type: ["string", "null"], format: "date-time" },
    state: { enum: ["active", "expired", "revoked"] },
  },
};

const nodeSchema = {
  type: "object",
  required: ["node_id", "role", "version", "url", "status", "started_at", "last_heartbeat_at", "external"],
  properties: {
    node_id: { type: "string" },
    role: { enum: ["api", "api+indexer", "external"] },
    version: { type: "string" },
    url: { type: ["string", "null"] },
    status: { enum: ["up", "stale", "down"], description: "up: heartbeat within 45 s; stale: within 5 min; down" },
    started_at: { type: "string", format: "date-time" },
    last_heartbeat_at: { type: "string", format: "date-time" },
    external: { type: "boolean", description: "registered by a Node Operator key rather than run by this deployment" },
  },
};

const tierTable = Object.entries(TIER_LIMITS)
  .map(([tier, limit]) => `${tier}: ${limit.minute}/min, ${limit.day === null ? "no daily cap" : `${limit.day}/day`}`)
  .join("; ");

export function accessOpenApi(): { paths: Json; components: Json } {
  const bearer = [{ AccessBearer: [] }];
  const optionalBearer = [{}, { AccessBearer: [] }];
  return {
    paths: {
      "/v1/rate-limit-status": {
        get: {
          tags: ["access"],
          summary: "The caller's tier and its minute and day windows",
          security: optionalBearer,
          responses: { ...ok("status", ref("AccessRateLimitStatus")), ...ERRORS },
        },
      },
      "/v1/auth/token-info": {
        get: {
          tags: ["access"],
          summary: "The key of this request: id, tier, scopes (permissions), expiry, limits",
          security: bearer,
          responses: { ...ok("the key", ref("AccessTokenInfo")), ...ERRORS },
        },
      },
      "/v1/auth/nonce": {
        get: {
          tags: ["access"],
          summary: "A single-use nonce and the message a wallet signs to be issued a key (valid 600 s)",
          security: [{}],
          parameters: [{ name: "wallet", in: "query", required: true, schema: { type: "string" } }],
          responses: {
            ...ok("nonce and message", {
              type: "object",
              required: ["nonce", "message", "expires_in_seconds"],
              properties: {
                nonce: { type: "string" },
                message: { type: "string" },
                expires_in_seconds: { type: "integer" },
              },
            }),
            ...BAD_INPUT,
            ...ERRORS,
          },
        },
      },
      "/v1/auth/keys": {
        post: {
          tags: ["access"],
          summary: "Issue a data API key (shown once)",
          description:
            "Authenticated by X-API-Key (a live API agent key: an Authenticated key owned by the agent; an operator " +
            "key of AGENT_API_KEYS: a Node Operator key for the `owner` label), or by `wallet`, `nonce` and " +
            `\`signature\` over the message of GET /v1/auth/nonce. Lifetime at most ${MAX_KEY_LIFETIME_DAYS} days. ` +
            `Wallet and agent issuance is limited to ${ISSUANCE_LIMITS.ip.hour} keys an hour and ` +
            `${ISSUANCE_LIMITS.ip.day} a day per client IP, and ${ISSUANCE_LIMITS.owner.hour} an hour and ` +
            `${ISSUANCE_LIMITS.owner.day} a day per owner (429 RATE_LIMITED with Retry-After). A refused request ` +
            "leaves its nonce unused.",
          security: [{ AccessLiveKey: [] }, {}],
          requestBody: { required: true, content: json(requestSchema(issueKeyBody)) },
          responses: {
            ...ok("the key in clear, once, and its record", ref("AccessIssuedKey"), "201"),
            ...BAD_INPUT,
            "409": { description: "KEY_LIMIT_REACHED", content: json(ref("DataError")) },
            ...TOO_LARGE,
            ...ERRORS,
          },
        },
        get: {
          tags: ["access"],
          summary: "The caller's keys (no secrets); a Bearer key needs keys:manage",
          security: [{ AccessBearer: [] }, { AccessLiveKey: [] }],
          parameters: [{ name: "owner", in: "query", required: false, schema: { type: "string" } }],
          responses: {
            ...ok("keys", {
              type: "object",
              required: ["owner", "keys"],
              properties: { owner: { type: "string" }, keys: { type: "array", items: ref("AccessKey") } },
            }),
            ...BAD_INPUT,
            ...ERRORS,
          },
        },
      },
      "/v1/auth/keys/{id}": {
        delete: {
          tags: ["access"],
          summary: "Revoke a key of the caller's owner (operators: any key); a Bearer key needs keys:manage",
          security: [{ AccessBearer: [] }, { AccessLiveKey: [] }],
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            ...ok("the revoked key", ref("AccessKey")),
            ...BAD_INPUT,
            "404": { description: "KEY_NOT_FOUND", content: json(ref("DataError")) },
            ...ERRORS,
          },
        },
      },
      "/v1/nodes": {
        get: {
          tags: ["access"],
          summary: "Nodes of the network (running NAP service instances) and their heartbeat status",
          security: optionalBearer,
          responses: {
            ...ok("nodes", {
              type: "object",
              required: ["nodes", "summary", "heartbeat_interval_seconds"],
              properties: {
                nodes: { type: "array", items: ref("AccessNode") },
                summary: {
                  type: "object",
                  required: ["total", "up", "stale", "down"],
                  properties: {
                    total: { type: "integer" },
                    up: { type: "integer" },
                    stale: { type: "integer" },
                    down: { type: "integer" },
                  },
                },
                heartbeat_interval_seconds: { type: "integer" },
              },
            }),
            ...ERRORS,
          },
        },
      },
      "/v1/nodes/heartbeat": {
        post: {
          tags: ["access"],
          summary: "Register or refresh an external node (Node Operator key with nodes:write)",
          security: bearer,
          requestBody: { required: true, content: json(requestSchema(nodeHeartbeatBody)) },
          responses: {
            ...ok("the node", ref("AccessNode")),
            ...BAD_INPUT,
            "409": { description: "NODE_ID_TAKEN", content: json(ref("DataError")) },
            ...TOO_LARGE,
            ...ERRORS,
          },
        },
      },
    },
    components: {
      securitySchemes: {
        AccessBearer: {
          type: "http",
          scheme: "bearer",
          description:
            "`Authorization: Bearer <napd-...>`. A bare Authorization value and X-API-KEY are refused with 401. " +
            `Scopes: ${SCOPES.map((scope) => `${scope} (${SCOPE_DESCRIPTIONS[scope]})`).join("; ")}.`,
        },
        AccessLiveKey: {
          type: "apiKey",
          in: "header",
          name: "X-API-Key",
          description: "A live API agent key or operator key; only on /v1/auth/keys.",
        },
      },
      headers: {
        AccessRateLimitLimit: {
          description: `Requests allowed in the binding window (${tierTable})`,
          schema: { type: "integer" },
        },
        AccessRateLimitRemaining: {
          description: "Requests left in the binding window: the window with the fewest left (ties: the longer one)",
          schema: { type: "integer" },
        },
        AccessRateLimitReset: {
          description: "Unix seconds at which the binding window ends",
          schema: { type: "integer" },
        },
        AccessRetryAfter: { description: "Seconds until the refusing window ends", schema: { type: "integer" } },
      },
      responses: {
        AccessUnauthorized: {
          description:
            "UNAUTHORIZED (missing, malformed, unknown, expired or revoked key) or INSUFFICIENT_SCOPE (the key lacks the route's scope)",
          content: json(ref("DataError")),
        },
        AccessRateLimited: {
          description: "RATE_LIMITED",
          headers: { ...LIMIT_HEADERS, "Retry-After": { $ref: "#/components/headers/AccessRetryAfter" } },
          content: json(ref("DataError")),
        },
        AccessBadInput: { description: "INVALID_<FIELD>", content: json(ref("DataError")) },
        AccessPayloadTooLarge: {
          description: "PAYLOAD_TOO_LARGE (details.max: the body limit in bytes, BODY_LIMIT_BYTES)",
          content: json(ref("DataError")),
        },
        AccessUnavailable: { description: "UNAVAILABLE (the rate limiter's store)", content: json(ref("DataError")) },
      },
      schemas: {
        DataError: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["code", "message", "details"],
              properties: { code: { type: "string" }, message: { type: "string" }, details: { type: "object" } },
            },
          },
        },
        AccessKey: keySchema,
        AccessIssuedKey: {
          ...keySchema,
          required: ["key", ...keySchema.required],
          properties: { key: { type: "string", pattern: "^napd-[0-9A-Za-z]{32}$" }, ...keySchema.properties },
        },
        AccessTokenInfo: {
          ...keySchema,
          required: [...keySchema.required, "permissions", "expires_in_seconds", "limits"],
          properties: {
            ...keySchema.properties,
            permissions: { type: "array", items: { enum: [...SCOPES] } },
            expires_in_seconds: { type: "integer" },
            limits: ref("AccessLimits"),
          },
        },
        AccessLimits: {
          type: "object",
          required: ["minute", "day"],
          properties: { minute: windowSchema, day: { ...windowSchema, description: "null: no daily cap" } },
        },
        AccessRateLimitStatus: {
          type: "object",
          required: ["tier", "counted_by", "key_id", "enforced", "limits", "headers_window"],
          properties: {
            tier: { enum: ["public", "authenticated", "node_operator"] },
            counted_by: { enum: ["ip", "key"] },
            key_id: { type: ["string", "null"] },
            enforced: { type: "boolean" },
            limits: ref("AccessLimits"),
            headers_window: { enum: ["minute", "day", null], description: "the window X-RateLimit-* describe" },
          },
        },
        AccessNode: nodeSchema,
      },
    },
  };
}
