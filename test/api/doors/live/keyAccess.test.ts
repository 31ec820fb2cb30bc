import { expect } from "chai";
import { z } from "zod";
import { KEY_OPERATIONS } from "../../../../api/src/domain/keyScopes";
import { defineRoute, routeChain, type MountContext } from "../../../../api/src/doors/live/route";
import { apiRoutes } from "../../../../api/src/doors/live/routes";
import { createLogger } from "../../../../api/src/logger";
import type { UseCases } from "../../../../api/src/usecases";

const routes = apiRoutes({ useCases: {} as UseCases, logger: createLogger("silent") });
const mount = { rateLimiters: { middleware: () => null }, bodyLimitBytes: 1024 } as unknown as MountContext;

/** Every keyed live route says what it needs of the key, in its declaration: what a scoped key reaches follows. */
describe("Live API: every keyed route declares its key access", function () {
  it("every agent route names read, full_key or an operation; only GETs are reads", function () {
    const agentRoutes = routes.filter((route) => route.auth?.kind === "agent");
    expect(agentRoutes.length).to.be.greaterThan(10);
    for (const route of agentRoutes) {
      const access = route.auth?.kind === "agent" ? route.auth.access : undefined;
      const name = `${route.method.toUpperCase()} ${route.path}`;
      expect(["read", "full_key", ...KEY_OPERATIONS], name).to.include(access);
      if (access === "read") expect(route.method, name).to.equal("get");
    }
  });

  it("each operation names one route, and key issuance and revocation need the full key", function () {
    const byAccess = (access: string) =>
      routes
        .filter((route) => route.auth?.kind === "agent" && route.auth.access === access)
        .map((route) => `${route.method.toUpperCase()} ${route.path}`);
    expect(Object.fromEntries(KEY_OPERATIONS.map((operation) => [operation, byAccess(operation)]))).to.deep.equal({
      "vault.deposit": ["POST /api/v1/agent/vault/deposit"],
      "vault.withdraw": ["POST /api/v1/agent/vault/withdraw"],
      "vault.redeem_request": ["POST /api/v1/agent/vault/redeem-request"],
      "vault.claim": ["POST /api/v1/agent/vault/claim"],
      "vault.redeem_cancel": ["POST /api/v1/agent/vault/redeem-cancel"],
      "strategy.submit": ["POST /api/v1/agent/strategy/submit"],
      "governance.vote": ["POST /api/v1/agent/governance/vote"],
      faucet: ["POST /api/v1/agent/faucet"],
      exit: ["POST /api/v1/agent/exit"],
    });
    expect(byAccess("full_key")).to.deep.equal(["POST /api/v1/agent/keys", "DELETE /api/v1/agent/keys/:prefix"]);
  });

  it("a route that does not declare its access, or a write declared a read, is refused when mounted", function () {
    const route = (method: "get" | "post", auth: unknown) =>
      defineRoute({
        method,
        path: "/api/v1/agent/undecided",
        tag: "test",
        summary: "a route added without deciding",
        auth: auth as never,
        rateLimit: "agent",
        ...(method === "post" ? { body: z.strictObject({}) } : {}),
        responses: { 200: { description: "ok" } },
        handler: () => ({}),
      });
    expect(() => routeChain(route("get", { kind: "agent", minTier: "unverified" }), mount)).to.throw(
      'live route GET /api/v1/agent/undecided must declare auth.access: "read", "full_key" or an operation',
    );
    expect(() =>
      routeChain(route("get", { kind: "agent", minTier: "unverified", access: "Vault.Deposit" }), mount),
    ).to.throw("must declare auth.access");
    expect(() => routeChain(route("post", { kind: "agent", minTier: "unverified", access: "read" }), mount)).to.throw(
      'live route POST /api/v1/agent/undecided: only a GET may declare access "read"',
    );
    expect(routeChain(route("post", { kind: "agent", minTier: "unverified", access: "exit" }), mount)).to.have.length(
      2,
    );
  });
});
