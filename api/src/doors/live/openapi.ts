import { z } from "zod";
import type { ErrorCode } from "../../errors";
import { STATUS_OF } from "./errors";
import { RATE_LIMITS } from "./rateLimit";
import type { RouteDefinition } from "./route";
import { exampleKey } from "../examples";
import { LIVE_ERROR_EXAMPLES, LIVE_EXAMPLES } from "./examples";
import { errorBodySchema } from "../../../../packages/wire/src/live";

/**
 * The OpenAPI 3.1 document, generated from the route declarations and their zod schemas (zod 4's toJSONSchema,
 * draft 2020-12, which OpenAPI 3.1 uses). Request schemas are rendered as inputs (defaults optional), response
 * schemas as outputs.
 */

type JsonSchema = Record<string, unknown>;

/** Named schemas (zod `.meta({ id })`) collected into components.schemas while a document is built. */
type Components = Record<string, JsonSchema>;

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === "$ref" && typeof value === "string"
        ? value.replace("#/$defs/", "#/components/schemas/")
        : rewriteRefs(value);
  }
  return out;
}

/**
 * A zod schema as JSON Schema; the named schemas inside it (zod's `$defs`) move to `components` and are referred
 * to there, since an OpenAPI document resolves `#/...` from its root.
 */
export function toSchema(schema: z.ZodType, io: "input" | "output", components: Components): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  // Ids are given only to schemas used on one side (request or response), so one name has one form.
  for (const [name, def] of Object.entries(defs)) components[name] = rewriteRefs(def) as JsonSchema;
  return rewriteRefs(json) as JsonSchema;
}

/** Koa `/a/:id/b` -> OpenAPI `/a/{id}/b`. */
/** An operation's id from its method and OpenAPI path: `get` + `/api/v1/vaults/{id}` gives `getApiV1VaultsId`. */
export function operationIdFor(method: string, path: string): string {
  return `${method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""))}`;
}

export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

export function parameters(
  schema: z.ZodType | undefined,
  location: "query" | "path" | "header",
  components: Components,
): JsonSchema[] {
  if (!schema) return [];
  const json = toSchema(schema, "input", components);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, { description, ...property }]) => ({
    name,
    in: location,
    required: location === "path" ? true : required.has(name),
    ...(typeof description === "string" ? { description } : {}),
    schema: property,
  }));
}

const RETRY_AFTER = {
  "Retry-After": { description: "seconds to wait before retrying", schema: { type: "integer", minimum: 1 } },
};

/** Headers of every answer of a rate-limited route (koa-ratelimit, doors/live/rateLimit.ts). */
const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": {
    description: "requests allowed per minute in this route's class",
    schema: { type: "integer" },
  },
  "X-RateLimit-Remaining": { description: "requests left in the current minute", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Unix seconds when the count starts again", schema: { type: "integer" } },
};

/** An error answer's body, with the example of its status (a message this service sends). */
const errorContent = (status: number) => ({
  "application/json": {
    schema: { $ref: "#/components/schemas/Error" },
    ...(LIVE_ERROR_EXAMPLES[status] ? { example: { error: LIVE_ERROR_EXAMPLES[status] } } : {}),
  },
});

const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: "bad request: the message names the field and the rule (also a transaction the contract would reject, or a wallet without gas)",
  401: "missing or invalid API key",
  404: "unknown resource",
  409: "conflict: the resource exists, the Idempotency-Key was used with a different request, or the operation's state does not allow it yet (Retry-After when that clears at a known time)",
  413: "the body is larger than the body limit (BODY_LIMIT_BYTES, 64 KiB by default): refused before it is read whole",
  429: "rate limit exceeded, or a cooldown (Retry-After says when to come back)",
  500: "internal server error",
  502: "the chain's node refused the signed transaction",
  503: "unavailable: chain unreachable (Retry-After), contract or server wallets not configured, no API keys configured",
};

