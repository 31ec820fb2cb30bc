import { expect } from "chai";
import { Wallet } from "ethers";
import Redis from "ioredis";
import { createClient, type Client } from "graphql-ws";
import { randomBytes } from "node:crypto";
import WebSocket from "ws";
import { createTierLimiter, TIER_LIMITS } from "../../../../../api/src/doors/data/access/limits";
import { createMemoryStore } from "../../../../../api/src/store/memory";
import {
  call,
  manualClock,
  OPERATOR_KEY,
  startAccessApp,
  type AccessTestApp,
  type Reply,
} from "../../../helpers/dataAccessApp";
import { startTestApp, type TestApp } from "../../../helpers/app";
import { testRedisUrl } from "../../../helpers/redis";
import { WsTestClient } from "../../../helpers/wsClient";

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The IP's keyed budget: every self-issued Authenticated key used from one IP draws on one Authenticated budget, so
 * that keys minted for free cannot lift what one IP gets; Node Operator keys (issued by an operator) stay apart.
 */

/** A minute boundary: the minute window ends at MINUTE_END. */
const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const MINUTE_END = T0 / 1000 + 60;
const DAY_END = Date.UTC(2026, 5, 2) / 1000;

const sharedRefusal = (limit: number, retryIn: number) =>
  `rate limit exceeded: the keys used from this IP address share one Authenticated budget of ${limit} requests ` +
  `per minute; retry in ${retryIn} s, or ask an operator for a Node Operator key for more`;

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** A wallet-issued data key, asked for from `ip`. */
async function walletKey(base: string, ip: string): Promise<string> {
  const wallet = Wallet.createRandom();
  const nonce = await call(base, "GET", `/v1/auth/nonce?wallet=${wallet.address}`, { ip });
  const signature = await wallet.signMessage(nonce.body.message as string);
  const issued = await call(base, "POST", "/v1/auth/keys", {
    body: { wallet: wallet.address, nonce: nonce.body.nonce, signature },
    ip,
  });
  expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
  return issued.body.key as string;
}

async function operatorKey(base: string, body: Record<string, unknown>): Promise<string> {
  const issued = await call(base, "POST", "/v1/auth/keys", { headers: { "X-API-Key": OPERATOR_KEY }, body });
  expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
  return issued.body.key as string;
}

/** `count` reads from `ip`, the keys taken in turn. */
async function readsInTurn(base: string, ip: string, keys: string[], count: number): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < count; i += 1) {
    replies.push(await call(base, "GET", "/v1/vaults", { ip, headers: bearer(keys[i % keys.length]) }));
  }
  return replies;
}

const statusCounts = (replies: Reply[]) =>
  replies.reduce<Record<number, number>>((counts, r) => ({ ...counts, [r.status]: (counts[r.status] ?? 0) + 1 }), {});

