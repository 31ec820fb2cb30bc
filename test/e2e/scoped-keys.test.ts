import { expect } from "chai";
import type { Wallet } from "ethers";
import type { Deployment } from "../../api/src/chain/deployment";
import { scopedKeyStatement } from "../../api/src/domain/custodyStatements";
import { nextUtcMidnight } from "../../api/src/domain/keyScopes";
import { connectMongoStore, type MongoStore } from "../../api/src/store/mongo";
import { registerAgent, request, startTestApp, type TestApp } from "../api/helpers/app";
import { deployTestSystem } from "../api/helpers/system";
import { ensureMongo } from "../helpers/services";
import {
  client,
  DEV_MNEMONIC,
  OPERATOR_KEY,
  randomWallet,
  serveDeployment,
  startE2eApp,
  type E2eSystem,
} from "./helpers";
import { kill, spawnApi } from "./processes";

type Body = Record<string, unknown>;

const KEY_PATTERN = /^nap-[0-9A-Za-z]{32}$/;
const RAISE =
  "To raise it, issue a key with a higher usdc_per_day: POST /api/v1/agent/keys with the full key, or by the agent's " +
  "wallet signature (POST /api/v1/agents/{agent_id}/keys/nonce, then POST /api/v1/agents/{agent_id}/keys)";

/** The 403 of a request past a scoped key's daily USDC, as the service words it. */
function limitMessage(prefix: string, limit: string, spent: string, needed: string): string {
  const usdc = (units: string) => String(Number(units) / 1e6);
  const resets = nextUtcMidnight(new Date()).toISOString();
  return (
    `usdc_per_day: the scoped key ${prefix} may move ${limit} USDC base units (${usdc(limit)} USDC) out of the ` +
    `agent's wallet per UTC day; spent today: ${spent} (${usdc(spent)} USDC); this request needs ${needed} ` +
    `(${usdc(needed)} USDC); the limit resets at ${resets}. ${RAISE}`
  );
}

/**
 * Scoped keys for handing to an LLM, against two instances of the API over one MongoDB database (and a third started
 * later, as after a restart): what a scoped key reaches, its daily USDC across instances, its expiry and revocation.
 */
