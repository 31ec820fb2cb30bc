import { expect } from "chai";
import { Wallet } from "ethers";
import Redis from "ioredis";
import { randomBytes } from "node:crypto";
import { generateApiKey, hashApiKey } from "../../../../../api/src/domain/apiKeys";
import { createMemoryStore } from "../../../../../api/src/store/memory";
import { call, manualClock, startAccessApp, type AccessTestApp, type Reply } from "../../../helpers/dataAccessApp";
import { dropMongoStore, freshMongoStore } from "../../../helpers/mongo";
import { testRedisUrl } from "../../../helpers/redis";
import { sampleAgent } from "../../../store/conformance";

/** Issuing data keys: limits per IP and per owner, a nonce spent only by a key issued, no-store on key answers. */

/** 12:00 UTC: the hour and day windows end at 13:00 and at midnight. */
const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const HOUR = 3_600_000;

interface Proof {
  wallet: string;
  nonce: string;
  signature: string;
}

async function walletProof(base: string, wallet = Wallet.createRandom()): Promise<Proof> {
  const nonce = await call(base, "GET", `/v1/auth/nonce?wallet=${wallet.address}`);
  expect(nonce.status, JSON.stringify(nonce.body)).to.equal(200);
  return {
    wallet: wallet.address,
    nonce: nonce.body.nonce as string,
    signature: await wallet.signMessage(nonce.body.message as string),
  };
}

function issue(base: string, proof: Proof, ip: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  return call(base, "POST", "/v1/auth/keys", { body: { ...extra, ...proof }, ip });
}

function expectRefused(reply: Reply, status: number, code: string, message?: string): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(status);
  expect(reply.body.error?.code).to.equal(code);
  if (message !== undefined) expect(reply.body.error?.message).to.equal(message);
}