describe("data keys: one keyed budget per IP", function () {
  this.timeout(60_000);
  let clock: ReturnType<typeof manualClock>;
  let api: AccessTestApp;

  beforeEach(async function () {
    clock = manualClock(T0);
    api = await startAccessApp({ clock: clock.now });
  });
  afterEach(async function () {
    await api.close();
  });

  it("free keys multiply the per-IP budget: 5 keys from one IP share one Authenticated budget", async function () {
    const ip = "10.8.0.1";
    const keys: string[] = [];
    for (let i = 0; i < 5; i += 1) keys.push(await walletKey(api.url, ip));

    const replies = await readsInTurn(api.url, ip, keys, 310);
    expect(replies.slice(0, 300).every((r) => r.status === 200)).to.equal(true);
    expect(statusCounts(replies)).to.deep.equal({ 200: 300, 429: 10 });
    const refused = replies[300];
    expect(refused.body.error).to.deep.equal({
      code: "RATE_LIMITED",
      message: sharedRefusal(300, 60),
      details: { tier: "authenticated", window: "minute", limit: 300, reset: MINUTE_END, counted_by: "keys_of_ip" },
    });
    expect(refused.headers.get("retry-after")).to.equal("60");
    expect(refused.headers.get("x-ratelimit-limit")).to.equal("300");
    expect(refused.headers.get("x-ratelimit-remaining")).to.equal("0");
    expect(refused.headers.get("x-ratelimit-reset")).to.equal(String(MINUTE_END));
    // A fresh key, minted elsewhere, brings nothing more here.
    const sixth = await walletKey(api.url, "10.8.0.2");
    expect((await readsInTurn(api.url, ip, [sixth], 1))[0].body.error?.message).to.equal(sharedRefusal(300, 60));
    // The IP's Public budget (requests without a key) is its own.
    expect((await call(api.url, "GET", "/v1/vaults", { ip })).status).to.equal(200);

    // The windows are the limiter's: the next minute serves again.
    clock.set(T0 + 60_000);
    const next = await readsInTurn(api.url, ip, keys, 1);
    expect(next[0].status).to.equal(200);
    expect(next[0].headers.get("x-ratelimit-remaining")).to.equal("299");
  });

  it("free keys multiply the per-IP budget: two IPs each have their own keyed budget, and refused requests count nowhere", async function () {
    const keys: string[] = [];
    for (let i = 0; i < 5; i += 1) keys.push(await walletKey(api.url, "10.8.1.9"));
    // 60 admitted per key from the first address, then one refused per key.
    expect(statusCounts(await readsInTurn(api.url, "10.8.1.1", keys, 305))).to.deep.equal({ 200: 300, 429: 5 });

    // The same keys from a second address: a budget of its own. Each key has used 60 of its own 300 (its refused
    // request was given back), so the first answer shows the key's 239 left.
    const second = await readsInTurn(api.url, "10.8.1.2", keys, 301);
    expect(second[0].headers.get("x-ratelimit-remaining")).to.equal("239");
    expect(statusCounts(second)).to.deep.equal({ 200: 300, 429: 1 });
    expect(second[300].body.error?.message).to.equal(sharedRefusal(300, 60));
  });

  it("free keys multiply the per-IP budget: a Node Operator key, or a key an operator issued, is not held by the IP's keyed budget", async function () {
    const ip = "10.8.2.1";
    const free = await walletKey(api.url, ip);
    const nodeOperator = await operatorKey(api.url, { owner: "acme" });
    const operatorIssued = await operatorKey(api.url, { owner: "partner", tier: "authenticated" });
    expect(statusCounts(await readsInTurn(api.url, ip, [free], 301))).to.deep.equal({ 200: 300, 429: 1 });

    const operatorReplies = await readsInTurn(api.url, ip, [nodeOperator], 400);
    expect(statusCounts(operatorReplies)).to.deep.equal({ 200: 400 });
    expect(operatorReplies[399].headers.get("x-ratelimit-limit")).to.equal("1000");
    expect(operatorReplies[399].headers.get("x-ratelimit-remaining")).to.equal("600");

    const issuedReply = (await readsInTurn(api.url, ip, [operatorIssued], 1))[0];
    expect(issuedReply.status).to.equal(200);
    expect(issuedReply.headers.get("x-ratelimit-remaining")).to.equal("299");
  });
});

describe("data keys: one keyed budget per IP, in the limiter", function () {
  const small = { ...TIER_LIMITS, authenticated: { minute: 3, day: 5 } };
  const own = (keyId: string) => ({ tier: "authenticated" as const, issuedBy: `wallet:${keyId}` });

  it("free keys multiply the per-IP budget: a decision names the IP's keyed window that refused, and gives every point back", async function () {
    const clock = manualClock(T0);
    const limiter = createTierLimiter({ clock: clock.now, limits: small });
    const origin = (keyId: string) => ({ ip: "10.8.3.1", key: own(keyId) });
    const first = await limiter.consume("authenticated", "key:a", origin("a"));
    expect(first.allowed).to.equal(true);
    expect(first.windows.map((w) => [w.window, w.remaining])).to.deep.equal([
      ["minute", 2],
      ["day", 4],
    ]);
    expect(first.ipWindows?.map((w) => [w.window, w.remaining])).to.deep.equal([
      ["minute", 2],
      ["day", 4],
    ]);
    await limiter.consume("authenticated", "key:b", origin("b"));
    await limiter.consume("authenticated", "key:c", origin("c"));
    const refused = await limiter.consume("authenticated", "key:d", origin("d"));
    expect(refused.allowed).to.equal(false);
    expect(refused.boundBy).to.equal("keys_of_ip");
    expect(refused.binding).to.deep.equal({ window: "minute", limit: 3, remaining: 0, reset: MINUTE_END });
    // Key d's refused request was given back: alone (from another IP) it has its whole minute.
    const elsewhere = await limiter.consume("authenticated", "key:d", { ip: "10.8.3.2", key: own("d") });
    expect(elsewhere.windows[0].remaining).to.equal(2);
    // The day window of the IP's keyed budget binds too, until the UTC day ends.
    clock.set(T0 + 60_000);
    await limiter.consume("authenticated", "key:e", origin("e"));
    await limiter.consume("authenticated", "key:f", origin("f"));
    const daily = await limiter.consume("authenticated", "key:g", origin("g"));
    expect(daily.allowed).to.equal(false);
    expect(daily.boundBy).to.equal("keys_of_ip");
    expect(daily.binding).to.deep.include({ window: "day", limit: 5, reset: DAY_END });
    // Without an origin, or for a Public caller, only the subject is counted.
    expect((await limiter.consume("authenticated", "key:h")).ipWindows).to.equal(undefined);
    expect((await limiter.consume("public", "ip:10.8.3.1", { ip: "10.8.3.1" })).ipWindows).to.equal(undefined);
  });
});

