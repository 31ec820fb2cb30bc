import { expect } from "chai";
import { SECURITY_HEADERS } from "../../../api/src/doors/middleware";
import { defineRoute } from "../../../api/src/doors/live/route";
import { request, startTestApp, type TestApp } from "../helpers/app";

/**
 * The public reads served from the live door's table of exact paths (no router, no promise of their own when the
 * answer is kept): every response still carries what every response must, errors are still mapped, the limits still
 * count, and shutdown still waits for a running handler.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const HOT_PATHS = ["/health", "/api/v1/agents"];

function expectSecurityHeaders(headers: Headers): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(headers.get(name)).to.equal(value);
}

describe("API hot public reads (exact-path table)", function () {
  let api: TestApp;
  let release: () => void = () => undefined;

  before(async function () {
    api = await startTestApp({
      extra: {
        extraRoutes: () => [
          defineRoute({
            method: "get",
            path: "/api/v1/test/slow",
            tag: "test",
            summary: "answers when the test releases it",
            auth: null,
            rateLimit: null,
            responses: { 200: { description: "released" } },
            handler: () => new Promise((resolve) => (release = () => resolve({ released: true }))),
          }),
        ],
      },
    });
  });

  after(async function () {
    await api.close();
  });

  for (const path of HOT_PATHS) {
    it(`GET ${path}: the same body bytes each time, a new UUID request id per response, the security headers`, async function () {
      const responses = await Promise.all(Array.from({ length: 20 }, () => fetch(api.url + path)));
      const bodies = await Promise.all(responses.map((response) => response.text()));
      const ids = new Set<string>();
      for (const [i, response] of responses.entries()) {
        expect(response.status).to.equal(200);
        expect(response.headers.get("content-type")).to.equal("application/json; charset=utf-8");
        expect(response.headers.get("content-length")).to.equal(String(Buffer.byteLength(bodies[i])));
        expect(response.headers.get("cache-control")).to.equal(null);
        expectSecurityHeaders(response.headers);
        const id = response.headers.get("x-request-id") ?? "";
        expect(id).to.match(UUID);
        ids.add(id);
        expect(bodies[i]).to.equal(bodies[0]);
      }
      expect(ids.size).to.equal(20);
      expect(JSON.parse(bodies[0])).to.be.an("object");
    });

    it(`HEAD ${path}: the GET's status and headers without a body`, async function () {
      const get = await fetch(api.url + path);
      const body = await get.text();
      const head = await fetch(api.url + path, { method: "HEAD" });
      expect(head.status).to.equal(200);
      expect(await head.text()).to.equal("");
      expect(head.headers.get("content-length")).to.equal(String(Buffer.byteLength(body)));
      expect(head.headers.get("content-type")).to.equal("application/json; charset=utf-8");
      expectSecurityHeaders(head.headers);
      expect(head.headers.get("x-request-id")).to.match(UUID);
    });
  }

  it("echoes a well-formed X-Request-Id and replaces a malformed one with a UUID", async function () {
    const given = await request(api.url, "GET", "/health", { headers: { "X-Request-Id": "trace-42.a_b" } });
    expect(given.headers.get("x-request-id")).to.equal("trace-42.a_b");
    const malformed = await request(api.url, "GET", "/health", { headers: { "X-Request-Id": "no spaces/allowed" } });
    expect(malformed.headers.get("x-request-id")).to.match(UUID);
  });

  it("maps a validation error raised without a promise to 400 naming the field, with every header", async function () {
    const tooMany = await request(api.url, "GET", "/api/v1/agents?limit=101");
    expect(tooMany.status).to.equal(400);
    expect(tooMany.body).to.deep.equal({ error: "limit: must be at most 100" });
    expectSecurityHeaders(tooMany.headers);
    expect(tooMany.headers.get("x-request-id")).to.match(UUID);
    const unknown = await request(api.url, "GET", "/health?verbose=1");
    expect(unknown.status).to.equal(400);
    expect(unknown.body).to.deep.equal({ error: "unknown field verbose" });
    expectSecurityHeaders(unknown.headers);
  });

  it("answers POST on a hot path with 405 and Allow, and an unknown path with 404", async function () {
    const post = await request(api.url, "POST", "/health");
    expect(post.status).to.equal(405);
    expect(post.headers.get("allow")).to.equal("HEAD, GET");
    expectSecurityHeaders(post.headers);
    const missing = await request(api.url, "GET", "/api/v1/vaultz");
    expect(missing.status).to.equal(404);
    expect(missing.body).to.deep.equal({ error: "no route for GET /api/v1/vaultz" });
  });

  it("drain waits for a handler still running, then resolves", async function () {
    const pending = request(api.url, "GET", "/api/v1/test/slow");
    await new Promise((resolve) => setTimeout(resolve, 100));
    let drained = false;
    const drain = api.app.drain(5_000).then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(drained).to.equal(false);
    release();
    expect((await pending).body).to.deep.equal({ released: true });
    await drain;
    expect(drained).to.equal(true);
  });

  describe("with rate limits on", function () {
    let limited: TestApp;
    before(async function () {
      limited = await startTestApp({ env: { RATE_LIMITS_DISABLED: "false" } });
    });
    after(async function () {
      await limited.close();
    });

    it("counts the hot reads on the per-IP budget of 60, with headers on each, then 429 with Retry-After", async function () {
      for (let i = 0; i < 60; i += 1) {
        const response = await request(limited.url, "GET", HOT_PATHS[i % 2]);
        expect(response.status).to.equal(200);
        expect(response.headers.get("x-ratelimit-limit")).to.equal("60");
        expect(response.headers.get("x-ratelimit-remaining")).to.equal(String(59 - i));
        expect(response.headers.get("x-ratelimit-reset")).to.match(/^\d+$/);
        expectSecurityHeaders(response.headers);
      }
      for (const path of HOT_PATHS) {
        const refused = await request(limited.url, "GET", path);
        expect(refused.status).to.equal(429);
        expect(Number(refused.headers.get("retry-after"))).to.be.within(1, 60);
        expect(refused.body.error).to.match(/^rate limit exceeded: 60 requests per minute; retry in \d+ s$/);
        expectSecurityHeaders(refused.headers);
        expect(refused.headers.get("x-request-id")).to.match(UUID);
      }
    });
  });
});