describe("E2E: scoped API keys limited in operations and USDC a day, on two instances", function () {
  this.timeout(300_000);

  let deployment: Deployment;
  let system: E2eSystem;
  let storeB: MongoStore;
  let b: TestApp;
  let wallet: Wallet;
  let agentId: string;
  let fullKey: string;

  async function startInstance(clock?: () => Date): Promise<{ app: TestApp; store: MongoStore }> {
    const store = await connectMongoStore({ uri: await ensureMongo(), dbName: system.store.db.databaseName });
    const app = await startTestApp({
      store,
      deployment,
      clock,
      env: { ...system.signer.env, AGENT_API_KEYS: OPERATOR_KEY, INDEXER_ENABLED: "false", STRATEGY_SCREENING: "off" },
      extra: { engineOptions: { pollIntervalMs: 20 } },
    });
    await app.app.useCases.start();
    return { app, store };
  }

  async function issue(body: Body, base = system.app.url): Promise<Body & { api_key: string; api_key_prefix: string }> {
    const response = await client(base, fullKey)<Body & { api_key: string; api_key_prefix: string }>(
      "POST",
      "/api/v1/agent/keys",
      body,
    );
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body;
  }

  const deposit = (base: string, key: string, amount: number, idempotencyKey?: string) =>
    client(base, key)(
      "POST",
      "/api/v1/agent/vault/deposit",
      { vault_id: "moderate", amount_usdc: amount },
      idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {},
    );

  before(async function () {
    deployment = await deployTestSystem();
    system = await startE2eApp("scopedkeys", deployment, { STRATEGY_SCREENING: "off" });
    ({ app: b, store: storeB } = await startInstance());
    wallet = randomWallet();
    const registered = await registerAgent(system.app.url, wallet, { operator_address: randomWallet().address });
    agentId = registered.agentId;
    fullKey = registered.apiKey;
    expect((await client(system.app.url, fullKey)("POST", "/api/v1/agent/faucet")).status).to.equal(200);
  });

  after(async function () {
    await b?.close();
    await storeB?.close();
    await system?.close();
  });

  it("issues a scoped key with the full key: 201, the key once in the full key's format, its scope and a 30-day expiry", async function () {
    const before = Date.now();
    const issued = await issue({ label: "research-llm", operations: ["vault.deposit", "vault.deposit", "exit"] });
    expect(issued.api_key).to.match(KEY_PATTERN);
    const expiresAt = Date.parse(issued.expires_at as string);
    expect(expiresAt - before).to.be.within(30 * 86_400_000, 30 * 86_400_000 + 60_000);
    expect(issued).to.deep.equal({
      success: true,
      agent_id: agentId,
      api_key: issued.api_key,
      api_key_prefix: issued.api_key.slice(0, 12),
      label: "research-llm",
      scope: { read_only: false, operations: ["vault.deposit", "exit"], usdc_per_day: null },
      expires_at: new Date(expiresAt).toISOString(),
    });
    const stored = await storeB.scopedKeys.findById(`${agentId}:${issued.api_key_prefix}`);
    expect(JSON.stringify(stored, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).to.not.contain(
      issued.api_key,
    );
    // Works on the other instance as it is, as X-API-Key.
    expect((await client(b.url, issued.api_key)("GET", "/api/v1/agent/wallet")).status).to.equal(200);
    const tooLong = await client(system.app.url, fullKey)("POST", "/api/v1/agent/keys", {
      read_only: true,
      expires_in_seconds: 365 * 86_400 + 1,
    });
    expect(tooLong.status).to.equal(400);
    expect(tooLong.body.error).to.match(/^expires_in_seconds: /);
  });

  it("attack: a read-only key on a write gets 403 naming the operation and its scope; it reads", async function () {
    const { api_key: key, api_key_prefix: prefix } = await issue({ read_only: true, expires_in_seconds: 3600 });
    for (const path of ["/api/v1/agent/wallet", "/api/v1/agent/vault/positions", "/api/v1/agent/transactions"]) {
      expect((await client(b.url, key)("GET", path)).status, path).to.equal(200);
    }
    const writes: [string, Body, string][] = [
      ["/api/v1/agent/vault/deposit", { vault_id: "moderate", amount_usdc: 1 }, "vault.deposit"],
      ["/api/v1/agent/exit", { asset: "usdc", amount: "1" }, "exit"],
      ["/api/v1/agent/faucet", {}, "faucet"],
      ["/api/v1/agent/vault/withdraw", { vault_id: "moderate", amount_usdc: 1 }, "vault.withdraw"],
    ];
    for (const [path, body, operation] of writes) {
      const refused = await client(b.url, key)("POST", path, body);
      expect(refused.status, path).to.equal(403);
      expect(refused.body).to.deep.equal({
        error:
          `operation ${operation} is outside the scope of the key ${prefix} (scope: read only); a key that may ` +
          "call it: POST /api/v1/agent/keys with the full key",
      });
    }
  });

  it("attack: letter case does not widen a scope: Vault.Deposit is refused at issuance, and vault.withdraw does not reach vault.deposit", async function () {
    const upper = await client(system.app.url, fullKey)("POST", "/api/v1/agent/keys", {
      operations: ["Vault.Deposit"],
    });
    expect(upper.status).to.equal(400);
    expect(upper.body.error).to.match(/^operations\.0: /);
    const { api_key: key, api_key_prefix: prefix } = await issue({ operations: ["vault.withdraw"] });
    const refused = await deposit(system.app.url, key, 1);
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.equal({
      error:
        `operation vault.deposit is outside the scope of the key ${prefix} (scope: reads and vault.withdraw); a key ` +
        "that may call it: POST /api/v1/agent/keys with the full key",
    });
  });

  it("attack: a scoped key cannot issue or revoke keys, nor rotate the full key or change the operator", async function () {
    const { api_key: key, api_key_prefix: prefix } = await issue({ operations: [...allOperations()] });
    const fullKeyOnly =
      `this endpoint needs the agent's full API key: the scoped key ${prefix} (scope: reads and ` +
      `${allOperations().join(", ")}) cannot issue, list others or revoke keys`;
    const issuing = await client(b.url, key)("POST", "/api/v1/agent/keys", { operations: ["exit"] });
    expect(issuing.status).to.equal(403);
    expect(issuing.body).to.deep.equal({ error: fullKeyOnly });
    const revoking = await client(b.url, key)("DELETE", `/api/v1/agent/keys/${prefix}`);
    expect(revoking.status).to.equal(403);
    expect(revoking.body).to.deep.equal({ error: fullKeyOnly });
    // Nor does it stand for the agent at the data API's key issuance, which takes only the full key.
    const dataKey = await client(b.url, key)("POST", "/v1/auth/keys", { name: "from a scoped key" });
    expect(dataKey.status).to.equal(401);
    expect(dataKey.body).to.deep.equal({
      error: {
        code: "UNAUTHORIZED",
        message: "unknown X-API-Key: send a live API agent key or an operator key",
        details: {},
      },
    });
    // A scoped key sees only itself in the key list.
    const listed = await client(b.url, key)<{ keys: Body[] }>("GET", "/api/v1/agent/keys");
    expect(listed.status).to.equal(200);
    expect(listed.body.keys.map((entry) => entry.api_key_prefix)).to.deep.equal([prefix]);
    // Rotation, key revocation and the operator change take no API key: only a wallet's signature, which the holder
    // of a scoped key does not have.
    const thief = randomWallet();
    const rotateNonce = await request<{ nonce: string; message: string }>(
      b.url,
      "POST",
      `/api/v1/agents/${agentId}/key/nonce`,
      { body: { signer_address: thief.address, action: "rotate" }, headers: { "X-API-Key": key } },
    );
    const rotation = await request(b.url, "POST", `/api/v1/agents/${agentId}/key/rotate`, {
      body: { nonce: rotateNonce.body.nonce, signature: await thief.signMessage(rotateNonce.body.message) },
      headers: { "X-API-Key": key },
    });
    expect(rotation.status).to.equal(403);
    expect(rotation.body).to.deep.equal({
      error: "signature: only the agent's wallet (the one that registered it) can rotate its key",
    });
    const operatorNonce = await request<{ nonce: string; message: string }>(
      b.url,
      "POST",
      `/api/v1/agents/${agentId}/operator/nonce`,
      {
        body: { operator_address: thief.address, new_operator_address: thief.address },
        headers: { "X-API-Key": key },
      },
    );
    const change = await request(b.url, "POST", `/api/v1/agents/${agentId}/operator`, {
      body: {
        new_operator_address: thief.address,
        nonce: operatorNonce.body.nonce,
        signature: await thief.signMessage(operatorNonce.body.message),
      },
      headers: { "X-API-Key": key },
    });
    expect(change.status).to.equal(403);
    expect(change.body).to.deep.equal({
      error: "signature: only the agent's current operator address can change its operator",
    });
  });

  it("attack: a scoped key exceeds its daily USDC across two instances over one store (403 naming limit, spent, need, reset, how to raise), and after a restart", async function () {
    const { api_key: key, api_key_prefix: prefix } = await issue({
      operations: ["vault.deposit", "exit"],
      usdc_per_day: "3000000",
    });
    expect((await deposit(system.app.url, key, 2)).status).to.equal(200);
    const over = await deposit(b.url, key, 2);
    expect(over.status).to.equal(403);
    expect(over.body).to.deep.equal({ error: limitMessage(prefix, "3000000", "2000000", "2000000") });
    expect((await deposit(b.url, key, 1)).status).to.equal(200);
    // An exit of USDC counts too, whichever instance takes it.
    const exit = await client(system.app.url, key)("POST", "/api/v1/agent/exit", { asset: "usdc", amount: "1" });
    expect(exit.status).to.equal(403);
    expect(exit.body).to.deep.equal({ error: limitMessage(prefix, "3000000", "3000000", "1") });
    // The full key is not limited.
    expect((await deposit(b.url, fullKey, 1)).status).to.equal(200);

    // A restart: the instance goes away and a new one on the same store counts on from what is recorded.
    await b.close();
    await storeB.close();
    ({ app: b, store: storeB } = await startInstance());
    const afterRestart = await deposit(b.url, key, 1);
    expect(afterRestart.status).to.equal(403);
    expect(afterRestart.body).to.deep.equal({ error: limitMessage(prefix, "3000000", "3000000", "1000000") });
  });

  it("attack: a retry with the same Idempotency-Key, on either instance, is counted once", async function () {
    const { api_key: key, api_key_prefix: prefix } = await issue({
      operations: ["vault.deposit"],
      usdc_per_day: "2000000",
    });
    const first = await deposit(system.app.url, key, 1, "scoped-retry-1");
    expect(first.status).to.equal(200);
    const retried = await deposit(b.url, key, 1, "scoped-retry-1");
    expect(retried.status).to.equal(200);
    expect(retried.body).to.deep.equal(first.body);
    expect((await deposit(b.url, key, 1, "scoped-retry-2")).status).to.equal(200);
    // A deposit the wallet cannot cover is refused before the reservation: it costs the limit nothing.
    const uncovered = await deposit(b.url, key, 1_000_000, "scoped-retry-uncovered");
    expect(uncovered.status).to.equal(400);
    expect(uncovered.body.error).to.match(/^amount_usdc: the agent wallet 0x[0-9a-fA-F]{40} holds /);
    const over = await deposit(system.app.url, key, 1, "scoped-retry-3");
    expect(over.status).to.equal(403);
    expect(over.body).to.deep.equal({ error: limitMessage(prefix, "2000000", "2000000", "1000000") });
  });

  it("attack: concurrent deposits racing the limit on both instances: never more than the limit leaves", async function () {
    const { api_key: key } = await issue({ operations: ["vault.deposit"], usdc_per_day: "2000000" });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => deposit(i % 2 === 0 ? system.app.url : b.url, key, 1)),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses, JSON.stringify(answers.map((answer) => answer.body))).to.deep.equal([
      200, 200, 403, 403, 403, 403,
    ]);
    const keyId = `${agentId}:${key.slice(0, 12)}`;
    expect(await storeB.scopedKeys.spentOn(keyId, new Date().toISOString().slice(0, 10))).to.equal(2_000_000n);
  });

  it("attack: a revoked scoped key stops at once on the other instance (401 naming the revocation)", async function () {
    const { api_key: key, api_key_prefix: prefix } = await issue({ read_only: true });
    expect((await client(b.url, key)("GET", "/api/v1/agent/wallet")).status).to.equal(200);
    const revoked = await client(system.app.url, fullKey)("DELETE", `/api/v1/agent/keys/${prefix}`);
    expect(revoked.status).to.equal(200);
    expect(revoked.body).to.deep.equal({
      success: true,
      agent_id: agentId,
      revoked_api_key_prefix: prefix,
      message: "Scoped key revoked: it no longer works on any instance.",
    });
    const stored = await storeB.scopedKeys.findById(`${agentId}:${prefix}`);
    const refused = await client(b.url, key)("GET", "/api/v1/agent/wallet");
    expect(refused.status).to.equal(401);
    expect(refused.body).to.deep.equal({
      error: `API key ${prefix} was revoked at ${stored!.revokedAt!.toISOString()}`,
    });
    const again = await client(b.url, fullKey)("DELETE", `/api/v1/agent/keys/${prefix}`);
    expect(again.status).to.equal(409);
    const fullPrefix = await client(b.url, fullKey)("DELETE", `/api/v1/agent/keys/${fullKey.slice(0, 12)}`);
    expect(fullPrefix.status).to.equal(404);
    expect(fullPrefix.body).to.deep.equal({
      error:
        `prefix: the agent has no scoped key ${fullKey.slice(0, 12)}; it is the agent's full key, revoked by the ` +
        "wallet's or operator's signature: POST /api/v1/agents/{agent_id}/key/revoke",
    });
  });

  it("the operator revokes a scoped key by its signature, without the full key; the full key keeps working", async function () {
    const operator = randomWallet();
    const agent = await registerAgent(system.app.url, randomWallet(), { operator_address: operator.address });
    const own = client(system.app.url, agent.apiKey);
    const issued = await own<Body & { api_key: string; api_key_prefix: string }>("POST", "/api/v1/agent/keys", {
      read_only: true,
    });
    expect(issued.status).to.equal(201);
    const prefix = issued.body.api_key_prefix;
    const rotateWithPrefix = await request(b.url, "POST", `/api/v1/agents/${agent.agentId}/key/nonce`, {
      body: { signer_address: operator.address, action: "rotate", api_key_prefix: prefix },
    });
    expect(rotateWithPrefix.status).to.equal(400);
    expect(rotateWithPrefix.body).to.deep.equal({ error: "api_key_prefix: only a revocation names a scoped key" });
    const nonce = await request<{ nonce: string; message: string }>(
      b.url,
      "POST",
      `/api/v1/agents/${agent.agentId}/key/nonce`,
      { body: { signer_address: operator.address, action: "revoke", api_key_prefix: prefix } },
    );
    expect(nonce.status, JSON.stringify(nonce.body)).to.equal(200);
    expect(nonce.body.message).to.contain(`I revoke the API key ${prefix} of NAP agent ${agent.agentId}.`);
    const body = { nonce: nonce.body.nonce, signature: await operator.signMessage(nonce.body.message) };
    // The signature names the scoped key: sent without its prefix (for the full key), it does not verify.
    const asFull = await request(b.url, "POST", `/api/v1/agents/${agent.agentId}/key/revoke`, { body });
    expect(asFull.status).to.equal(400);
    const revoked = await request(b.url, "POST", `/api/v1/agents/${agent.agentId}/key/revoke`, {
      body: { ...body, api_key_prefix: prefix },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).to.equal(200);
    expect(revoked.body).to.deep.equal({
      success: true,
      agent_id: agent.agentId,
      revoked_api_key_prefix: prefix,
      message: "Scoped key revoked: it no longer works on any instance.",
    });
    expect((await client(system.app.url, issued.body.api_key)("GET", "/api/v1/agent/wallet")).status).to.equal(401);
    expect((await own("GET", "/api/v1/agent/wallet")).status).to.equal(200);
    const unknown = await request(b.url, "POST", `/api/v1/agents/${agent.agentId}/key/nonce`, {
      body: { signer_address: operator.address, action: "revoke", api_key_prefix: "nap-00000000" },
    });
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({
      error: "api_key_prefix: the agent has no scoped key nap-00000000 (omit api_key_prefix to revoke the full key)",
    });
  });

  it("attack: an expired scoped key answers 401 naming its expiry; the key list shows it expired", async function () {
    const {
      api_key: key,
      api_key_prefix: prefix,
      expires_at: expiresAt,
    } = await issue({
      read_only: true,
      expires_in_seconds: 60,
    });
    expect((await client(b.url, key)("GET", "/api/v1/agent/wallet")).status).to.equal(200);
    // An instance whose clock is two minutes ahead: past the key's expiry.
    const later = await startInstance(() => new Date(Date.now() + 120_000));
    try {
      const refused = await client(later.app.url, key)("GET", "/api/v1/agent/wallet");
      expect(refused.status).to.equal(401);
      expect(refused.body).to.deep.equal({
        error: `API key ${prefix} expired at ${expiresAt as string}; issue a new scoped key: POST /api/v1/agent/keys with the full key`,
      });
      const listed = await client(later.app.url, fullKey)<{ keys: Body[] }>("GET", "/api/v1/agent/keys");
      const entry = listed.body.keys.find((item) => item.api_key_prefix === prefix);
      expect(entry).to.deep.include({ kind: "scoped", state: "expired", expires_at: expiresAt, ended_at: expiresAt });
    } finally {
      await later.app.close();
      await later.store.close();
    }
  });

  it("issues a scoped key by the agent wallet's signature of a message naming the scope; another scope or signer is refused", async function () {
    const scope = {
      label: "signed-llm",
      operations: ["vault.deposit"],
      usdc_per_day: "5000000",
      expires_in_seconds: 86_400,
    };
    const nonce = await request<{ nonce: string; message: string }>(
      b.url,
      "POST",
      `/api/v1/agents/${agentId}/keys/nonce`,
      { body: scope },
    );
    expect(nonce.status, JSON.stringify(nonce.body)).to.equal(200);
    expect(nonce.body.message).to.contain(
      scopedKeyStatement(
        agentId,
        "reads and vault.deposit, at most 5000000 USDC base units a day",
        "signed-llm",
        86_400,
      ),
    );
    expect(nonce.body.message).to.contain(wallet.address);
    const signature = await wallet.signMessage(nonce.body.message);
    // The same signature over a wider scope: the message is rebuilt from the request, so it does not verify.
    const wider = await request(system.app.url, "POST", `/api/v1/agents/${agentId}/keys`, {
      body: { ...scope, usdc_per_day: "500000000", nonce: nonce.body.nonce, signature },
    });
    expect(wider.status).to.equal(400);
    expect(wider.body).to.deep.equal({
      error:
        "signature: not a valid signature by the agent's wallet of the scoped key message issued with this nonce " +
        "(the scope, label and expires_in_seconds must be those sent to the nonce step)",
    });
    const issued = await request<Body & { api_key: string }>(system.app.url, "POST", `/api/v1/agents/${agentId}/keys`, {
      body: { ...scope, nonce: nonce.body.nonce, signature },
    });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    expect(issued.body).to.deep.include({
      success: true,
      agent_id: agentId,
      label: "signed-llm",
      scope: { read_only: false, operations: ["vault.deposit"], usdc_per_day: "5000000" },
    });
    expect(issued.body.api_key).to.match(KEY_PATTERN);
    expect((await client(b.url, issued.body.api_key)("GET", "/api/v1/agent/wallet")).status).to.equal(200);
    const replay = await request(b.url, "POST", `/api/v1/agents/${agentId}/keys`, {
      body: { ...scope, nonce: nonce.body.nonce, signature },
    });
    expect(replay.status).to.equal(400);
    expect(replay.body).to.deep.equal({ error: "nonce: already used; request a new nonce" });
  });

  it("lists the full key and every scoped key for the full key; the full key's rotation leaves scoped keys working", async function () {
    const { api_key: key, api_key_prefix: prefix } = await issue({ read_only: true, label: "survives-rotation" });
    const nonce = await request<{ nonce: string; message: string }>(
      b.url,
      "POST",
      `/api/v1/agents/${agentId}/key/nonce`,
      { body: { signer_address: wallet.address, action: "rotate" } },
    );
    const rotated = await request<{ api_key: string }>(b.url, "POST", `/api/v1/agents/${agentId}/key/rotate`, {
      body: { nonce: nonce.body.nonce, signature: await wallet.signMessage(nonce.body.message) },
    });
    expect(rotated.status).to.equal(200);
    const previous = fullKey;
    fullKey = rotated.body.api_key;
    expect((await client(system.app.url, key)("GET", "/api/v1/agent/wallet")).status).to.equal(200);
    const listed = await client(system.app.url, fullKey)<{ keys: Body[] }>("GET", "/api/v1/agent/keys");
    expect(listed.status).to.equal(200);
    const kinds = listed.body.keys.map((entry) => `${entry.kind}:${entry.state}`);
    expect(kinds.slice(0, 2)).to.deep.equal(["full:active", "full:rotated"]);
    expect(listed.body.keys[1].api_key_prefix).to.equal(previous.slice(0, 12));
    const scoped = listed.body.keys.filter((entry) => entry.kind === "scoped");
    expect(scoped.length).to.equal(listed.body.keys.length - 2);
    expect(scoped[0]).to.deep.include({ api_key_prefix: prefix, label: "survives-rotation", state: "active" });
    expect(scoped.map((entry) => entry.state)).to.include.members(["active", "revoked"]);
  });

  it("attack: the daily USDC limit holds across a restart of the API process (SIGKILL, then a new process on the store)", async function () {
    const agent = await registerAgent(system.app.url, randomWallet());
    const own = client(system.app.url, agent.apiKey);
    expect((await own("POST", "/api/v1/agent/faucet")).status).to.equal(200);
    const issued = await own<Body & { api_key: string; api_key_prefix: string }>("POST", "/api/v1/agent/keys", {
      operations: ["vault.deposit"],
      usdc_per_day: "3000000",
    });
    expect(issued.status).to.equal(201);
    const { api_key: key, api_key_prefix: prefix } = issued.body;
    const rpc = await serveDeployment(deployment);
    const env = {
      RPC_URL: rpc.rpcUrl,
      CHAIN_ID: String(deployment.chainId),
      DEPLOYMENT_FILE: rpc.deploymentFile,
      MONGODB_URI: await ensureMongo(),
      MONGODB_DB: system.store.db.databaseName,
      SERVER_WALLET_MNEMONIC: DEV_MNEMONIC,
      AGENT_API_KEYS: OPERATOR_KEY,
      RATE_LIMITS_DISABLED: "true",
      SIGNATURE_WORKERS: "0",
      INDEXER_ENABLED: "false",
      STRATEGY_SCREENING: "off",
    };
    let api = await spawnApi(env);
    try {
      expect((await deposit(api.url, key, 2)).status).to.equal(200);
      await kill(api.child);
      api = await spawnApi(env);
      const over = await deposit(api.url, key, 2);
      expect(over.status).to.equal(403);
      expect(over.body).to.deep.equal({ error: limitMessage(prefix, "3000000", "2000000", "2000000") });
      expect((await deposit(api.url, key, 1)).status).to.equal(200);
    } finally {
      await kill(api.child);
      await rpc.close();
    }
  });
});

function allOperations(): string[] {
  return [
    "vault.deposit",
    "vault.withdraw",
    "vault.redeem_request",
    "vault.claim",
    "vault.redeem_cancel",
    "strategy.submit",
    "governance.vote",
    "faucet",
    "exit",
  ];
}
