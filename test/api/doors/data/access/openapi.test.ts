import { expect } from "chai";
import { accessOpenApi } from "../../../../../api/src/doors/data/access";
import { createDataAccess } from "../../../../../api/src/doors/data/access";
import { createLogger } from "../../../../../api/src/logger";
import { createMemoryStore } from "../../../../../api/src/store/memory";

/** The OpenAPI 3.1 fragments of the access layer: one entry per route, and every reference resolves. */

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => refs(item, out));
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") out.push(value);
      else refs(value, out);
    }
  }
  return out;
}

describe("data API access layer: OpenAPI fragments", function () {
  const fragment = accessOpenApi();

  it("documents exactly the routes the access router serves", function () {
    const access = createDataAccess({
      stores: createMemoryStore(),
      config: {
        operatorApiKeys: [],
        serviceDomain: "api.nap.test",
        publicUrl: "http://api.nap.test",
        rateLimitsDisabled: true,
        bodyLimitBytes: 65_536,
      },
      chainId: 31337,
      logger: createLogger("silent"),
      agents: { byApiKey: async () => null },
      verifySignature: async () => false,
    });
    const served = access.routes.stack
      .filter((layer) => layer.methods.length > 0)
      .flatMap((layer) =>
        layer.methods
          .filter((method) => method !== "HEAD")
          .map((method) => `${method.toLowerCase()} ${String(layer.path).replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`),
      )
      .sort();
    const documented = Object.entries(fragment.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`))
      .sort();
    expect(documented).to.deep.equal(served);
  });

  it("resolves every $ref inside its own components", function () {
    const components = fragment.components as Record<string, Record<string, unknown>>;
    const found = refs(fragment);
    expect(found.length).to.be.greaterThan(10);
    for (const ref of found) {
      const [, , kind, name] = ref.split("/");
      expect(components[kind], ref).to.have.property(name);
    }
  });

  it("describes every operation's 429 with Retry-After and every success with the X-RateLimit headers", function () {
    const operations = Object.values(fragment.paths as Record<string, Record<string, { responses: Json }>>).flatMap(
      (path) => Object.values(path),
    );
    for (const operation of operations) {
      expect(operation.responses["429"]).to.deep.equal({ $ref: "#/components/responses/AccessRateLimited" });
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith("2"))![1] as Json;
      expect(Object.keys(success.headers as Json)).to.deep.equal([
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
      ]);
    }
    const limited = (fragment.components as Record<string, Record<string, Json>>).responses.AccessRateLimited;
    expect(Object.keys(limited.headers as Json)).to.include("Retry-After");
  });
});

type Json = Record<string, unknown>;
