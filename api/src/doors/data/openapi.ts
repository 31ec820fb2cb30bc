import { operationIdFor, toSchema } from "../live/openapi";
import { accessOpenApi } from "./access";
import { DATA_ERRORS } from "./errors";
import type { DataRoute } from "./routes";
import { errorBody } from "../../../../packages/wire/src/data";

/** The OpenAPI 3.1 document of the data API, generated from its route list and zod schemas. */

type JsonSchema = Record<string, unknown>;

export function buildDataOpenApi(routes: readonly DataRoute[], options: { version: string; serverUrl: string }) {
  const components: Record<string, JsonSchema> = {};
  const errorRef = toSchema(errorBody, "output", components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = `/v1${route.path.replace(/:(\w+)/g, "{$1}")}`;
    const parameters = [
      ...[...route.path.matchAll(/:(\w+)/g)].map((m) => ({
        name: m[1],
        in: "path",
        required: true,
        schema: { type: "string" },
      })),
      ...(route.query ?? []).map((q) => ({
        name: q.name,
        in: "query",
        required: false,
        description: q.description,
        schema: q.schema,
      })),
      // minBlock may come as a header too (read-your-writes, readmodel/freshness.ts).
      ...(route.query ?? [])
        .filter((q) => q.name === "minBlock")
        .map((q) => ({
          name: "X-Min-Block",
          in: "header",
          required: false,
          description: q.description,
          schema: q.schema,
        })),
    ];
    const responses: Record<string, unknown> = {
      200: {
        description: "OK",
        content: { "application/json": { schema: toSchema(route.response, "output", components) } },
      },
    };
    // A route that reads a body refuses one past the body limit (413) before it is read whole.
    const bodyErrors = route.body ? ["PAYLOAD_TOO_LARGE"] : [];
    for (const code of [...route.errors, ...bodyErrors, "RATE_LIMITED", "INTERNAL_ERROR"]) {
      const status = String(DATA_ERRORS[code as keyof typeof DATA_ERRORS]);
      const entry = (responses[status] ??= {
        description: "",
        content: { "application/json": { schema: errorRef } },
      }) as { description: string };
      entry.description = entry.description ? `${entry.description}, ${code}` : code;
    }
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: operationIdFor(route.method, path),
      summary: route.summary,
      tags: ["data"],
      // Every data route answers without a key (the anonymous tier) and with a data key (its tier's limits).
      security: [{}, { AccessBearer: [] }],
      parameters,
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: toSchema(route.body, "output", components) } },
            },
          }
        : {}),
      responses,
    };
  }
  // The access layer's routes (keys, limits, nodes) and its schemas and security scheme, in the same document.
  const access = accessOpenApi() as {
    paths: Record<string, Record<string, unknown>>;
    components: { schemas?: Record<string, JsonSchema> } & Record<string, unknown>;
  };
  Object.assign(paths, access.paths);
  for (const [path, operations] of Object.entries(access.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      (operation as { operationId?: string }).operationId ??= operationIdFor(method, path);
    }
  }
  // Both define DataError, the one error body: the data door's own (already in `components`) is kept.
  const { schemas: accessSchemas = {}, ...accessParts } = access.components;
  for (const [name, schema] of Object.entries(accessSchemas)) components[name] ??= schema;
  return {
    openapi: "3.1.0",
    info: {
      title: "NAP data API",
      version: options.version,
      license: { name: "MIT", identifier: "MIT" },
      description:
        "Read access to vaults, strategies, positions, transactions and protocol statistics, from the indexer's " +
        "read model. Errors: { error: { code, message, details } }. See docs/data-api.md.",
    },
    servers: [{ url: options.serverUrl }],
    paths,
    components: { ...accessParts, schemas: components },
  };
}
