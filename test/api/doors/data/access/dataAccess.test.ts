import { expect } from "chai";
import { Wallet } from "ethers";
import Redis from "ioredis";
import { randomBytes } from "node:crypto";
import { generateApiKey, hashApiKey } from "../../../../../api/src/domain/apiKeys";
import { buildSignInMessage } from "../../../../../api/src/domain/signInMessage";
import { createNodeHeartbeat, TIER_LIMITS } from "../../../../../api/src/doors/data/access";
import { createMemoryStore } from "../../../../../api/src/store/memory";
import { createLogger } from "../../../../../api/src/logger";
import {
  call,
  CHAIN_ID,
  manualClock,
  OPERATOR_KEY,
  PUBLIC_URL,
  startAccessApp,
  type AccessTestApp,
  type Reply,
} from "../../../helpers/dataAccessApp";
import { testRedisUrl } from "../../../helpers/redis";
import { sampleAgent } from "../../../store/conformance";

/** The data API's access layer through HTTP: keys, scopes, tiers, limits and their headers, nodes. */

/** A minute boundary, so that window ends are easy to state. */
const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const MINUTE_END = T0 / 1000 + 60;
const DAY_END = Date.UTC(2026, 5, 2) / 1000;

function expectHeaders(reply: Reply, limit: number, remaining: number, reset: number): void {
  expect(reply.headers.get("x-ratelimit-limit")).to.equal(String(limit));
  expect(reply.headers.get("x-ratelimit-remaining")).to.equal(String(remaining));
  expect(reply.headers.get("x-ratelimit-reset")).to.equal(String(reset));
}