describe("data keys: one keyed budget per IP, shared by two instances through Redis", function () {
  let redis: Redis;
  before(async function () {
    redis = new Redis(await testRedisUrl(), { lazyConnect: true, maxRetriesPerRequest: 2 });
    await redis.connect();
  });
  after(async function () {
    await redis.quit();
  });

  it("free keys multiply the per-IP budget: keys used from one IP on two instances share one Authenticated budget", async function () {
    const clock = manualClock(T0);
    const prefix = `test-${randomBytes(4).toString("hex")}`;
    const limits = { ...TIER_LIMITS, authenticated: { minute: 4, day: 100 } };
    const second = redis.duplicate();
    await second.connect();
    // One key store, as two instances on one database would have.
    const store = createMemoryStore();
    const first = await startAccessApp({ clock: clock.now, limits, store, redis, redisPrefix: prefix });
    const other = await startAccessApp({ clock: clock.now, limits, store, redis: second, redisPrefix: prefix });
    try {
      const keys = [await walletKey(first.url, "10.8.4.1"), await walletKey(other.url, "10.8.4.1")];
      const replies: Reply[] = [];
      for (let i = 0; i < 6; i += 1) {
        replies.push(
          await call([first, other][i % 2].url, "GET", "/v1/vaults", {
            ip: "10.8.4.1",
            headers: bearer(keys[Math.floor(i / 2) % 2]),
          }),
        );
      }
      expect(replies.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 429, 429]);
      expect(replies.map((r) => r.headers.get("x-ratelimit-remaining"))).to.deep.equal(["3", "2", "1", "0", "0", "0"]);
      expect(replies[4].body.error?.message).to.equal(sharedRefusal(4, 60));
      // Another address is counted apart on both instances.
      const apart = await call(other.url, "GET", "/v1/vaults", { ip: "10.8.4.2", headers: bearer(keys[0]) });
      expect(apart.status).to.equal(200);
      expect(apart.headers.get("x-ratelimit-remaining")).to.equal("1");
    } finally {
      await first.close();
      await other.close();
      await second.quit();
    }
  });
});

describe("data keys: one keyed budget per IP, across the doors", function () {
  this.timeout(120_000);
  const now = new Date(T0 + 10_000);
  let app: TestApp;
  const clients: Client[] = [];
  const sockets: WsTestClient[] = [];

  before(async function () {
    app = await startTestApp({ env: { RATE_LIMITS_DISABLED: "false", TRUSTED_PROXY_COUNT: "1" }, clock: () => now });
  });
  afterEach(async function () {
    for (const client of clients.splice(0)) await client.dispose();
    for (const socket of sockets.splice(0)) socket.close();
  });
  after(async function () {
    await app.close();
  });

  /** The first answer of one graphql-ws operation, from `ip` with `key`. */
  const graphqlWsOperation = (ip: string, key: string) =>
    new Promise<any>((resolve) => {
      const client = createClient({
        url: app.url.replace("http", "ws") + "/graphql",
        webSocketImpl: class extends WebSocket {
          constructor(url: string, protocols?: string | string[]) {
            super(url, protocols, { headers: { "X-Forwarded-For": ip } });
          }
        },
        connectionParams: { authorization: `Bearer ${key}` },
        retryAttempts: 0,
      });
      clients.push(client);
      const stop = client.subscribe(
        { query: "{ __typename }" },
        {
          next: (message) => (stop(), resolve(message)),
          error: (errors) => resolve({ errors }),
          complete: () => undefined,
        },
      );
    });

  it("free keys multiply the per-IP budget: keys used over graphql-ws and /ws draw on the IP's one keyed budget", async function () {
    const ip = "10.8.5.1";
    const restKey = await walletKey(app.url, "10.8.5.8");
    const socketKey = await walletKey(app.url, "10.8.5.9");
    const rest = await readsInTurn(app.url, ip, [restKey], 300);
    expect(statusCounts(rest)).to.deep.equal({ 200: 300 });
    const message = sharedRefusal(300, 50);

    // Another free key on the sockets of this IP: refused, though its own budget is untouched.
    expect(await graphqlWsOperation(ip, socketKey)).to.deep.equal({
      errors: [
        {
          message,
          extensions: {
            code: "RATE_LIMITED",
            tier: "authenticated",
            window: "minute",
            limit: 300,
            reset: MINUTE_END,
            retryAfter: 50,
          },
        },
      ],
    });
    const socket = await WsTestClient.connect(app.url, { ip });
    sockets.push(socket);
    expect((await socket.request({ type: "auth", token: socketKey })).type).to.equal("authenticated");
    expect(await socket.request({ type: "nope" })).to.deep.equal({
      type: "error",
      code: "RATE_LIMITED",
      message,
      retryAfterSeconds: 50,
    });

    // From another address the same key is served.
    expect(await graphqlWsOperation("10.8.5.2", socketKey)).to.deep.equal({ data: { __typename: "Query" } });
  });
});
