import { expect } from "chai";
import type { z } from "zod";
import { dataOpenApiDocumentFor } from "../../../api/src/doors/data";
import { accessRouteDeclarations } from "../../../api/src/doors/data/access/routes";
import { DATA_ERROR_EXAMPLES, DATA_EXAMPLES } from "../../../api/src/doors/data/examples";
import { dataRoutes, type DataRouteDeps } from "../../../api/src/doors/data/routes";
import { exampleKey, type ExampleTable } from "../../../api/src/doors/examples";
import { openApiDocumentFor } from "../../../api/src/doors/live";
import { LIVE_ERROR_EXAMPLES, LIVE_EXAMPLES } from "../../../api/src/doors/live/examples";
import { apiRoutes } from "../../../api/src/doors/live/routes";
import { docsRoutes } from "../../../api/src/doors/live/routes/docs";
import type { RouteDefinition } from "../../../api/src/doors/route";
import { createLogger } from "../../../api/src/logger";
import type { UseCases } from "../../../api/src/usecases";
import { errorBody } from "../../../packages/wire/src/data";
import { errorBodySchema } from "../../../packages/wire/src/live";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const logger = createLogger("silent");
const liveRoutes = (): RouteDefinition[] => [
  ...apiRoutes({ useCases: {} as UseCases, logger }),
  ...docsRoutes(() => ({})),
];
const dataApiRoutes = (): RouteDefinition[] => [...dataRoutes({} as DataRouteDeps), ...accessRouteDeclarations()];

/** Every operation of a document: its method, path and operation object. */
function operations(document: Json): Array<{ name: string; operation: Json }> {
  return Object.entries(document.paths as Json).flatMap(([path, methods]) =>
    Object.entries(methods as Json).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${path}`,
      operation: operation as Json,
    })),
  );
}

/**
 * Values Swagger UI would show when a schema has no example: the placeholders a reader must never see. An EIP-712
 * field's Solidity type (`types.EIP712Domain[0].type` is "string") is the one place where "string" is the value.
 */
function placeholders(value: unknown, at = "$"): string[] {
  const solidityType = /\.types\.[A-Za-z0-9_]+\[\d+\]\.type$/.test(at);
  if ((value === "string" && !solidityType) || value === -9007199254740991 || value === 9007199254740991) return [at];
  if (Array.isArray(value)) return value.flatMap((item, i) => placeholders(item, `${at}[${i}]`));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => placeholders(item, `${at}.${key}`));
  }
  return [];
}

/** The schema's complaint about a value, or "" when it validates. */
function complaint(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value);
  return result.success ? "" : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
}

function holdsExamplesToRoutes(table: ExampleTable, routes: RouteDefinition[]): void {
  const declared = new Set(routes.map(exampleKey));
  expect(
    Object.keys(table).filter((key) => !declared.has(key)),
    "examples of no route",
  ).to.deep.equal([]);
  for (const route of routes) {
    const key = exampleKey(route);
    const examples = table[key];
    expect(examples, key).to.not.equal(undefined);
    if (route.body) {
      expect(examples.request, `${key}: request`).to.not.equal(undefined);
      expect(complaint(route.body, examples.request), `${key}: request`).to.equal("");
    } else {
      expect(examples.request, `${key}: a request example without a body`).to.equal(undefined);
    }
    for (const [status, response] of Object.entries(route.responses)) {
      if (!response.schema) continue;
      const example = examples.responses[Number(status)];
      expect(example, `${key}: ${status}`).to.not.equal(undefined);
      expect(complaint(response.schema, example), `${key}: ${status}`).to.equal("");
      expect(placeholders(example), `${key}: ${status}`).to.deep.equal([]);
    }
    const extra = Object.keys(examples.responses).filter((status) => !(status in route.responses));
    expect(extra, `${key}: examples of undeclared answers`).to.deep.equal([]);
  }
}

/** Each answer with a body in the document carries an example (or examples), and so does each request body. */
function documentedExamples(document: Json): string[] {
  const missing: string[] = [];
  for (const { name, operation } of operations(document)) {
    const body = operation.requestBody?.content?.["application/json"];
    if (body && body.example === undefined) missing.push(`${name} request`);
    for (const [status, response] of Object.entries(operation.responses as Json)) {
      for (const [type, media] of Object.entries((response.content ?? {}) as Json)) {
        const examples = media.examples ? Object.keys(media.examples) : [];
        if (media.example === undefined && examples.length === 0) missing.push(`${name} ${status} ${type}`);
      }
    }
  }
  return missing;
}

describe("OpenAPI examples: every operation's request and answers, taken from a running stack", function () {
  it("the live API document: a request example for every body, an example for every answer", function () {
    const document = openApiDocumentFor("http://127.0.0.1:3000", logger) as Json;
    expect(documentedExamples(document)).to.deep.equal([]);
    const register = document.paths["/api/v1/agent/auth/register"].post;
    const success = register.responses["200"].content["application/json"].example;
    expect(success).to.deep.equal(LIVE_EXAMPLES["POST /api/v1/agent/auth/register"].responses[200]);
    expect(success.api_key).to.match(/^nap-[A-Za-z0-9]{32}$/);
    expect(success.api_key_prefix).to.equal(success.api_key.slice(0, 12));
    expect(register.requestBody.content["application/json"].example.signature).to.match(/^0x[0-9a-f]{130}$/);
    expect(register.responses["409"].content["application/json"].example).to.deep.equal({
      error: LIVE_ERROR_EXAMPLES[409],
    });
  });

  it("the data API document: every answer and request body, and one example per error code of each status", function () {
    const document = dataOpenApiDocumentFor("http://127.0.0.1:3000") as Json;
    expect(documentedExamples(document)).to.deep.equal([]);
    for (const { name, operation } of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (Number(status) < 400) continue;
        const codes = (response.description as string).split(", ");
        const examples = response.content["application/json"].examples as Json;
        expect(Object.keys(examples), `${name} ${status}`).to.deep.equal(codes);
        for (const code of codes) expect(examples[code].value.error.code, `${name} ${status}`).to.equal(code);
      }
    }
  });

  it("the live API's examples validate against their routes' own schemas, with no placeholder values", function () {
    holdsExamplesToRoutes(LIVE_EXAMPLES, liveRoutes());
  });

  it("the data API's examples validate against their routes' own schemas, with no placeholder values", function () {
    holdsExamplesToRoutes(DATA_EXAMPLES, dataApiRoutes());
  });

  it("the error examples are error bodies of their door, one per status (live) and per code (data)", function () {
    for (const [status, message] of Object.entries(LIVE_ERROR_EXAMPLES)) {
      expect(complaint(errorBodySchema, { error: message }), status).to.equal("");
    }
    for (const [code, error] of Object.entries(DATA_ERROR_EXAMPLES)) {
      expect(error.code, code).to.equal(code);
      expect(complaint(errorBody, { error }), code).to.equal("");
    }
  });
});