describe("data keys: issuance", function () {
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

  it("free keys multiply the per-IP budget: 20 wallet keys minted from one IP get 5, then 429 with Retry-After and the bound", async function () {
    const replies: Reply[] = [];
    for (let i = 0; i < 20; i += 1) replies.push(await issue(api.url, await walletProof(api.url), "10.2.0.1"));
    expect(replies.map((reply) => reply.status)).to.deep.equal([...Array(5).fill(201), ...Array(15).fill(429)]);
    expectRefused(
      replies[5],
      429,
      "RATE_LIMITED",
      "key issuance limit reached: 5 keys per hour per IP address; retry in 3600 s",
    );
    expect(replies[5].headers.get("retry-after")).to.equal("3600");
    expect(replies[5].body.error?.details).to.deep.equal({
      limited: "key_issuance",
      counted_by: "ip",
      window: "hour",
      limit: 5,
      reset: (T0 + HOUR) / 1000,
    });
    // Another address is not held back by this one.
    expect((await issue(api.url, await walletProof(api.url), "10.2.0.2")).status).to.equal(201);
    // Twenty a day: four more hours of five, then the day binds until midnight.
    for (let hour = 1; hour <= 3; hour += 1) {
      clock.set(T0 + hour * HOUR);
      for (let i = 0; i < 5; i += 1)
        expect((await issue(api.url, await walletProof(api.url), "10.2.0.1")).status).to.equal(201);
    }
    clock.set(T0 + 4 * HOUR);
    const daily = await issue(api.url, await walletProof(api.url), "10.2.0.1");
    expectRefused(
      daily,
      429,
      "RATE_LIMITED",
      "key issuance limit reached: 20 keys per day per IP address; retry in 28800 s",
    );
    expect(daily.headers.get("retry-after")).to.equal("28800");
  });

  it("free keys multiply the per-IP budget: one wallet gets 5 keys an hour whatever its addresses", async function () {
    const wallet = Wallet.createRandom();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push((await issue(api.url, await walletProof(api.url, wallet), `10.3.0.${i}`)).status);
    }
    expect(statuses).to.deep.equal([201, 201, 201, 201, 201, 429]);
    const refused = await issue(api.url, await walletProof(api.url, wallet), "10.3.0.9");
    expectRefused(
      refused,
      429,
      "RATE_LIMITED",
      "key issuance limit reached: 5 keys per hour per owner; retry in 3600 s",
    );
  });

  it("a refused key request does not use up its nonce: scope, tier and limit refusals, then the same proof succeeds", async function () {
    const proof = await walletProof(api.url);
    expectRefused(
      await issue(api.url, proof, "10.4.0.1", { scopes: ["nodes:write"] }),
      400,
      "INVALID_SCOPES",
      "scopes: nodes:write is only granted to Node Operator keys (issued by an operator)",
    );
    expectRefused(
      await issue(api.url, proof, "10.4.0.1", { tier: "node_operator" }),
      400,
      "INVALID_TIER",
      "tier: only an operator key may set it",
    );
    expectRefused(await issue(api.url, proof, "10.4.0.1", { scopes: ["nope"] }), 400, "INVALID_SCOPES");
    // The address's issuance count is full: refused, nonce kept.
    for (let i = 0; i < 5; i += 1) await issue(api.url, await walletProof(api.url), "10.4.0.2");
    expectRefused(await issue(api.url, proof, "10.4.0.2"), 429, "RATE_LIMITED");
    const issued = await issue(api.url, proof, "10.4.0.1");
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    // Once a key is issued, the nonce is spent.
    expectRefused(
      await issue(api.url, proof, "10.4.0.1"),
      400,
      "INVALID_NONCE",
      "nonce: already used; request a new nonce",
    );
  });

  it("a refused key request does not use up its nonce in the MongoDB store either", async function () {
    const store = await freshMongoStore("issuance_nonce");
    const other = await startAccessApp({ clock: clock.now, store });
    try {
      const proof = await walletProof(other.url);
      expectRefused(await issue(other.url, proof, "10.5.0.1", { scopes: ["nodes:write"] }), 400, "INVALID_SCOPES");
      expect((await store.nonces.find(proof.nonce))?.consumedAt).to.equal(undefined);
      expect((await issue(other.url, proof, "10.5.0.1")).status).to.equal(201);
      expect((await store.nonces.find(proof.nonce))?.consumedAt).to.be.instanceOf(Date);
    } finally {
      await other.close();
      await dropMongoStore(store);
    }
  });

  it("key answers are not cached: no-store on token-info, the key list, revocation, issuance and nonces", async function () {
    const agentKey = generateApiKey();
    const store = createMemoryStore();
    await store.agents.insert(sampleAgent({ apiKeyHash: hashApiKey(agentKey) }));
    const other = await startAccessApp({ clock: clock.now, store });
    try {
      const issued = await call(other.url, "POST", "/v1/auth/keys", {
        headers: { "X-API-Key": agentKey },
        body: { scopes: ["vaults:read", "keys:manage"] },
      });
      const key = issued.body.key as string;
      const replies = [
        issued,
        await call(other.url, "GET", "/v1/auth/token-info", { headers: { Authorization: `Bearer ${key}` } }),
        await call(other.url, "GET", "/v1/auth/keys", { headers: { Authorization: `Bearer ${key}` } }),
        await call(other.url, "GET", "/v1/auth/keys", { headers: { "X-API-Key": agentKey } }),
        await call(other.url, "GET", "/v1/rate-limit-status", { headers: { Authorization: `Bearer ${key}` } }),
        await call(other.url, "GET", `/v1/auth/nonce?wallet=${Wallet.createRandom().address}`),
        await call(other.url, "DELETE", `/v1/auth/keys/${String(issued.body.key_id)}`, {
          headers: { Authorization: `Bearer ${key}` },
        }),
      ];
      expect(replies.map((reply) => reply.status)).to.deep.equal([201, 200, 200, 200, 200, 200, 200]);
      expect(replies.map((reply) => reply.headers.get("cache-control"))).to.deep.equal(Array(7).fill("no-store"));
    } finally {
      await other.close();
    }
  });
});

describe("data keys: issuance limits shared by two instances through Redis", function () {
  let redis: Redis;
  before(async function () {
    redis = new Redis(await testRedisUrl(), { lazyConnect: true, maxRetriesPerRequest: 2 });
    await redis.connect();
  });
  after(async function () {
    await redis.quit();
  });

  it("free keys multiply the per-IP budget: two instances share one IP's five keys an hour", async function () {
    const clock = manualClock(T0);
    const prefix = `test-${randomBytes(4).toString("hex")}`;
    const second = redis.duplicate();
    await second.connect();
    const first = await startAccessApp({ clock: clock.now, redis, redisPrefix: prefix });
    const other = await startAccessApp({ clock: clock.now, redis: second, redisPrefix: prefix });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1) {
        const base = [first, other][i % 2].url;
        statuses.push((await issue(base, await walletProof(base), "10.6.0.1")).status);
      }
      expect(statuses).to.deep.equal([201, 201, 201, 201, 201, 429]);
    } finally {
      await first.close();
      await other.close();
      await second.quit();
    }
  });
});