/** Every status a route can answer: its declared responses, then those of validation, auth, limits and its errors. */
function statusesOf(route: RouteDefinition): Map<number, string> {
  const statuses = new Map<number, string>();
  const add = (status: number, description = STATUS_DESCRIPTIONS[status]) => {
    if (!statuses.has(status)) statuses.set(status, description);
  };
  // Unknown query parameters are refused on every route.
  add(400);
  if (route.body) add(413);
  if (route.auth) {
    add(401);
    add(403, forbiddenDescription(route.auth));
    add(429, STATUS_DESCRIPTIONS[429]);
    add(503);
  }
  if (route.rateLimit) {
    const limit = RATE_LIMITS[route.rateLimit];
    add(429, `rate limit exceeded (${limit.max} per minute per ${limit.by === "ip" ? "client IP" : "API key"})`);
    add(503, "unavailable: the rate limiter's store (Redis) does not answer");
  }
  for (const code of route.errors ?? []) add(STATUS_OF[code as ErrorCode]);
  add(500);
  return statuses;
}

/** What a 403 of a keyed route means, from what it needs of the key. */
function forbiddenDescription(auth: NonNullable<RouteDefinition["auth"]>): string {
  if (auth.kind === "operator") return "not an operator key";
  const base = `an operator key, or tier below ${auth.minTier}`;
  if (auth.access === "read") return base;
  if (auth.access === "full_key") return `${base}, or a scoped key (this endpoint needs the agent's full key)`;
  return `${base}, or a scoped key whose scope lacks ${auth.access} or whose usdc_per_day this request would exceed`;
}

function operation(route: RouteDefinition, components: Components): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  const limited = Boolean(route.rateLimit);
  const examples = LIVE_EXAMPLES[exampleKey(route)];
  for (const [status, response] of Object.entries(route.responses)) {
    const example = examples?.responses[Number(status)];
    responses[status] = {
      description: response.description,
      // A declared answer without a schema has no body (it is not an error body).
      ...(response.schema
        ? {
            content: {
              [response.contentType ?? "application/json"]: {
                schema: toSchema(response.schema, "output", components),
                ...(example === undefined ? {} : { example }),
              },
            },
          }
        : {}),
      // A declared 429 or 503 (the faucet's cooldown and spent budget) says when to come back, as the others do.
      ...(limited || status === "429" || status === "503"
        ? {
            headers: {
              ...(limited ? RATE_LIMIT_HEADERS : {}),
              ...(status === "429" || status === "503" ? RETRY_AFTER : {}),
            },
          }
        : {}),
    };
  }
  for (const [status, description] of statusesOf(route)) {
    // 429 and 503 say when to come back; so does a 409 of a state that clears at a known time (a claim too early).
    const retry = status === 429 || status === 503 || status === 409 ? RETRY_AFTER : {};
    responses[String(status)] ??= {
      description,
      content: errorContent(status),
      ...(limited || status === 429 || status === 503 || status === 409
        ? { headers: { ...(limited ? RATE_LIMIT_HEADERS : {}), ...retry } }
        : {}),
    };
  }
  return {
    operationId: operationIdFor(route.method, openApiPath(route.path)),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    parameters: [
      ...parameters(route.params, "path", components),
      ...parameters(route.query, "query", components),
      ...parameters(route.headers, "header", components),
    ],
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: toSchema(route.body, "input", components),
                ...(examples?.request === undefined ? {} : { example: examples.request }),
              },
            },
          },
        }
      : {}),
    // Public operations say so (an empty requirement); keyed ones name the scheme.
    security: route.auth ? [{ ApiKey: [] }] : [],
    // What a scoped key needs to call it: "read", "full_key" or the operation its scope must name.
    ...(route.auth?.kind === "agent" ? { "x-key-access": route.auth.access } : {}),
    ...(route.rateLimit
      ? {
          "x-rate-limit": { max: RATE_LIMITS[route.rateLimit].max, per: "minute", by: RATE_LIMITS[route.rateLimit].by },
        }
      : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
  };
}

export function buildOpenApiDocument(
  routes: RouteDefinition[],
  info: { version: string; serverUrl: string },
): JsonSchema {
  const components: Components = {};
  toSchema(errorBodySchema, "output", components); // registers components.schemas.Error (its meta id)
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route, components);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "NAP agent API",
      version: info.version,
      license: { name: "MIT", identifier: "MIT" },
      description:
        'Live agent API: registration by wallet signature, API keys, agents, vaults, strategies, governance, the faucet and wallet lookups. Every error body is { "error": "..." }. Reads never return chain state older than a block this service already answered with.',
    },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" } },
    },
  };
}
