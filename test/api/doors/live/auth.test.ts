import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { authenticatedAgent } from "../../../../api/src/doors/live/auth";
import { defineRoute, type RouteDefinition } from "../../../../api/src/doors/live/route";
import { createMemoryStore } from "../../../../api/src/store/memory";
import { registerAgent, request, startTestApp, type TestApp } from "../../helpers/app";

const OPERATOR_KEY = "operator-key-0123456789abcdef";

/** Test routes, one per auth requirement, mounted the way the keyed routes are. */
function probeRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: "get",
      path: "/api/v1/test/agent-any",
      tag: "test",
      summary: "any agent",
      auth: { kind: "agent", minTier: "unverified", access: "read" },
      rateLimit: "agent",
      responses: { 200: { description: "ok" } },
      handler: ({ ctx }) => ({ agent_id: authenticatedAgent(ctx).agentId }),
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/test/agent-established",
      tag: "test",
      summary: "established agents (like governance votes)",
      auth: { kind: "agent", minTier: "established", access: "governance.vote" },
      rateLimit: "write",
      body: z.strictObject({}),
      responses: { 200: { description: "ok" } },
      handler: ({ ctx }) => ({ tier: authenticatedAgent(ctx).tier }),
    }),
  ];
}

function keyedRoutes(api: TestApp): RouteDefinition[] {
  return api.app.routeDefinitions.filter((route) => route.auth !== null);
}

function concretePath(path: string): string {
  return path.replace(/:[A-Za-z_]+/g, randomUUID());
}

