import { z } from "zod";
import { RATE_LIMITS } from "./rateLimit";
import type { RouteDefinition } from "./route";
import { errorBodySchema } from "./schemas";

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

function toSchema(schema: z.ZodType, io: "input" | "output", components: Components): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  // Ids are given only to schemas used on one side (request or response), so one name has one form.
  for (const [name, def] of Object.entries(defs)) components[name] = rewriteRefs(def) as JsonSchema;
  return rewriteRefs(json) as JsonSchema;
}

/** Koa `/a/:id/b` -> OpenAPI `/a/{id}/b`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function parameters(schema: z.ZodType | undefined, location: "query" | "path", components: Components): JsonSchema[] {
  if (!schema) return [];
  const json = toSchema(schema, "input", components);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === "path" ? true : required.has(name),
    schema: property,
    ...(typeof property.description === "string" ? { description: property.description } : {}),
  }));
}

const errorContent = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };

function operation(route: RouteDefinition, components: Components): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      content: response.schema
        ? { "application/json": { schema: toSchema(response.schema, "output", components) } }
        : errorContent,
    };
  }
  const addError = (status: number, description: string) => {
    responses[String(status)] ??= { description, content: errorContent };
  };
  addError(400, "bad request: the message names the field and the rule");
  if (route.auth) {
    addError(401, "missing or invalid API key");
    addError(403, route.auth.kind === "operator" ? "not an operator key" : `tier below ${route.auth.minTier}`);
    addError(503, "no API keys configured on the server (AGENT_API_KEYS)");
  }
  if (route.rateLimit) {
    const limit = RATE_LIMITS[route.rateLimit];
    addError(429, `rate limit exceeded (${limit.max} per minute per ${limit.by === "ip" ? "client IP" : "API key"})`);
  }
  addError(500, "internal server error");
  return {
    operationId: `${route.method}${openApiPath(route.path).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    parameters: [...parameters(route.params, "path", components), ...parameters(route.query, "query", components)],
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: toSchema(route.body, "input", components) } },
          },
        }
      : {}),
    ...(route.auth ? { security: [{ ApiKey: [] }] } : {}),
    ...(route.rateLimit
      ? {
          "x-rate-limit": { max: RATE_LIMITS[route.rateLimit].max, per: "minute", by: RATE_LIMITS[route.rateLimit].by },
        }
      : {}),
    responses,
    ...(route.openapi ?? {}),
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
      description:
        'Live agent API: registration by wallet signature, API keys, agent directory, health and vaults. Every error body is { "error": "..." }.',
    },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" } },
    },
  };
}
