import { expect } from "chai";
import Redis from "ioredis";
import { z } from "zod";
import { defineRoute, type RouteDefinition } from "../../../../api/src/doors/live/route";
import { registerAgent, request, startTestApp, type TestApp } from "../../helpers/app";
import { testRedisUrl } from "../../helpers/redis";

/** Keyed test routes in each limited class, mounted as the submit/deposit/vote (write) and faucet routes are. */
function limitedRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: "post",
      path: "/api/v1/test/write",
      tag: "test",
      summary: "write-class probe",
      auth: { kind: "agent", minTier: "unverified", access: "vault.deposit" },
      rateLimit: "write",
      body: z.strictObject({}),
      responses: { 200: { description: "ok" } },
      handler: () => ({ ok: true }),
    }),
    defineRoute({
      method: "post",
      path: "/api/v1/test/faucet",
      tag: "test",
      summary: "faucet-class probe",
      auth: { kind: "agent", minTier: "unverified", access: "faucet" },
      rateLimit: "faucet",
      body: z.strictObject({}),
      responses: { 200: { description: "ok" } },
      handler: () => ({ ok: true }),
    }),
  ];
}

const LIMITED_ENV = { RATE_LIMITS_DISABLED: "false" };

function expectLimitHeaders(headers: Headers, limit: number, remaining: number): void {
  expect(headers.get("x-ratelimit-limit")).to.equal(String(limit));
  expect(headers.get("x-ratelimit-remaining")).to.equal(String(remaining));
  const reset = Number(headers.get("x-ratelimit-reset"));
  const nowSeconds = Date.now() / 1000;
  expect(Number.isInteger(reset)).to.equal(true);
  expect(reset)
    .to.be.greaterThan(nowSeconds)
    .and.at.most(Math.ceil(nowSeconds) + 61);
}

async function expect429(response: { status: number; body: Record<string, unknown>; headers: Headers }, limit: number) {
  expect(response.status).to.equal(429);
  expect(response.body).to.have.property("error");
  expect(response.body.error).to.match(
    new RegExp(`^rate limit exceeded: ${limit} requests per minute; retry in \\d+ s$`),
  );
  expectLimitHeaders(response.headers, limit, 0);
  const retryAfter = Number(response.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter)).to.equal(true);
  expect(retryAfter).to.be.within(1, 60);
}

