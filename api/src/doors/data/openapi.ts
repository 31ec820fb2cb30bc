import { errorBody } from "../../../../packages/wire/src/data";
import { SCOPES, SCOPE_DESCRIPTIONS } from "../../usecases/dataKeys/scopes";
import { openApiPath, operationIdFor, parameters, toSchema } from "../live/openapi";
import type { RouteDefinition } from "../route";
import { TIER_LIMITS } from "./access/limits";
import { dataStatusOf } from "./errors";
import { exampleKey } from "../examples";
import { DATA_ERROR_EXAMPLES, DATA_EXAMPLES } from "./examples";

/**
 * The OpenAPI 3.1 document of the data API, generated from the declarations of its routes (the read routes and the
 * access layer's) and their zod schemas. Errors are `DataError` bodies; each status lists the codes it stands for.
 */

type JsonSchema = Record<string, unknown>;

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Every /v1 answer carries the caller's binding window while limits are enforced (access/middleware.ts). */
const LIMIT_HEADERS = {
  "X-RateLimit-Limit": header("AccessRateLimitLimit"),
  "X-RateLimit-Remaining": header("AccessRateLimitRemaining"),
  "X-RateLimit-Reset": header("AccessRateLimitReset"),
};

const OPTIONAL_BEARER = [{}, { AccessBearer: [] }];

const tierTable = Object.entries(TIER_LIMITS)
  .map(([tier, limit]) => `${tier}: ${limit.minute}/min, ${limit.day === null ? "no daily cap" : `${limit.day}/day`}`)
  .join("; ");

function operation(route: RouteDefinition, components: Record<string, JsonSchema>, errorRef: JsonSchema): JsonSchema {
  const path = openApiPath(route.path);
  const query = parameters(route.query, "query", components);
  const responses: Record<string, JsonSchema> = {};
  const examples = DATA_EXAMPLES[exampleKey(route)];
  for (const [status, response] of Object.entries(route.responses)) {
    const example = examples?.responses[Number(status)];
    responses[status] = {
      description: response.description,
      headers: LIMIT_HEADERS,
      ...(response.schema
        ? {
            content: {
              "application/json": {
                schema: toSchema(response.schema, "output", components),
                ...(example === undefined ? {} : { example }),
              },
            },
          }
        : {}),
    };
  }
  // A route that reads a body refuses one past the body limit (413) before it is read whole.
  const bodyErrors = route.body ? ["PAYLOAD_TOO_LARGE"] : [];
  for (const code of [...(route.errors ?? []), ...bodyErrors, "RATE_LIMITED", "INTERNAL_ERROR"]) {
    const status = dataStatusOf(code);
    const entry = (responses[String(status)] ??= {
      description: "",
      ...(status === 429 || status === 503 ? { headers: { "Retry-After": header("AccessRetryAfter") } } : {}),
      content: { "application/json": { schema: errorRef, examples: {} } },
    }) as { description: string; content: { "application/json": { examples: Record<string, unknown> } } };
    if (!entry.description.split(", ").includes(code)) {
      entry.description = entry.description ? `${entry.description}, ${code}` : code;
    }
    // One example per code the status stands for: the body this service sends for it.
    const example = DATA_ERROR_EXAMPLES[code];
    if (example) entry.content["application/json"].examples[code] = { summary: code, value: { error: example } };
  }
  return {
    operationId: operationIdFor(route.method, path),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: route.security ?? OPTIONAL_BEARER,
    parameters: [
      ...parameters(route.params, "path", components),
      ...query,
      ...parameters(route.headers, "header", components),
      // minBlock may come as a header too (read-your-writes, readmodel/freshness.ts).
      ...query.filter((q) => q.name === "minBlock").map((q) => ({ ...q, name: "X-Min-Block", in: "header" })),
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
    responses,
  };
}

export function buildDataOpenApi(routes: readonly RouteDefinition[], options: { version: string; serverUrl: string }) {
  const components: Record<string, JsonSchema> = {};
  const errorRef = toSchema(errorBody, "output", components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = operation(route, components, errorRef);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "NAP data API",
      version: options.version,
      license: { name: "MIT", identifier: "MIT" },
      description:
        "Read access to vaults, strategies, positions, transactions and protocol statistics, from the indexer's " +
        "read model, and signed-message deposits and redemptions relayed to the NapRouter for wallets that keep " +
        "their own keys. Errors: { error: { code, message, details } }. See docs/data-api.md.",
    },
    servers: [{ url: options.serverUrl }],
    paths,
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
        AccessRetryAfter: { description: "Seconds to wait before retrying", schema: { type: "integer" } },
      },
      schemas: components,
    },
  };
}