describe("API auth: 401/403/503 matrix and tier grants", function () {
  describe("with no keys at all (no agent, no AGENT_API_KEYS)", function () {
    let api: TestApp;
    before(async function () {
      api = await startTestApp({ extra: { extraRoutes: probeRoutes } });
    });
    after(async function () {
      await api.close();
    });

    it("answers 503 naming AGENT_API_KEYS on every keyed endpoint, with or without a key", async function () {
      const routes = keyedRoutes(api);
      expect(routes.map((r) => r.path)).to.include("/api/v1/operator/agents/:agent_id/tier");
      for (const route of routes) {
        for (const headers of [{}, { "X-API-Key": "nap-whatever" }] as Array<Record<string, string>>) {
          const response = await request(api.url, route.method.toUpperCase(), concretePath(route.path), {
            headers,
            body: route.method === "get" ? undefined : {},
          });
          expect(response.status, route.path).to.equal(503);
          expect(response.body).to.deep.equal({
            error: "no API keys are configured on this server: register an agent or set AGENT_API_KEYS",
          });
        }
      }
    });

    it("stops answering 503 once the first agent registers", async function () {
      const agent = await registerAgent(api.url);
      const response = await request(api.url, "GET", "/api/v1/test/agent-any", {
        headers: { "X-API-Key": agent.apiKey },
      });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ agent_id: agent.agentId });
    });
  });

  describe("with operator keys and agents", function () {
    let api: TestApp;
    let agent: Awaited<ReturnType<typeof registerAgent>>;

    before(async function () {
      api = await startTestApp({
        store: createMemoryStore(),
        env: { AGENT_API_KEYS: ` ${OPERATOR_KEY} , second-operator-key-xxxxxxxx` },
        extra: { extraRoutes: probeRoutes },
      });
      agent = await registerAgent(api.url);
    });
    after(async function () {
      await api.close();
    });

    it("answers 401 for a missing key on every keyed endpoint", async function () {
      for (const route of keyedRoutes(api)) {
        const response = await request(api.url, route.method.toUpperCase(), concretePath(route.path), {
          body: route.method === "get" ? undefined : {},
        });
        expect(response.status, route.path).to.equal(401);
        expect(response.body).to.deep.equal({ error: "missing API key: send it in the X-API-Key header" });
      }
    });

    it("answers 401 for an unknown key (also one that differs from a real key in one character)", async function () {
      const almost = agent.apiKey.slice(0, -1) + (agent.apiKey.endsWith("a") ? "b" : "a");
      for (const route of keyedRoutes(api)) {
        for (const key of ["nap-00000000000000000000000000000000", almost, OPERATOR_KEY.toUpperCase()]) {
          const response = await request(api.url, route.method.toUpperCase(), concretePath(route.path), {
            headers: { "X-API-Key": key },
            body: route.method === "get" ? undefined : {},
          });
          expect(response.status, route.path).to.equal(401);
          expect(response.body).to.deep.equal({ error: "invalid API key" });
        }
      }
    });

    it("answers 403 when the tier is too low, and lets an agent key through at its tier", async function () {
      const low = await request(api.url, "POST", "/api/v1/test/agent-established", {
        headers: { "X-API-Key": agent.apiKey },
        body: {},
      });
      expect(low.status).to.equal(403);
      expect(low.body).to.deep.equal({ error: "tier established or higher required; this agent's tier is unverified" });
      const any = await request(api.url, "GET", "/api/v1/test/agent-any", { headers: { "X-API-Key": agent.apiKey } });
      expect(any.status).to.equal(200);
    });

    it("answers 403 for an agent key on the operator endpoint and for an operator key on agent endpoints", async function () {
      const byAgent = await request(api.url, "POST", `/api/v1/operator/agents/${agent.agentId}/tier`, {
        headers: { "X-API-Key": agent.apiKey },
        body: { tier: "core_contributor" },
      });
      expect(byAgent.status).to.equal(403);
      expect(byAgent.body).to.deep.equal({ error: "this endpoint needs an operator key (AGENT_API_KEYS)" });
      const byOperator = await request(api.url, "GET", "/api/v1/test/agent-any", {
        headers: { "X-API-Key": OPERATOR_KEY },
      });
      expect(byOperator.status).to.equal(403);
      expect(byOperator.body).to.deep.equal({ error: "this endpoint needs an agent's API key, not an operator key" });
    });

    it("lets an operator grant a tier, after which the agent passes the tier check", async function () {
      const grant = await request(api.url, "POST", `/api/v1/operator/agents/${agent.agentId}/tier`, {
        headers: { "X-API-Key": "second-operator-key-xxxxxxxx" },
        body: { tier: "established" },
      });
      expect(grant.status).to.equal(200);
      expect(grant.body).to.deep.equal({
        agent_id: agent.agentId,
        agent_name: "test agent",
        tier: "established",
        tier_granted_by: "operator:2",
      });
      const vote = await request(api.url, "POST", "/api/v1/test/agent-established", {
        headers: { "X-API-Key": agent.apiKey },
        body: {},
      });
      expect(vote.status).to.equal(200);
      expect(vote.body).to.deep.equal({ tier: "established" });
      const lookup = await request(api.url, "GET", `/api/v1/agent/auth/lookup?wallet=${agent.wallet.address}`);
      expect(lookup.body.tier).to.equal("established");

      const demote = await request(api.url, "POST", `/api/v1/operator/agents/${agent.agentId}/tier`, {
        headers: { "X-API-Key": OPERATOR_KEY },
        body: { tier: "registered" },
      });
      expect(demote.status).to.equal(200);
      expect(demote.body.tier).to.equal("registered");
      expect(demote.body.tier_granted_by).to.equal("operator:1");
    });

    it("validates the grant: unknown agent 404, malformed id and unknown tier 400", async function () {
      const headers = { "X-API-Key": OPERATOR_KEY };
      const unknown = randomUUID();
      const missing = await request(api.url, "POST", `/api/v1/operator/agents/${unknown}/tier`, {
        headers,
        body: { tier: "registered" },
      });
      expect(missing.status).to.equal(404);
      expect(missing.body).to.deep.equal({ error: `agent_id: no agent ${unknown}` });
      const malformed = await request(api.url, "POST", "/api/v1/operator/agents/not-a-uuid/tier", {
        headers,
        body: { tier: "registered" },
      });
      expect(malformed.status).to.equal(400);
      expect(malformed.body).to.deep.equal({ error: "agent_id: must be a UUID" });
      const badTier = await request(api.url, "POST", `/api/v1/operator/agents/${agent.agentId}/tier`, {
        headers,
        body: { tier: "admin" },
      });
      expect(badTier.status).to.equal(400);
      expect(badTier.body).to.deep.equal({
        error: "tier: must be one of unverified, registered, established, core_contributor",
      });
    });

    it("never returns an API key on public reads", async function () {
      for (const path of [
        "/api/v1/agents",
        "/api/v1/agents/stats",
        `/api/v1/agent/auth/lookup?wallet=${agent.wallet.address}`,
      ]) {
        const response = await request(api.url, "GET", path);
        expect(JSON.stringify(response.body)).to.not.include(agent.apiKey.slice(12));
        expect(JSON.stringify(response.body)).to.not.include('api_key"');
      }
    });
  });
});