describe("API rate limits", function () {
  describe("in one process (shared in-memory Map)", function () {
    let api: TestApp;
    before(async function () {
      // The agents are registered before limits count: each app below is fresh.
      api = await startTestApp({ env: LIMITED_ENV, extra: { extraRoutes: limitedRoutes } });
    });
    after(async function () {
      await api.close();
    });

    it("allows exactly 60 public requests per minute per IP, with headers on each, then 429 with Retry-After", async function () {
      for (let i = 0; i < 60; i += 1) {
        const response = await request(api.url, "GET", "/api/v1/agents/stats");
        expect(response.status).to.equal(200);
        expectLimitHeaders(response.headers, 60, 59 - i);
      }
      await expect429(await request(api.url, "GET", "/api/v1/agents"), 60);
      // Every public endpoint shares the per-IP budget.
      await expect429(await request(api.url, "GET", "/health"), 60);
    });
  });

  describe("per API key", function () {
    let api: TestApp;
    let keys: string[];
    before(async function () {
      const setup = await startTestApp({ extra: { extraRoutes: limitedRoutes } });
      keys = [(await registerAgent(setup.url)).apiKey, (await registerAgent(setup.url)).apiKey];
      await setup.close();
      api = await startTestApp({ store: setup.store, env: LIMITED_ENV, extra: { extraRoutes: limitedRoutes } });
    });
    after(async function () {
      await api.close();
    });

    it("allows exactly 10 writes per minute per key, counted apart for another key and apart from the faucet", async function () {
      const [a, b] = keys;
      for (let i = 0; i < 10; i += 1) {
        const response = await request(api.url, "POST", "/api/v1/test/write", {
          headers: { "X-API-Key": a },
          body: {},
        });
        expect(response.status).to.equal(200);
        expectLimitHeaders(response.headers, 10, 9 - i);
      }
      await expect429(
        await request(api.url, "POST", "/api/v1/test/write", { headers: { "X-API-Key": a }, body: {} }),
        10,
      );
      const other = await request(api.url, "POST", "/api/v1/test/write", { headers: { "X-API-Key": b }, body: {} });
      expect(other.status).to.equal(200);
      expectLimitHeaders(other.headers, 10, 9);
      const faucet = await request(api.url, "POST", "/api/v1/test/faucet", { headers: { "X-API-Key": a }, body: {} });
      expect(faucet.status).to.equal(200);
      expectLimitHeaders(faucet.headers, 5, 4);
    });

    it("allows exactly 5 faucet requests per minute per key", async function () {
      const key = keys[1];
      for (let i = 0; i < 5; i += 1) {
        const response = await request(api.url, "POST", "/api/v1/test/faucet", {
          headers: { "X-API-Key": key },
          body: {},
        });
        expect(response.status).to.equal(200);
        expectLimitHeaders(response.headers, 5, 4 - i);
      }
      await expect429(
        await request(api.url, "POST", "/api/v1/test/faucet", { headers: { "X-API-Key": key }, body: {} }),
        5,
      );
    });
  });

  describe("client IP behind proxies", function () {
    it("ignores X-Forwarded-For without trusted proxies (a client cannot reset its budget)", async function () {
      const api = await startTestApp({ env: LIMITED_ENV });
      try {
        for (let i = 0; i < 60; i += 1) {
          const response = await request(api.url, "GET", "/health", { headers: { "X-Forwarded-For": `10.0.0.${i}` } });
          expect(response.status).to.equal(200);
        }
        await expect429(await request(api.url, "GET", "/health", { headers: { "X-Forwarded-For": "10.9.9.9" } }), 60);
      } finally {
        await api.close();
      }
    });

    it("with one trusted proxy, counts per address the proxy appended and ignores what the client prepended", async function () {
      const api = await startTestApp({ env: { ...LIMITED_ENV, TRUSTED_PROXY_COUNT: "1" } });
      try {
        for (let i = 0; i < 60; i += 1) {
          const response = await request(api.url, "GET", "/health", {
            headers: { "X-Forwarded-For": `6.6.6.${i}, 203.0.113.7` },
          });
          expect(response.status).to.equal(200);
        }
        await expect429(
          await request(api.url, "GET", "/health", { headers: { "X-Forwarded-For": "1.2.3.4, 203.0.113.7" } }),
          60,
        );
        const otherClient = await request(api.url, "GET", "/health", { headers: { "X-Forwarded-For": "203.0.113.8" } });
        expect(otherClient.status).to.equal(200);
        expectLimitHeaders(otherClient.headers, 60, 59);
      } finally {
        await api.close();
      }
    });
  });

  describe("shared by two instances through Redis", function () {
    const clients: Redis[] = [];
    const apps: TestApp[] = [];

    before(async function () {
      const url = await testRedisUrl();
      for (let i = 0; i < 2; i += 1) {
        const client = new Redis(url);
        clients.push(client);
        apps.push(
          await startTestApp({
            env: { ...LIMITED_ENV, TRUSTED_PROXY_COUNT: "1" },
            rateLimitBackend: { driver: "redis", db: client },
          }),
        );
      }
      // A fresh key space for this test (the server may be shared with other test files).
      await clients[0].del(...((await clients[0].keys("nap:ratelimit:*")) as string[]), "nap:ratelimit:none");
    });

    after(async function () {
      for (const app of apps) await app.close();
      for (const client of clients) client.disconnect();
    });

    it("counts one budget of 60 across both instances, with headers from either", async function () {
      const headers = { "X-Forwarded-For": "198.51.100.1" };
      for (let i = 0; i < 60; i += 1) {
        const response = await request(apps[i % 2].url, "GET", "/api/v1/agents/stats", { headers });
        expect(response.status, `request ${i + 1}`).to.equal(200);
        expectLimitHeaders(response.headers, 60, 59 - i);
      }
      await expect429(await request(apps[0].url, "GET", "/api/v1/agents", { headers }), 60);
      await expect429(await request(apps[1].url, "GET", "/api/v1/agents", { headers }), 60);
      const other = await request(apps[1].url, "GET", "/health", { headers: { "X-Forwarded-For": "198.51.100.2" } });
      expect(other.status).to.equal(200);
    });

    it("answers 503 (never unlimited, never 500) when Redis is unreachable", async function () {
      const dead = new Redis("redis://127.0.0.1:9", {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      dead.on("error", () => undefined);
      const api = await startTestApp({ env: LIMITED_ENV, rateLimitBackend: { driver: "redis", db: dead } });
      try {
        const response = await request(api.url, "GET", "/health");
        expect(response.status).to.equal(503);
        expect(response.body).to.deep.equal({ error: "rate limiter unavailable: try again shortly" });
      } finally {
        await api.close();
        dead.disconnect();
      }
    });
  });
});
