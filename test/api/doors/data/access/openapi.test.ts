import { expect } from "chai";
import { createDataAccess } from "../../../../../api/src/doors/data/access";
import { dataOpenApiDocumentFor } from "../../../../../api/src/doors/data";
import { createLogger } from "../../../../../api/src/logger";
import { createMemoryStore } from "../../../../../api/src/store/memory";

/**
 * The access routes in the data API's OpenAPI document, which is generated from the same declarations the access
 * router serves: one operation per route, every reference resolves, limits and refusals are described.
 */

type Json = Record<string, unknown>;

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

describe("data API access layer: OpenAPI", function () {
  const document = dataOpenApiDocumentFor("http://api.nap.test") as {
    paths: Record<string, Record<string, { tags: string[]; responses: Record<string, Json> }>>;
    components: Record<string, Record<string, unknown>>;
  };
  const accessOperations = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => operation.tags.includes("access"))
      .map(([method, operation]) => ({ key: `${method} ${path}`, operation })),
  );

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
    expect(accessOperations.map(({ key }) => key).sort()).to.deep.equal(served);
    expect(served).to.have.length(8);
  });

  it("resolves every $ref inside its own components", function () {
    const found = refs(document);
    expect(found.length).to.be.greaterThan(10);
    for (const ref of found) {
      const [, , kind, name] = ref.split("/");
      expect(document.components[kind], ref).to.have.property(name);
    }
  });

  it("describes every operation's 429 with Retry-After and every success with the X-RateLimit headers", function () {
    for (const { key, operation } of accessOperations) {
      expect(operation.responses["429"], key).to.deep.include({ description: "RATE_LIMITED" });
      expect(Object.keys(operation.responses["429"].headers as Json), key).to.deep.equal(["Retry-After"]);
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith("2"))![1];
      expect(Object.keys(success.headers as Json), key).to.deep.equal([
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
      ]);
    }
  });

  it("lists each refusal's codes under its status, from the routes' declarations", function () {
    const issue = document.paths["/v1/auth/keys"].post.responses;
    expect(issue["409"]).to.deep.include({ description: "KEY_LIMIT_REACHED" });
    expect(issue["401"]).to.deep.include({ description: "UNAUTHORIZED, INSUFFICIENT_SCOPE" });
    expect(issue["413"]).to.deep.include({ description: "PAYLOAD_TOO_LARGE" });
    expect(document.paths["/v1/nodes/heartbeat"].post.responses["409"]).to.deep.include({
      description: "NODE_ID_TAKEN",
    });
    expect(document.paths["/v1/auth/keys/{id}"].delete.responses["404"]).to.deep.include({
      description: "KEY_NOT_FOUND",
    });
  });
});
