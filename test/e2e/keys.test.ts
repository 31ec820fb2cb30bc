import { expect } from "chai";
import { ethers } from "hardhat";
import { HDNodeWallet, type Wallet } from "ethers";
import type { Deployment } from "../../api/src/chain/deployment";
import { keyRevocationStatement, keyRotationStatement } from "../../api/src/domain/custodyStatements";
import { KEY_USE_RESOLUTION_MS } from "../../api/src/usecases/agents";
import { connectMongoStore, type MongoStore } from "../../api/src/store/mongo";
import { registerAgent, request, startTestApp, type TestApp } from "../api/helpers/app";
import { deployTestSystem } from "../api/helpers/system";
import { ensureMongo } from "../helpers/services";
import { TestUSDC__factory } from "../../typechain-types";
import { client, DEV_MNEMONIC, OPERATOR_KEY, randomWallet, startE2eApp, type E2eSystem } from "./helpers";

type Body = Record<string, unknown>;

/**
 * API keys rotated by the agent's wallet and revoked by the wallet or the operator, against two instances of the API
 * over one MongoDB database: a key that stops, stops on both at once (each request checks the store of record).
 */
describe("E2E: API keys rotated and revoked by a wallet's signature, on two instances", function () {
  this.timeout(240_000);

  let deployment: Deployment;
  let system: E2eSystem;
  let storeB: MongoStore;
  let b: TestApp;
  let wallet: Wallet;
  let operator: Wallet;
  let agentId: string;
  let apiKey: string;

  const wallOn = (base: string, key: string) => client(base, key)("GET", "/api/v1/agent/wallet");

  async function nonceFor(signer: Wallet, action: "rotate" | "revoke", base = system.app.url) {
    const nonce = await request<{ nonce: string; message: string }>(
      base,
      "POST",
      `/api/v1/agents/${agentId}/key/nonce`,
      {
        body: { signer_address: signer.address, action },
      },
    );
    expect(nonce.status, JSON.stringify(nonce.body)).to.equal(200);
    return nonce.body;
  }

  async function signed(signer: Wallet, action: "rotate" | "revoke", base = system.app.url) {
    const nonce = await nonceFor(signer, action, base);
    const body = { nonce: nonce.nonce, signature: await signer.signMessage(nonce.message) };
    return {
      nonce,
      body,
      response: await request<Body>(base, "POST", `/api/v1/agents/${agentId}/key/${action}`, { body }),
    };
  }

  before(async function () {
    deployment = await deployTestSystem();
    system = await startE2eApp("keys", deployment, { STRATEGY_SCREENING: "off" });
    storeB = await connectMongoStore({ uri: await ensureMongo(), dbName: system.store.db.databaseName });
    b = await startTestApp({
      store: storeB,
      deployment,
      env: { ...system.signer.env, AGENT_API_KEYS: OPERATOR_KEY, INDEXER_ENABLED: "false", STRATEGY_SCREENING: "off" },
      extra: { engineOptions: { pollIntervalMs: 20 } },
    });
    await b.app.useCases.start();
    wallet = randomWallet();
    operator = randomWallet();
    const registered = await registerAgent(system.app.url, wallet, { operator_address: operator.address });
    agentId = registered.agentId;
    apiKey = registered.apiKey;
  });

  after(async function () {
    await b?.close();
    await storeB?.close();
    await system?.close();
  });

  it("rotates the key by the agent wallet's signature: the old key stops at once on both instances, the new one works on both", async function () {
    for (const base of [system.app.url, b.url]) expect((await wallOn(base, apiKey)).status).to.equal(200);
    const { nonce, response } = await signed(wallet, "rotate");
    expect(nonce.message).to.contain(keyRotationStatement(agentId));
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    const fresh = response.body.api_key as string;
    expect(fresh).to.match(/^nap-[0-9A-Za-z]{32}$/);
    expect(response.body).to.deep.equal({
      success: true,
      agent_id: agentId,
      api_key: fresh,
      api_key_prefix: fresh.slice(0, 12),
      previous_api_key_prefix: apiKey.slice(0, 12),
      message: "Key rotated: the previous key no longer works. Store this key now: it is shown only once.",
    });
    expect(response.headers.get("cache-control")).to.equal("no-store");
    for (const base of [b.url, system.app.url]) {
      const old = await wallOn(base, apiKey);
      expect(old.status).to.equal(401);
      expect(old.body).to.deep.equal({ error: "invalid API key" });
      expect((await wallOn(base, fresh)).status).to.equal(200);
    }
    const stored = await storeB.agents.findById(agentId);
    expect(stored!.apiKeyPrefix).to.equal(fresh.slice(0, 12));
    expect(JSON.stringify(stored)).to.not.contain(fresh);
    apiKey = fresh;
  });

  it("attack: a stolen key cannot rotate or revoke: the rotation wants the agent wallet's signature, a nonce serves once", async function () {
    const thief = randomWallet();
    const cases: [Wallet, "rotate" | "revoke", string][] = [
      [thief, "rotate", "signature: only the agent's wallet (the one that registered it) can rotate its key"],
      [operator, "rotate", "signature: only the agent's wallet (the one that registered it) can rotate its key"],
      [thief, "revoke", "signature: only the agent's wallet or its operator can revoke its key"],
    ];
    for (const [signer, action, message] of cases) {
      const { response } = await signed(signer, action);
      expect(response.status, `${action} by ${signer.address}`).to.equal(403);
      expect(response.body).to.deep.equal({ error: message });
    }
    // A nonce of the wallet for another agent's message (the signer forges nothing: the message is rebuilt).
    const nonce = await nonceFor(wallet, "rotate");
    const wrong = await request(b.url, "POST", `/api/v1/agents/${agentId}/key/rotate`, {
      body: { nonce: nonce.nonce, signature: await wallet.signMessage(nonce.message.replace(agentId, thief.address)) },
    });
    expect(wrong.status).to.equal(400);
    expect(wrong.body).to.deep.equal({
      error: "signature: not a valid signature by the agent's wallet of the rotation message issued with this nonce",
    });
    // Replayed on the other instance, a used nonce is refused.
    const used = await signed(wallet, "rotate");
    expect(used.response.status).to.equal(200);
    apiKey = used.response.body.api_key as string;
    const replay = await request(b.url, "POST", `/api/v1/agents/${agentId}/key/rotate`, { body: used.body });
    expect(replay.status).to.equal(400);
    expect(replay.body).to.deep.equal({ error: "nonce: already used; request a new nonce" });
    expect((await wallOn(b.url, apiKey)).status).to.equal(200);
  });

  it("attack: a revoked key on its next request, on either instance; revocation by the operator, then a rotation by the wallet", async function () {
    const { nonce, response } = await signed(operator, "revoke", b.url);
    expect(nonce.message).to.contain(keyRevocationStatement(agentId, apiKey.slice(0, 12)));
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    expect(response.body).to.deep.equal({
      success: true,
      agent_id: agentId,
      revoked_api_key_prefix: apiKey.slice(0, 12),
      message: "Key revoked. A new key needs a rotation signed by the agent's wallet.",
    });
    for (const base of [system.app.url, b.url]) {
      const revoked = await wallOn(base, apiKey);
      expect(revoked.status).to.equal(401);
      expect(revoked.body).to.deep.equal({ error: "invalid API key" });
    }
    const again = await signed(wallet, "revoke");
    expect(again.response.status).to.equal(409);
    expect(again.response.body).to.deep.equal({
      error: `the key ${apiKey.slice(0, 12)} of this agent is revoked already`,
    });
    const rotated = await signed(wallet, "rotate", b.url);
    expect(rotated.response.status, JSON.stringify(rotated.response.body)).to.equal(200);
    expect(rotated.response.body.previous_api_key_prefix).to.equal("");
    apiKey = rotated.response.body.api_key as string;
    expect((await wallOn(system.app.url, apiKey)).status).to.equal(200);
  });

  it("a revocation signed for a key that was rotated meanwhile does not revoke its successor", async function () {
    const pending = await nonceFor(wallet, "revoke");
    const signature = await wallet.signMessage(pending.message);
    const rotated = await signed(wallet, "rotate");
    expect(rotated.response.status).to.equal(200);
    apiKey = rotated.response.body.api_key as string;
    const late = await request(system.app.url, "POST", `/api/v1/agents/${agentId}/key/revoke`, {
      body: { nonce: pending.nonce, signature },
    });
    expect(late.status).to.equal(400);
    expect(late.body).to.deep.equal({
      error:
        "signature: not a valid signature by the agent's wallet or operator of the revocation message of this nonce",
    });
    expect((await wallOn(b.url, apiKey)).status).to.equal(200);
  });

  it("lists the agent's keys by prefix, newest first, with creation, last use and how each ended", async function () {
    const call = client(b.url, apiKey);
    const before = Date.now();
    expect((await call("GET", "/api/v1/agent/wallet")).status).to.equal(200);
    const listed = await call<{ agent_id: string; keys: Body[] }>("GET", "/api/v1/agent/keys");
    const after = Date.now();
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    expect(listed.headers.get("cache-control")).to.equal("no-store");
    const stored = (await storeB.agents.findById(agentId))!;
    const keys = listed.body.keys;
    // The registration's key and the first rotation's were rotated, the second's revoked by the operator, the key the
    // wallet made after that rotated again: four retired, the last in use.
    expect(keys.map((key) => key.state)).to.deep.equal(["active", "rotated", "revoked", "rotated", "rotated"]);
    expect(keys[0]).to.deep.equal({
      api_key_prefix: apiKey.slice(0, 12),
      kind: "full",
      label: null,
      scope: null,
      state: "active",
      created_at: stored.apiKeyCreatedAt!.toISOString(),
      last_used_at: keys[0]!.last_used_at,
      expires_at: null,
      ended_at: null,
    });
    // The last use is written without holding the request and at most once per KEY_USE_RESOLUTION_MS (agents.ts
    // noteKeyUse), so the list may show a use whose successor is still being written: never a later one than the
    // store's, and the store's is this test's or one within the resolution before it.
    const listedUse = Date.parse(String(keys[0]!.last_used_at));
    const storedUse = stored.apiKeyLastUsedAt!.getTime();
    expect(storedUse).to.be.within(listedUse, after);
    expect(storedUse).to.be.at.least(before - KEY_USE_RESOLUTION_MS);
    expect(keys.map((key) => key.api_key_prefix)).to.deep.equal([
      stored.apiKeyPrefix,
      ...stored.retiredKeys!.map((key) => key.prefix).reverse(),
    ]);
    expect(keys.slice(1).every((key) => typeof key.ended_at === "string")).to.equal(true);
    expect(JSON.stringify(listed.body)).to.not.contain(apiKey);
  });

  it("attack: a rotation raced against a deposit with the old key: the deposit is whole or refused, the old key then stops", async function () {
    const call = client(system.app.url, apiKey);
    expect((await call("POST", "/api/v1/agent/faucet")).status).to.equal(200);
    const record = await system.store.agents.findById(agentId);
    const address = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${record!.agentIndex}`).address;
    const usdc = TestUSDC__factory.connect(deployment.contracts.TestUSDC.address, ethers.provider);
    const before = await usdc.balanceOf(address);
    const nonce = await nonceFor(wallet, "rotate", b.url);
    const body = { nonce: nonce.nonce, signature: await wallet.signMessage(nonce.message) };
    const [deposit, rotation] = await Promise.all([
      call("POST", "/api/v1/agent/vault/deposit", { vault_id: "moderate", amount_usdc: 5 }),
      request<Body>(b.url, "POST", `/api/v1/agents/${agentId}/key/rotate`, { body }),
    ]);
    expect(rotation.status, JSON.stringify(rotation.body)).to.equal(200);
    expect([200, 401], JSON.stringify(deposit.body)).to.include(deposit.status);
    // A deposit that was let in finished whole; one that was not moved nothing.
    expect(await usdc.balanceOf(address)).to.equal(before - (deposit.status === 200 ? 5_000_000n : 0n));
    for (const base of [system.app.url, b.url]) expect((await wallOn(base, apiKey)).status).to.equal(401);
    const after = await client(b.url, apiKey)("POST", "/api/v1/agent/vault/deposit", {
      vault_id: "moderate",
      amount_usdc: 5,
    });
    expect(after.status).to.equal(401);
    expect(await usdc.balanceOf(address)).to.equal(before - (deposit.status === 200 ? 5_000_000n : 0n));
    expect((await wallOn(b.url, rotation.body.api_key as string)).status).to.equal(200);
  });
});
