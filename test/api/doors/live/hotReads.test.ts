import { expect } from "chai";
import { Writable } from "node:stream";
import { SECURITY_HEADERS } from "../../../../api/src/doors/middleware";
import { defineRoute } from "../../../../api/src/doors/live/route";
import { createLogger } from "../../../../api/src/logger";
import { hardhatChain, request, startTestApp, type TestApp } from "../../helpers/app";
import { deployTestSystem } from "../../helpers/system";

/**
 * The public reads served from the live door's table of exact paths (no router, no promise of their own when the
 * answer is kept): every response still carries what every response must, errors are still mapped, the limits still
 * count, and shutdown still waits for a running handler.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const HOT_PATHS = ["/health", "/api/v1/agents", "/api/v1/vaults"];
/**
 * Every header a hot read answers with, and no other (no Cache-Control, ETag or Transfer-Encoding): the answer is
 * written by the route itself (SerializedJson.send), so this pins it to what Koa wrote for a Buffer body.
 */
const HOT_READ_HEADERS = [
  "connection",
  "content-length",
  "content-security-policy",
  "content-type",
  "date",
  "keep-alive",
  "referrer-policy",
  "x-content-type-options",
  "x-frame-options",
  "x-request-id",
];

function expectSecurityHeaders(headers: Headers): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(headers.get(name)).to.equal(value);
}

describe("API hot public reads (exact-path table)", function () {
  let api: TestApp;
  let release: () => void = () => undefined;

  before(async function () {
    api = await startTestApp({
      chain: await hardhatChain(await deployTestSystem()),
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
        expect([...response.headers.keys()].sort()).to.deep.equal(HOT_READ_HEADERS);
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
      // Node sends no Keep-Alive header with an answer to HEAD (as it did when Koa wrote it).
      expect([...head.headers.keys()].sort()).to.deep.equal(HOT_READ_HEADERS.filter((name) => name !== "keep-alive"));
      expectSecurityHeaders(head.headers);
      expect(head.headers.get("x-request-id")).to.match(UUID);
    });
  }

  it("GET /api/v1/vaults answers the deployment's six vaults from the kept list, byte for byte the same", async function () {
    const first = await request<{ vaults: unknown[]; total: number }>(api.url, "GET", "/api/v1/vaults");
    expect(first.status).to.equal(200);
    expect(first.body.total).to.equal(6);
    expect(first.body.vaults).to.have.length(6);
    const again = await fetch(api.url + "/api/v1/vaults");
    expect(JSON.parse(await again.text())).to.deep.equal(first.body);
  });

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

  describe("with the access log on (LOG_LEVEL info)", function () {
    let logged: TestApp;
    const lines: string[] = [];

    before(async function () {
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      logged = await startTestApp({ extra: { logger: createLogger("info", sink) } });
    });

    after(async function () {
      await logged.close();
    });

    it("writes one line per request, hot reads and errors alike: request id, method, path, status, duration", async function () {
      lines.length = 0;
      const answers = [
        await request(logged.url, "GET", "/health"),
        await request(logged.url, "HEAD", "/api/v1/agents"),
        await request(logged.url, "GET", "/api/v1/agents?limit=101"),
        await request(logged.url, "GET", "/nowhere"),
      ];
      const entries = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry.msg === "request");
      expect(entries.map(({ requestId, method, path, status }) => ({ requestId, method, path, status }))).to.deep.equal(
        [
          { requestId: answers[0].headers.get("x-request-id"), method: "GET", path: "/health", status: 200 },
          { requestId: answers[1].headers.get("x-request-id"), method: "HEAD", path: "/api/v1/agents", status: 200 },
          { requestId: answers[2].headers.get("x-request-id"), method: "GET", path: "/api/v1/agents", status: 400 },
          { requestId: answers[3].headers.get("x-request-id"), method: "GET", path: "/nowhere", status: 404 },
        ],
      );
      for (const entry of entries) {
        expect(entry.requestId).to.match(UUID);
        expect(entry.ms).to.be.a("number").at.least(0);
      }
    });
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
