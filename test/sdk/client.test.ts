import { expect } from "chai";
import { Wallet } from "ethers";
import {
  NapApiError,
  NapClient,
  NapConflictError,
  NapDataClient,
  NapGraphQLError,
  NapNetworkError,
  NapNotFoundError,
  NapRateLimitError,
  NapUnavailableError,
  NapValidationError,
  type ViemLikeAccount,
} from "@nap/sdk";
import { startTestApp, type TestApp } from "../api/helpers/app";

/** A fetch that answers from a script and records what it was asked. */
function scriptedFetch(answers: (Response | Error)[]) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    const next = answers.shift();
    if (!next) throw new Error("no scripted answer left");
    if (next instanceof Error) throw next;
    return next;
  }) as unknown as typeof fetch;
  return { fetchImpl, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

const header = (init: RequestInit, name: string) => (init.headers as Record<string, string>)[name];

describe("SDK: the TypeScript client (packages/sdk)", function () {
  it("sends an Idempotency-Key on every value-moving call, and keeps it across the retries of that call", async function () {
    const { fetchImpl, calls } = scriptedFetch([
      json(503, { error: "the chain is unreachable; try again later" }, { "retry-after": "0" }),
      json(200, { success: true }),
      json(200, { success: true }),
    ]);
    const retries: string[] = [];
    const client = new NapClient({
      baseUrl: "http://api.test/",
      apiKey: "nap-key",
      fetch: fetchImpl,
      onRetry: ({ reason }) => retries.push(reason),
    });
    await client.deposit({ vault_id: "moderate", amount_usdc: 5 });
    expect(calls).to.have.length(2);
    expect(calls[0].url).to.equal("http://api.test/api/v1/agent/vault/deposit");
    const key = header(calls[0].init, "Idempotency-Key");
    expect(key).to.match(/^[0-9a-f-]{36}$/);
    expect(header(calls[1].init, "Idempotency-Key")).to.equal(key);
    expect(header(calls[0].init, "X-API-Key")).to.equal("nap-key");
    expect(retries).to.deep.equal(["the chain is unreachable; try again later"]);
    await client.withdraw({ vault_id: "moderate", shares: "all" }, { idempotencyKey: "mine-1" });
    expect(header(calls[2].init, "Idempotency-Key")).to.equal("mine-1");
    expect(JSON.parse(calls[2].init.body as string)).to.deep.equal({ vault_id: "moderate", shares: "all" });
  });

  it("waits the Retry-After the API asks for (seconds or an HTTP date), at most maxRetries times", async function () {
    const { fetchImpl, calls } = scriptedFetch([
      json(429, { error: "rate limit exceeded" }, { "retry-after": "1" }),
      json(429, { error: "rate limit exceeded" }, { "retry-after": new Date(Date.now() - 1000).toUTCString() }),
      json(429, { error: "rate limit exceeded" }, { "retry-after": "0" }),
    ]);
    const waits: number[] = [];
    const client = new NapClient({
      baseUrl: "http://api.test",
      maxRetries: 2,
      fetch: fetchImpl,
      onRetry: ({ waitMs }) => waits.push(waitMs),
    });
    const error = await client.vaults().catch((e: unknown) => e);
    expect(error).to.be.instanceOf(NapRateLimitError);
    expect(waits).to.deep.equal([1000, 0]);
    expect(calls).to.have.length(3);
    expect((error as NapRateLimitError).retryAfterSeconds).to.equal(0);
  });

  it("throws a cooldown longer than maxRetryWaitSeconds at once, with its Retry-After and body", async function () {
    const body = { success: false, error: "faucet cooldown: ...", seconds_remaining: 86_000 };
    const { fetchImpl, calls } = scriptedFetch([json(429, body, { "retry-after": "86000" })]);
    const client = new NapClient({ baseUrl: "http://api.test", apiKey: "k", fetch: fetchImpl });
    const error = (await client.faucet().catch((e: unknown) => e)) as NapRateLimitError;
    expect(error).to.be.instanceOf(NapRateLimitError);
    expect(error).to.include({ status: 429, retryAfterSeconds: 86_000, message: "faucet cooldown: ..." });
    expect(error.body).to.deep.equal(body);
    expect(error.request).to.equal("POST /api/v1/agent/faucet");
    expect(calls).to.have.length(1);
  });

  it("maps statuses to typed errors carrying the API's message", async function () {
    const cases: [number, new (...args: never[]) => NapApiError][] = [
      [400, NapValidationError],
      [409, NapConflictError],
      [502, NapUnavailableError],
      [500, NapApiError],
    ];
    for (const [status, type] of cases) {
      const { fetchImpl } = scriptedFetch([json(status, { error: `message ${status}` })]);
      const client = new NapClient({ baseUrl: "http://api.test", apiKey: "k", fetch: fetchImpl });
      const error = (await client.wallet().catch((e: unknown) => e)) as NapApiError;
      expect(error, String(status)).to.be.instanceOf(type);
      expect(error.message).to.equal(`message ${status}`);
      expect(error.status).to.equal(status);
    }
  });

  it("resends after no answer only when it is safe: reads and keyed writes, never a registration", async function () {
    const refused = new TypeError("fetch failed");
    const read = scriptedFetch([refused, json(200, { vaults: [], total: 0 })]);
    const client = new NapClient({ baseUrl: "http://api.test", fetch: read.fetchImpl, networkRetryDelayMs: 0 });
    expect(await client.vaults()).to.deep.equal({ vaults: [], total: 0 });
    expect(read.calls).to.have.length(2);

    const register = scriptedFetch([json(200, { nonce: "ab".repeat(16), message: "sign me" }), refused]);
    const unkeyed = new NapClient({ baseUrl: "http://api.test", fetch: register.fetchImpl, networkRetryDelayMs: 0 });
    const error = await unkeyed
      .register({ signer: Wallet.createRandom(), agentName: "agent" })
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(NapNetworkError);
    expect(register.calls).to.have.length(2);
  });

  it("scoped keys: issued with the full key, or by the wallet signing the nonce's message that names the scope; revoked by prefix", async function () {
    const issued = {
      success: true,
      agent_id: "5b1c1e54-1c1f-4a8e-9f55-0f1e2d3c4b5a",
      api_key: `nap-${"a".repeat(32)}`,
      api_key_prefix: "nap-aaaaaaaa",
      label: null,
      scope: { read_only: false, operations: ["vault.deposit"], usdc_per_day: "100000000" },
      expires_at: "2026-12-03T00:00:00.000Z",
    };
    const owner = Wallet.createRandom();
    const { fetchImpl, calls } = scriptedFetch([
      json(201, issued),
      json(200, { nonce: "cd".repeat(16), message: "issue a scoped key: vault.deposit" }),
      json(201, issued),
      json(200, { success: true }),
    ]);
    const client = new NapClient({ baseUrl: "http://api.test", apiKey: "nap-full", fetch: fetchImpl });
    const scope = { operations: ["vault.deposit" as const], usdc_per_day: "100000000", expires_in_seconds: 604_800 };

    expect(await client.createScopedKey(scope)).to.deep.equal(issued);
    expect(calls[0].url).to.equal("http://api.test/api/v1/agent/keys");
    expect(calls[0].init.method).to.equal("POST");
    expect(header(calls[0].init, "X-API-Key")).to.equal("nap-full");
    expect(header(calls[0].init, "Idempotency-Key")).to.equal(undefined);
    expect(JSON.parse(calls[0].init.body as string)).to.deep.equal(scope);
    expect(client.apiKey, "the client keeps its full key").to.equal("nap-full");

    const agentId = issued.agent_id;
    expect(await client.createScopedKeyBySignature(agentId, owner, scope)).to.deep.equal(issued);
    expect(calls[1].url).to.equal(`http://api.test/api/v1/agents/${agentId}/keys/nonce`);
    expect(JSON.parse(calls[1].init.body as string)).to.deep.equal(scope);
    expect(calls[2].url).to.equal(`http://api.test/api/v1/agents/${agentId}/keys`);
    for (const call of calls.slice(1, 3)) expect(header(call.init, "X-API-Key")).to.equal(undefined);
    expect(JSON.parse(calls[2].init.body as string)).to.deep.equal({
      ...scope,
      nonce: "cd".repeat(16),
      signature: await owner.signMessage("issue a scoped key: vault.deposit"),
    });

    await client.revokeScopedKey("nap-aaaaaaaa");
    expect(calls[3].url).to.equal("http://api.test/api/v1/agent/keys/nap-aaaaaaaa");
    expect(calls[3].init.method).to.equal("DELETE");
    expect(header(calls[3].init, "X-API-Key")).to.equal("nap-full");
  });

  it("data client: sends the data key as a Bearer token, and reads the data API's { error: { code, message } }", async function () {
    const notFound = { error: { code: "VAULT_NOT_FOUND", message: "no vault at 0xdead", details: {} } };
    const { fetchImpl, calls } = scriptedFetch([
      json(200, { address: "0x1", period: "7d", interval: "1h", points: [] }),
      json(404, notFound),
    ]);
    const data = new NapDataClient({ baseUrl: "http://api.test", apiKey: "napd-key", fetch: fetchImpl });
    await data.vaultHistory("0x1", { period: "7d", interval: "1h" });
    expect(calls[0].url).to.equal("http://api.test/v1/vaults/0x1/history?period=7d&interval=1h");
    expect(header(calls[0].init, "authorization")).to.equal("Bearer napd-key");
    expect(header(calls[0].init, "X-API-Key")).to.equal(undefined);
    const error = (await data.vault("0xdead").catch((e: unknown) => e)) as NapNotFoundError;
    expect(error).to.be.instanceOf(NapNotFoundError);
    expect(error).to.include({ status: 404, code: "VAULT_NOT_FOUND", message: "no vault at 0xdead" });
    expect(error.request).to.equal("GET /v1/vaults/0xdead");
  });

  it("data client: a GraphQL answer with errors rejects with a NapGraphQLError carrying the code and the data", async function () {
    const errors = [{ message: "vault 0xdead not found", path: ["vault"], extensions: { code: "NOT_FOUND" } }];
    const { fetchImpl, calls } = scriptedFetch([
      json(200, { data: { vault: null }, errors }),
      json(
        429,
        { errors: [{ message: "rate limit exceeded", extensions: { code: "RATE_LIMITED" } }] },
        {
          "retry-after": "3600",
        },
      ),
    ]);
    const data = new NapDataClient({ baseUrl: "http://api.test", fetch: fetchImpl });
    const error = (await data.query("vault", { address: "0xdead" }).catch((e: unknown) => e)) as NapGraphQLError;
    expect(error).to.be.instanceOf(NapGraphQLError);
    expect(error).to.include({ code: "NOT_FOUND", message: "vault 0xdead not found", status: 200 });
    expect(error.data).to.deep.equal({ vault: null });
    const sent = JSON.parse(calls[0].init.body as string) as { query: string; variables: unknown };
    expect(calls[0].url).to.equal("http://api.test/graphql");
    expect(sent.query).to.match(/^query Vault\(\$address: String!\)/);
    expect(sent.variables).to.deep.equal({ address: "0xdead" });
    const limited = (await data.query("protocolStats").catch((e: unknown) => e)) as NapRateLimitError;
    expect(limited).to.be.instanceOf(NapRateLimitError);
    expect(limited).to.include({ code: "RATE_LIMITED", retryAfterSeconds: 3600, message: "rate limit exceeded" });
  });

  describe("against the API", function () {
    let app: TestApp;
    before(async function () {
      app = await startTestApp();
    });
    after(async function () {
      await app?.close();
    });

    it("registers with an ethers Signer and with a viem-shaped account, and sets the key on the client", async function () {
      const ethersSigner = Wallet.createRandom();
      const client = new NapClient({ baseUrl: app.url });
      const registered = await client.register({ signer: ethersSigner, agentName: "ethers agent" });
      expect(registered).to.include({ success: true, agent_name: "ethers agent", tier: "unverified" });
      expect(client.apiKey).to.equal(registered.api_key);
      expect(await client.lookup(ethersSigner.address)).to.include({ registered: true, agent_name: "ethers agent" });

      const key = Wallet.createRandom();
      const account: ViemLikeAccount = {
        address: key.address,
        signMessage: ({ message }) => key.signMessage(message),
      };
      const viemClient = new NapClient({ baseUrl: app.url });
      const second = await viemClient.register({ signer: account, agentName: "viem agent", agentType: "research" });
      expect(second.agent_name).to.equal("viem agent");
      const again = await viemClient.register({ signer: account, agentName: "twice" }).catch((e: unknown) => e);
      expect(again).to.be.instanceOf(NapConflictError);
      expect((again as NapConflictError).status).to.equal(409);
    });

    it("rotates the key by the wallet's signature and sets it, lists the keys, hands the agent to a new operator, revokes", async function () {
      const owner = Wallet.createRandom();
      const operator = Wallet.createRandom();
      const client = new NapClient({ baseUrl: app.url });
      const registered = await client.register({
        signer: owner,
        agentName: "rotating",
        operatorAddress: operator.address,
      });
      const rotated = await client.rotateKey(registered.agent_id, owner);
      expect(rotated.previous_api_key_prefix).to.equal(registered.api_key_prefix);
      expect(client.apiKey).to.equal(rotated.api_key);
      const listed = await client.keys();
      expect(listed.keys.map((key) => [key.api_key_prefix, key.state])).to.deep.equal([
        [rotated.api_key_prefix, "active"],
        [registered.api_key_prefix, "rotated"],
      ]);
      const stale = new NapClient({ baseUrl: app.url, apiKey: registered.api_key });
      expect(await stale.keys().catch((e: unknown) => (e as NapApiError).status)).to.equal(401);
      const next = Wallet.createRandom();
      const changed = await client.changeOperator(registered.agent_id, operator, next.address);
      expect(changed).to.deep.equal({
        success: true,
        agent_id: registered.agent_id,
        operator_address: next.address,
        previous_operator_address: operator.address,
      });
      const revoked = await client.revokeKey(registered.agent_id, next);
      expect(revoked.revoked_api_key_prefix).to.equal(rotated.api_key_prefix);
      expect(await client.keys().catch((e: unknown) => (e as NapApiError).status)).to.equal(401);
    });

    it("surfaces the API's validation message naming the field", async function () {
      const client = new NapClient({ baseUrl: app.url });
      const error = (await client.nonce("0x1234").catch((e: unknown) => e)) as NapValidationError;
      expect(error).to.be.instanceOf(NapValidationError);
      expect(error.message).to.equal("wallet: must be a 0x-prefixed 42-character hex address");
    });
  });
});