function expectError(reply: Reply, status: number, code: string, message: string | RegExp): void {
  expect(reply.status, JSON.stringify(reply.body)).to.equal(status);
  expect(reply.body.error?.code).to.equal(code);
  if (typeof message === "string") expect(reply.body.error?.message).to.equal(message);
  else expect(reply.body.error?.message).to.match(message);
  expect(reply.body.error).to.have.property("details");
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe("data API access layer (HTTP)", function () {
  let clock: ReturnType<typeof manualClock>;
  let api: AccessTestApp;
  const agentKey = generateApiKey();
  const agent = sampleAgent({ apiKeyHash: hashApiKey(agentKey) });

  beforeEach(async function () {
    clock = manualClock(T0);
    const store = createMemoryStore();
    await store.agents.insert(agent);
    api = await startAccessApp({ store, clock: clock.now });
  });
  afterEach(async function () {
    await api.close();
  });

  async function issueForAgent(body: Record<string, unknown> = {}, key = agentKey): Promise<Reply> {
    return call(api.url, "POST", "/v1/auth/keys", { headers: { "X-API-Key": key }, body, ip: "10.0.0.99" });
  }

  async function agentDataKey(body: Record<string, unknown> = {}): Promise<string> {
    const reply = await issueForAgent(body);
    expect(reply.status, JSON.stringify(reply.body)).to.equal(201);
    return reply.body.key as string;
  }

  async function operatorDataKey(body: Record<string, unknown> = {}): Promise<Reply> {
    return call(api.url, "POST", "/v1/auth/keys", { headers: { "X-API-Key": OPERATOR_KEY }, body, ip: "10.0.0.98" });
  }

  describe("tiers and headers", function () {
    it("serves public reads without a key on the Public tier, with the minute window in the headers", async function () {
      const reply = await call(api.url, "GET", "/v1/vaults", { ip: "10.0.0.1" });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({ vaults: [], tier: "public" });
      expectHeaders(reply, 60, 59, MINUTE_END);
      expect(reply.headers.get("retry-after")).to.equal(null);
    });

    it("counts an Authenticated key per key at 300 per minute, apart from its IP's Public budget", async function () {
      const key = await agentDataKey();
      for (let i = 0; i < 60; i += 1) await call(api.url, "GET", "/v1/vaults", { ip: "10.0.0.2" });
      expectError(await call(api.url, "GET", "/v1/vaults", { ip: "10.0.0.2" }), 429, "RATE_LIMITED", /^rate limit/);
      const keyed = await call(api.url, "GET", "/v1/vaults", { ip: "10.0.0.2", headers: bearer(key) });
      expect(keyed.status).to.equal(200);
      expect(keyed.body.tier).to.equal("authenticated");
      expectHeaders(keyed, 300, 299, MINUTE_END);
      // The same key from another address shares the key's budget.
      expectHeaders(
        await call(api.url, "GET", "/v1/vaults", { ip: "10.0.0.3", headers: bearer(key) }),
        300,
        298,
        MINUTE_END,
      );
    });

    it("gives a Node Operator key 1,000 per minute and no daily cap", async function () {
      const issued = await operatorDataKey({ owner: "acme" });
      const key = issued.body.key as string;
      const reply = await call(api.url, "GET", "/v1/rate-limit-status", { headers: bearer(key) });
      expectHeaders(reply, 1000, 999, MINUTE_END);
      expect(reply.body).to.deep.equal({
        tier: "node_operator",
        counted_by: "key",
        key_id: issued.body.key_id,
        enforced: true,
        limits: { minute: { limit: 1000, remaining: 999, reset: MINUTE_END }, day: null },
        headers_window: "minute",
      });
    });

    it("reports the Public tier's minute and day windows in /v1/rate-limit-status", async function () {
      await call(api.url, "GET", "/v1/vaults", { ip: "10.0.0.4" });
      const reply = await call(api.url, "GET", "/v1/rate-limit-status", { ip: "10.0.0.4" });
      expectHeaders(reply, 60, 58, MINUTE_END);
      expect(reply.body).to.deep.equal({
        tier: "public",
        counted_by: "ip",
        key_id: null,
        enforced: true,
        limits: {
          minute: { limit: 60, remaining: 58, reset: MINUTE_END },
          day: { limit: 10_000, remaining: 9_998, reset: DAY_END },
        },
        headers_window: "minute",
      });
    });

    it("keeps the headers on an error of a route behind it and leaves other paths alone", async function () {
      const failed = await call(api.url, "GET", "/v1/status", { ip: "10.0.0.5" });
      expect(failed.status).to.equal(418);
      expectHeaders(failed, 60, 59, MINUTE_END);
      const outside = await call(api.url, "GET", "/api/v1/agents", { ip: "10.0.0.5", headers: { "X-API-Key": "x" } });
      expect(outside.status).to.equal(200);
      expect(outside.headers.get("x-ratelimit-limit")).to.equal(null);
    });

    it("answers 429 with Retry-After after the minute budget, and serves again in the next minute", async function () {
      for (let i = 0; i < 60; i += 1) {
        expectHeaders(await call(api.url, "GET", "/v1/vaults", { ip: "10.0.1.1" }), 60, 59 - i, MINUTE_END);
      }
      clock.advance(20_500);
      const refused = await call(api.url, "GET", "/v1/vaults", { ip: "10.0.1.1" });
      expectError(
        refused,
        429,
        "RATE_LIMITED",
        "rate limit exceeded: 60 requests per minute on the public tier; retry in 40 s",
      );
      expect(refused.body.error?.details).to.deep.equal({
        tier: "public",
        window: "minute",
        limit: 60,
        reset: MINUTE_END,
      });
      expect(refused.headers.get("retry-after")).to.equal("40");
      expectHeaders(refused, 60, 0, MINUTE_END);
      // Another address is not affected.
      expect((await call(api.url, "GET", "/v1/vaults", { ip: "10.0.1.2" })).status).to.equal(200);
      clock.set(T0 + 60_000);
      const again = await call(api.url, "GET", "/v1/vaults", { ip: "10.0.1.1" });
      expect(again.status).to.equal(200);
      expectHeaders(again, 60, 59, MINUTE_END + 60);
    });
  });

  describe("401 answers", function () {
    it("token-info without a key", async function () {
      const reply = await call(api.url, "GET", "/v1/auth/token-info");
      expectError(reply, 401, "UNAUTHORIZED", "token-info needs a key: send `Authorization: Bearer <key>`");
      expect(reply.headers.get("www-authenticate")).to.equal('Bearer realm="nap-data"');
      expectHeaders(reply, 60, 59, MINUTE_END);
    });

    it("a bare Authorization value, another scheme, and X-API-KEY", async function () {
      const key = await agentDataKey();
      expectError(
        await call(api.url, "GET", "/v1/vaults", { headers: { Authorization: key } }),
        401,
        "UNAUTHORIZED",
        "a bare Authorization value is not accepted: send `Authorization: Bearer <key>`",
      );
      expectError(
        await call(api.url, "GET", "/v1/vaults", { headers: { Authorization: `Basic ${key}` } }),
        401,
        "UNAUTHORIZED",
        "unsupported Authorization scheme: send `Authorization: Bearer <key>`",
      );
      const viaHeader = await call(api.url, "GET", "/v1/vaults", { headers: { "X-API-KEY": key } });
      expectError(
        viaHeader,
        401,
        "UNAUTHORIZED",
        /^the data API does not read X-API-KEY: send the key as `Authorization: Bearer <key>`/,
      );
      // Counted on the IP's Public budget: three refusals and the issuance call came from different addresses.
      expectHeaders(viaHeader, 60, 57, MINUTE_END);
    });

    it("an unknown key, and a live API agent key sent as a Bearer token", async function () {
      expectError(
        await call(api.url, "GET", "/v1/vaults", { headers: bearer(generateApiKey("napd-")) }),
        401,
        "UNAUTHORIZED",
        "unknown API key",
      );
      expectError(
        await call(api.url, "GET", "/v1/vaults", { headers: bearer(agentKey) }),
        401,
        "UNAUTHORIZED",
        /^this is a live API agent key \(X-API-Key of \/api\/v1\): exchange it for a data API key with POST \/v1\/auth\/keys$/,
      );
    });

    it("an expired key, from the second its lifetime ends", async function () {
      const issued = await issueForAgent({ expires_in_days: 1 });
      const key = issued.body.key as string;
      clock.set(T0 + 86_400_000 - 1);
      expect((await call(api.url, "GET", "/v1/vaults", { headers: bearer(key) })).status).to.equal(200);
      clock.set(T0 + 86_400_000);
      const reply = await call(api.url, "GET", "/v1/vaults", { headers: bearer(key) });
      expectError(reply, 401, "UNAUTHORIZED", "API key expired at 2026-06-02T12:00:00.000Z");
      expect(reply.body.error?.details).to.deep.equal({ key_id: issued.body.key_id });
    });

    it("a revoked key", async function () {
      const issued = await issueForAgent({ scopes: ["vaults:read", "keys:manage"] });
      const key = issued.body.key as string;
      clock.advance(5_000);
      const revoked = await call(api.url, "DELETE", `/v1/auth/keys/${String(issued.body.key_id)}`, {
        headers: bearer(key),
      });
      expect(revoked.status).to.equal(200);
      expect(revoked.body).to.include({ state: "revoked", revoked_at: "2026-06-01T12:00:05.000Z" });
      expectError(
        await call(api.url, "GET", "/v1/vaults", { headers: bearer(key) }),
        401,
        "UNAUTHORIZED",
        "API key revoked at 2026-06-01T12:00:05.000Z",
      );
    });

    it("a key without the route's scope gets 401 INSUFFICIENT_SCOPE, and its other scopes still work", async function () {
      const key = await agentDataKey({ scopes: ["users:read"] });
      const reply = await call(api.url, "GET", "/v1/vaults", { headers: bearer(key) });
      expectError(
        reply,
        401,
        "INSUFFICIENT_SCOPE",
        "this key lacks the scope vaults:read that GET /v1/vaults needs; its scopes: users:read",
      );
      expect(reply.body.error?.details).to.include({ required_scope: "vaults:read" });
      expect(reply.headers.get("www-authenticate")).to.equal(
        'Bearer realm="nap-data", error="insufficient_scope", scope="vaults:read"',
      );
      // Counted on the key's own budget.
      expectHeaders(reply, 300, 299, MINUTE_END);
      const allowed = await call(api.url, "GET", "/v1/users/0x0000000000000000000000000000000000000001/positions", {
        headers: bearer(key),
      });
      expect(allowed.status).to.equal(200);
    });
  });

  describe("key issuance and revocation", function () {
    it("issues a key to a live API agent, shows it once and stores only its hash", async function () {
      const reply = await issueForAgent({ name: "reader", scopes: ["vaults:read"], expires_in_days: 30 });
      expect(reply.status).to.equal(201);
      expect(reply.headers.get("cache-control")).to.equal("no-store");
      const key = reply.body.key as string;
      expect(key).to.match(/^napd-[0-9A-Za-z]{32}$/);
      expect(reply.body).to.deep.equal({
        key,
        key_id: reply.body.key_id,
        key_prefix: key.slice(0, 12),
        name: "reader",
        owner: `agent:${agent.agentId}`,
        tier: "authenticated",
        scopes: ["vaults:read"],
        issued_by: `agent:${agent.agentId}`,
        created_at: "2026-06-01T12:00:00.000Z",
        expires_at: "2026-07-01T12:00:00.000Z",
        revoked_at: null,
        state: "active",
      });
      const stored = await api.store.dataKeys.findById(reply.body.key_id as string);
      expect(stored?.keyHash).to.equal(hashApiKey(key));
      expect(JSON.stringify(stored)).to.not.include(key.slice(5));
      // The list (asked with the owner's agent key: this data key may not manage keys) shows it without its secret.
      const listed = await call(api.url, "GET", "/v1/auth/keys", { headers: { "X-API-Key": agentKey } });
      expect(listed.body.owner).to.equal(`agent:${agent.agentId}`);
      expect(JSON.stringify(listed.body)).to.not.include(key.slice(5));
      expect((listed.body.keys as unknown[]).length).to.equal(1);
    });

    it("issues a key to a wallet that signs the nonce's message, once per nonce", async function () {
      const wallet = Wallet.createRandom();
      const nonce = await call(api.url, "GET", `/v1/auth/nonce?wallet=${wallet.address}`);
      expect(nonce.status).to.equal(200);
      expect(nonce.body.expires_in_seconds).to.equal(600);
      expect(nonce.body.message).to.equal(
        [
          "api.nap.test wants you to sign in with your Ethereum account:",
          wallet.address,
          "",
          "I authorize the NAP data API to issue an API key for this wallet.",
          "",
          "URI: http://api.nap.test",
          "Version: 1",
          `Chain ID: ${CHAIN_ID}`,
          `Nonce: ${String(nonce.body.nonce)}`,
          "Issued At: 2026-06-01T12:00:00Z",
          "Expiration Time: 2026-06-01T12:10:00Z",
          `Request ID: ${T0 / 1000}`,
        ].join("\n"),
      );
      const proof = {
        wallet: wallet.address,
        nonce: nonce.body.nonce,
        signature: await wallet.signMessage(nonce.body.message as string),
      };
      const issued = await call(api.url, "POST", "/v1/auth/keys", { body: proof });
      expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
      expect(issued.body).to.include({
        owner: `wallet:${wallet.address.toLowerCase()}`,
        tier: "authenticated",
      });
      expect(issued.body.scopes).to.deep.equal(["vaults:read", "users:read", "nodes:read"]);
      const info = await call(api.url, "GET", "/v1/auth/token-info", { headers: bearer(issued.body.key as string) });
      expect(info.body).to.include({
        key_id: issued.body.key_id,
        tier: "authenticated",
        expires_in_seconds: 90 * 86_400,
      });
      expect(info.body.permissions).to.deep.equal(["vaults:read", "users:read", "nodes:read"]);
      expect(info.body.limits).to.deep.equal({
        minute: { limit: 300, remaining: 299, reset: MINUTE_END },
        day: { limit: 100_000, remaining: 99_999, reset: DAY_END },
      });
      // Replaying the proof.
      expectError(
        await call(api.url, "POST", "/v1/auth/keys", { body: proof }),
        400,
        "INVALID_NONCE",
        "nonce: already used; request a new nonce",
      );
    });

    it("refuses a signature made for agent registration (another purpose) over the same nonce", async function () {
      const wallet = Wallet.createRandom();
      const nonce = await call(api.url, "GET", `/v1/auth/nonce?wallet=${wallet.address}`);
      const registrationMessage = buildSignInMessage({
        domain: "api.nap.test",
        uri: PUBLIC_URL,
        chainId: CHAIN_ID,
        walletAddress: wallet.address,
        nonce: nonce.body.nonce as string,
        issuedAt: new Date(T0),
        expiresAt: new Date(T0 + 600_000),
      });
      const reply = await call(api.url, "POST", "/v1/auth/keys", {
        body: {
          wallet: wallet.address,
          nonce: nonce.body.nonce,
          signature: await wallet.signMessage(registrationMessage),
        },
      });
      expectError(
        reply,
        400,
        "INVALID_SIGNATURE",
        "signature: not a valid signature by `wallet` of the message issued with this nonce",
      );
    });

    it("issues Node Operator keys with nodes:write to an operator key only", async function () {
      const issued = await operatorDataKey({ owner: "acme", scopes: ["nodes:read", "nodes:write"] });
      expect(issued.status).to.equal(201);
      expect(issued.body).to.include({ owner: "operator:acme", tier: "node_operator", issued_by: "operator:1" });
      expectError(
        await issueForAgent({ scopes: ["nodes:write"] }),
        400,
        "INVALID_SCOPES",
        "scopes: nodes:write is only granted to Node Operator keys (issued by an operator)",
      );
      expectError(
        await issueForAgent({ tier: "node_operator" }),
        400,
        "INVALID_TIER",
        "tier: only an operator key may set it",
      );
      expectError(
        await operatorDataKey({ tier: "authenticated", scopes: ["nodes:write"] }),
        400,
        "INVALID_SCOPES",
        "scopes: nodes:write is only granted to Node Operator keys (issued by an operator)",
      );
    });

    it("names the field of bad input", async function () {
      expectError(await issueForAgent({ expires_in_days: 0 }), 400, "INVALID_EXPIRES_IN_DAYS", /^expires_in_days: /);
      expectError(await issueForAgent({ expires_in_days: 366 }), 400, "INVALID_EXPIRES_IN_DAYS", /^expires_in_days: /);
      expectError(await issueForAgent({ scopes: ["vaults:admin"] }), 400, "INVALID_SCOPES", /^scopes: 0: /);
      expectError(await issueForAgent({ colour: "red" }), 400, "INVALID_BODY", /^body: .*colour/);
      expectError(
        await call(api.url, "GET", "/v1/auth/nonce?wallet=0x123"),
        400,
        "INVALID_WALLET",
        "wallet: must be a 0x-prefixed 42-character hex address",
      );
      expectError(
        await call(api.url, "POST", "/v1/auth/keys", { body: { wallet: Wallet.createRandom().address } }),
        400,
        "INVALID_NONCE",
        "nonce: required with a wallet signature",
      );
      expectError(
        await call(api.url, "DELETE", "/v1/auth/keys/nope", { headers: { "X-API-Key": agentKey } }),
        400,
        "INVALID_KEY_ID",
        "key_id: must be dk_ and 16 hex characters",
      );
    });

    it("refuses to issue without proof, with an unknown X-API-Key, or to a data key", async function () {
      expectError(
        await call(api.url, "POST", "/v1/auth/keys", { body: {} }),
        401,
        "UNAUTHORIZED",
        /^issuing a key needs X-API-Key/,
      );
      expectError(
        await issueForAgent({}, generateApiKey()),
        401,
        "UNAUTHORIZED",
        "unknown X-API-Key: send a live API agent key or an operator key",
      );
      const key = await agentDataKey();
      expectError(
        await call(api.url, "POST", "/v1/auth/keys", { headers: bearer(key), body: {} }),
        401,
        "UNAUTHORIZED",
        "a data key cannot issue keys: send X-API-Key (agent or operator) or a wallet signature",
      );
    });

    it("key flooding by one agent stops at 10 active keys, and a revocation frees a place", async function () {
      // Each from its own address and five an hour, within the issuance limits, so that only the key count binds.
      const fromIp = (i: number) =>
        call(api.url, "POST", "/v1/auth/keys", { headers: { "X-API-Key": agentKey }, body: {}, ip: `10.0.1.${i}` });
      const ids: string[] = [];
      for (let i = 0; i < 10; i += 1) {
        if (i === 5) clock.advance(3_600_000);
        ids.push((await fromIp(i)).body.key_id as string);
      }
      const refused = await fromIp(10);
      expectError(
        refused,
        409,
        "KEY_LIMIT_REACHED",
        `agent:${agent.agentId} already holds 10 active keys: revoke one with DELETE /v1/auth/keys/{key_id}`,
      );
      const revoked = await call(api.url, "DELETE", `/v1/auth/keys/${ids[0]}`, { headers: { "X-API-Key": agentKey } });
      expect(revoked.status).to.equal(200);
      clock.advance(86_400_000); // the owner's ten issuances of the day are spent
      expect((await fromIp(11)).status).to.equal(201);
    });

    it("revoking another owner's key is answered 404 as for an unknown key; an operator may revoke any", async function () {
      const victim = await issueForAgent();
      const wallet = Wallet.createRandom();
      const nonce = await call(api.url, "GET", `/v1/auth/nonce?wallet=${wallet.address}`);
      const attacker = await call(api.url, "POST", "/v1/auth/keys", {
        body: {
          scopes: ["keys:manage"],
          wallet: wallet.address,
          nonce: nonce.body.nonce,
          signature: await wallet.signMessage(nonce.body.message as string),
        },
      });
      const path = `/v1/auth/keys/${String(victim.body.key_id)}`;
      expectError(
        await call(api.url, "DELETE", path, { headers: bearer(attacker.body.key as string) }),
        404,
        "KEY_NOT_FOUND",
        `no key ${String(victim.body.key_id)} among this caller's keys`,
      );
      expect(
        (await call(api.url, "GET", "/v1/vaults", { headers: bearer(victim.body.key as string) })).status,
      ).to.equal(200);
      const byOperator = await call(api.url, "DELETE", path, { headers: { "X-API-Key": OPERATOR_KEY } });
      expect(byOperator.body).to.include({ state: "revoked" });
    });
  });

  describe("nodes", function () {
    it("lists this deployment's instances by their heartbeats, up, stale then down", async function () {
      const beat = createNodeHeartbeat({
        store: api.store.nodes,
        logger: createLogger("silent"),
        version: "0.1.0",
        url: PUBLIC_URL,
        clock: clock.now,
        nodeId: "node-1",
        holdsIndexerLease: () => true,
      });
      await beat.beat();
      const listed = async () => (await call(api.url, "GET", "/v1/nodes", { ip: "10.0.3.1" })).body;
      expect(await listed()).to.deep.equal({
        nodes: [
          {
            node_id: "node-1",
            role: "api+indexer",
            version: "0.1.0",
            url: PUBLIC_URL,
            status: "up",
            started_at: "2026-06-01T12:00:00.000Z",
            last_heartbeat_at: "2026-06-01T12:00:00.000Z",
            external: false,
          },
        ],
        summary: { total: 1, up: 1, stale: 0, down: 0 },
        heartbeat_interval_seconds: 15,
      });
      clock.advance(45_001);
      expect((await listed()).summary).to.deep.equal({ total: 1, up: 0, stale: 1, down: 0 });
      clock.advance(255_000);
      expect((await listed()).summary).to.deep.equal({ total: 1, up: 0, stale: 0, down: 1 });
      await beat.beat();
      expect((await listed()).summary).to.deep.equal({ total: 1, up: 1, stale: 0, down: 0 });
    });

    it("lets a Node Operator key register an external node, and refuses a node id takeover by another operator", async function () {
      const acme = (await operatorDataKey({ owner: "acme", scopes: ["nodes:write"] })).body.key as string;
      const mallory = (await operatorDataKey({ owner: "mallory", scopes: ["nodes:write"] })).body.key as string;
      const registered = await call(api.url, "POST", "/v1/nodes/heartbeat", {
        headers: bearer(acme),
        body: { node_id: "acme-1", version: "0.1.0", url: "https://nap.acme.example" },
      });
      expect(registered.status, JSON.stringify(registered.body)).to.equal(200);
      expect(registered.body).to.include({ node_id: "acme-1", role: "external", status: "up", external: true });
      expectError(
        await call(api.url, "POST", "/v1/nodes/heartbeat", {
          headers: bearer(mallory),
          body: { node_id: "acme-1", version: "6.6.6", url: "https://evil.example" },
        }),
        409,
        "NODE_ID_TAKEN",
        "node id acme-1 is registered by someone else",
      );
      const reader = await agentDataKey();
      expectError(
        await call(api.url, "POST", "/v1/nodes/heartbeat", {
          headers: bearer(reader),
          body: { node_id: "x", version: "1" },
        }),
        401,
        "INSUFFICIENT_SCOPE",
        /^this key lacks the scope nodes:write/,
      );
      expectError(
        await call(api.url, "POST", "/v1/nodes/heartbeat", { body: { node_id: "x", version: "1" } }),
        401,
        "UNAUTHORIZED",
        "registering a node needs a Node Operator key with the nodes:write scope",
      );
    });

    it("attack: a heartbeat url no URL parser accepts (a NUL, a lone surrogate, no scheme) is refused 400 INVALID_URL, not a 500", async function () {
      const acme = (await operatorDataKey({ owner: "acme-url", scopes: ["nodes:write"] })).body.key as string;
      for (const url of ["a\u0000b", "\udb72", "I`\u00e1\udb72\udddb", "a", "ftp://nap.example"]) {
        expectError(
          await call(api.url, "POST", "/v1/nodes/heartbeat", {
            headers: bearer(acme),
            body: { node_id: "acme-url-1", version: "0.1.0", url },
          }),
          400,
          "INVALID_URL",
          /^url: /,
        );
      }
    });
  });
});

describe("data API access layer: windows crossed with the injected clock", function () {
  const small = { ...TIER_LIMITS, public: { minute: 3, day: 5 } };

  it("refuses after the day budget until the next UTC day, and a refused request uses none of the day", async function () {
    const clock = manualClock(T0);
    const api = await startAccessApp({ clock: clock.now, limits: small });
    try {
      const get = () => call(api.url, "GET", "/v1/vaults", { ip: "10.0.2.1" });
      expectHeaders(await get(), 3, 2, MINUTE_END);
      expectHeaders(await get(), 3, 1, MINUTE_END);
      // Minute 0 remaining, day 2 remaining: the minute binds.
      expectHeaders(await get(), 3, 0, MINUTE_END);
      const minuteRefusal = await get();
      expect(minuteRefusal.status).to.equal(429);
      expect(minuteRefusal.headers.get("retry-after")).to.equal("60");
      clock.set(T0 + 60_000);
      // Day: 4th admitted request; minute 2 left, day 1 left: the day binds.
      expectHeaders(await get(), 5, 1, DAY_END);
      expectHeaders(await get(), 5, 0, DAY_END);
      clock.advance(30_000);
      const dayRefusal = await get();
      expectError(
        dayRefusal,
        429,
        "RATE_LIMITED",
        /^rate limit exceeded: 5 requests per day on the public tier; retry in 43110 s$/,
      );
      expect(dayRefusal.headers.get("retry-after")).to.equal(String(DAY_END - (T0 + 90_000) / 1000));
      expectHeaders(dayRefusal, 5, 0, DAY_END);
      clock.set(T0 + 3_600_000);
      expect((await get()).status).to.equal(429);
      clock.set(DAY_END * 1000);
      const nextDay = await get();
      expect(nextDay.status).to.equal(200);
      expectHeaders(nextDay, 3, 2, DAY_END + 60);
    } finally {
      await api.close();
    }
  });

  it("sets no X-RateLimit headers when rate limits are disabled", async function () {
    const api = await startAccessApp({ clock: () => new Date(T0), rateLimitsDisabled: true });
    try {
      const reply = await call(api.url, "GET", "/v1/rate-limit-status");
      expect(reply.headers.get("x-ratelimit-limit")).to.equal(null);
      expect(reply.body).to.deep.include({ enforced: false, headers_window: null });
      expect(reply.body.limits).to.deep.equal({
        minute: { limit: 60, remaining: null, reset: null },
        day: { limit: 10_000, remaining: null, reset: null },
      });
    } finally {
      await api.close();
    }
  });
});

describe("data API access layer: limits shared by two instances through Redis", function () {
  let redis: Redis;
  before(async function () {
    redis = new Redis(await testRedisUrl(), { lazyConnect: true, maxRetriesPerRequest: 2 });
    await redis.connect();
  });
  after(async function () {
    await redis.quit();
  });

  it("counts one budget across both instances, per minute and per day, with the same headers", async function () {
    const clock = manualClock(T0);
    const prefix = `test-${randomBytes(4).toString("hex")}`;
    const limits = { ...TIER_LIMITS, public: { minute: 4, day: 6 } };
    // Each instance has its own Redis connection, as two processes would.
    const second = redis.duplicate();
    await second.connect();
    const first = await startAccessApp({ clock: clock.now, limits, redis, redisPrefix: prefix });
    const other = await startAccessApp({ clock: clock.now, limits, redis: second, redisPrefix: prefix });
    try {
      const apps = [first, other];
      const replies: Reply[] = [];
      for (let i = 0; i < 5; i += 1) replies.push(await call(apps[i % 2].url, "GET", "/v1/vaults", { ip: "10.9.0.1" }));
      expect(replies.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 429]);
      expect(replies.map((r) => r.headers.get("x-ratelimit-remaining"))).to.deep.equal(["3", "2", "1", "0", "0"]);
      expect(replies[4].headers.get("retry-after")).to.equal("60");
      clock.set(T0 + 60_000);
      const next = [
        await call(other.url, "GET", "/v1/vaults", { ip: "10.9.0.1" }),
        await call(first.url, "GET", "/v1/vaults", { ip: "10.9.0.1" }),
        await call(other.url, "GET", "/v1/vaults", { ip: "10.9.0.1" }),
      ];
      expect(next.map((r) => r.status)).to.deep.equal([200, 200, 429]);
      // Minute 3 and 2 left, day 1 and 0 left: the day binds.
      expect(next.map((r) => r.headers.get("x-ratelimit-limit"))).to.deep.equal(["6", "6", "6"]);
      expect(next.map((r) => r.headers.get("x-ratelimit-remaining"))).to.deep.equal(["1", "0", "0"]);
      expect(next[2].body.error?.details).to.deep.include({ window: "day", limit: 6 });
      expect(next[2].headers.get("retry-after")).to.equal(String(DAY_END - (T0 + 60_000) / 1000));
    } finally {
      await first.close();
      await other.close();
      await second.quit();
    }
  });
});
