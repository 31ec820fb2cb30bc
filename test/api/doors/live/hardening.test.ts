import { expect } from "chai";
import { request as httpRequest } from "node:http";
import { connectChain } from "../../../../api/src/chain";
import type { Deployment } from "../../../../api/src/chain/deployment";
import { DOCS_CSP } from "../../../../api/src/doors/live/docsPage";
import { freePort } from "../../../helpers/services";
import { registerAgent, request, startTestApp, type TestApp } from "../../helpers/app";
import { deployTestSystem } from "../../helpers/system";

const DEV_MNEMONIC = "myth like bonus scare over problem client lizard pioneer submit female collect";

/** A raw HTTP request (fetch refuses methods such as TRACE). */
function raw(
  base: string,
  method: string,
  path: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.once("error", reject);
    req.end();
  });
}

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

describe("API hardening (bad input found by generated and hand-made requests)", function () {
  let api: TestApp;

  before(async function () {
    api = await startTestApp();
  });

  after(async function () {
    await api.close();
  });

  describe("methods", function () {
    for (const method of ["TRACE", "PROPFIND", "PURGE", "PATCH"]) {
      it(`answers ${method} on a known path with 405, Allow and an error body (never 501)`, async function () {
        const response = await raw(api.url, method, "/health");
        expect(response.status).to.equal(405);
        expect(response.headers.allow).to.equal("HEAD, GET");
        expect(JSON.parse(response.body)).to.deep.equal({
          error: `method ${method} not allowed on /health; allowed: HEAD, GET`,
        });
      });
    }

    it("answers TRACE on an unknown path with 404", async function () {
      const response = await raw(api.url, "TRACE", "/nowhere");
      expect(response.status).to.equal(404);
      expect(JSON.parse(response.body)).to.deep.equal({ error: "no route for TRACE /nowhere" });
    });
  });

  describe("security headers", function () {
    it("sets nosniff, no-referrer, DENY and a restrictive CSP on every kind of response", async function () {
      const { apiKey } = await registerAgent(api.url);
      const responses = [
        await request(api.url, "GET", "/health"),
        await request(api.url, "GET", "/api/v1/agents"),
        await request(api.url, "GET", "/nowhere"),
        await request(api.url, "DELETE", "/health"),
        await request(api.url, "GET", "/api/v1/agent/wallet"),
        await request(api.url, "GET", "/api/v1/agent/wallet", { headers: { "X-API-Key": apiKey } }),
        await request(api.url, "POST", "/api/v1/agent/auth/register", { body: {} }),
        await request(api.url, "GET", "/openapi.json"),
      ];
      for (const response of responses) {
        for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
          expect(response.headers.get(name), `${name} on a ${response.status}`).to.equal(value);
        }
        expect(response.headers.get("content-security-policy")).to.equal("default-src 'none'; frame-ancestors 'none'");
      }
    });

    it("serves /docs under a CSP that allows scripts and calls from its own origin only, never inline scripts", async function () {
      const response = await fetch(`${api.url}/docs`);
      expect(response.status).to.equal(200);
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(response.headers.get(name)).to.equal(value);
      const csp = response.headers.get("content-security-policy")!;
      expect(csp).to.equal(DOCS_CSP);
      expect(csp).to.include("script-src 'self';");
      expect(csp).to.include("connect-src 'self';");
      expect(csp).to.include("frame-ancestors 'none'");
      expect(csp.split("; ").find((d) => d.startsWith("script-src"))).to.not.include("unsafe");
    });

    it("answers the registration, which carries the key, with Cache-Control: no-store", async function () {
      const { body } = await registerAgent(api.url);
      expect(body.api_key).to.be.a("string");
      const wallet = (await import("ethers")).Wallet.createRandom();
      const nonce = await request<{ nonce: string; message: string }>(
        api.url,
        "GET",
        `/api/v1/agent/auth/nonce?wallet=${wallet.address}`,
      );
      const response = await request(api.url, "POST", "/api/v1/agent/auth/register", {
        body: {
          wallet_address: wallet.address,
          signature: await wallet.signMessage(nonce.body.message),
          nonce: nonce.body.nonce,
          agent_name: "no-store agent",
          operator_address: wallet.address,
        },
      });
      expect(response.status).to.equal(200);
      expect(response.headers.get("cache-control")).to.equal("no-store");
    });
  });

  describe("OpenAPI document", function () {
    type Operation = {
      responses: Record<string, unknown>;
      parameters?: { name: string; in: string; description?: string; schema: Record<string, unknown> }[];
    };
    type Doc = {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
    };

    it("documents every status each route can give, 409 and 502 included", async function () {
      const doc = (await request<Doc>(api.url, "GET", "/openapi.json")).body;
      const statuses = (method: string, path: string) => Object.keys(doc.paths[path][method].responses).sort();
      const onchainWrite = ["200", "400", "401", "403", "409", "429", "500", "502", "503"];
      // A route that reads a body refuses one past the body limit with 413.
      const withBody = [...onchainWrite, "413"].sort();
      expect(statuses("post", "/api/v1/agent/vault/deposit")).to.deep.equal(withBody);
      expect(statuses("post", "/api/v1/agent/strategy/submit")).to.deep.equal(withBody);
      expect(statuses("post", "/api/v1/agent/governance/vote")).to.deep.equal(withBody);
      expect(statuses("post", "/api/v1/agent/faucet")).to.deep.equal(onchainWrite);
      // The chain answers EIP-1271 checks and vets new wallet indexes: 503 when it does not.
      expect(statuses("post", "/api/v1/agent/auth/register")).to.deep.equal([
        "200",
        "400",
        "409",
        "413",
        "429",
        "500",
        "503",
      ]);
      expect(statuses("get", "/api/v1/agent/strategy/list")).to.deep.equal([
        "200",
        "400",
        "401",
        "403",
        "429",
        "500",
        "503",
      ]);
      expect(statuses("get", "/api/v1/vaults")).to.deep.equal(["200", "400", "429", "500", "503"]);
      // 503: the rate limiter's Redis does not answer.
      expect(statuses("get", "/health")).to.deep.equal(["200", "400", "429", "500", "503"]);
    });

    it("states the rules the server enforces: EIP-55 addresses, 6 decimals of USDC, the Idempotency-Key pattern", async function () {
      const doc = (await request<Doc>(api.url, "GET", "/openapi.json")).body;
      const nonce = doc.paths["/api/v1/agent/auth/nonce"].get.parameters!.find((p) => p.name === "wallet")!;
      expect(nonce.schema.pattern).to.equal("^0x[0-9a-fA-F]{40}$");
      expect(nonce.description).to.match(/EIP-55/);
      const deposit = doc.components.schemas.DepositRequest.properties.amount_usdc;
      expect(deposit).to.include({ type: "number", exclusiveMinimum: 0, multipleOf: 0.000001 });
      const key = doc.paths["/api/v1/agent/strategy/submit"].post.parameters!.find(
        (p) => p.name === "Idempotency-Key",
      )!;
      expect(key).to.deep.include({ in: "header" });
      expect(key.schema).to.deep.equal({ type: "string", pattern: "^[\\x21-\\x7e]{1,255}$" });
    });
  });

  describe("Idempotency-Key", function () {
    it("refuses an empty Idempotency-Key with 400 (the schema says at least 1 character)", async function () {
      const { apiKey } = await registerAgent(api.url);
      const response = await request(api.url, "POST", "/api/v1/agent/strategy/submit", {
        body: { name: "empty key", description: "with an empty Idempotency-Key" },
        headers: { "X-API-Key": apiKey, "Idempotency-Key": "" },
      });
      expect(response.status).to.equal(400);
      expect(response.body).to.deep.equal({
        error: "Idempotency-Key: must be 1-255 printable ASCII characters without spaces",
      });
    });
  });

  describe("invalid keys before authentication", function () {
    let limited: TestApp;

    before(async function () {
      limited = await startTestApp({ env: { RATE_LIMITS_DISABLED: "false" } });
      await registerAgent(limited.url);
    });

    after(async function () {
      await limited.close();
    });

    it("answers 150 requests with invalid keys from one IP with 401s, then 429s with Retry-After", async function () {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 150; i++) {
        const response = await request(limited.url, "GET", "/api/v1/agent/wallet", {
          headers: { "X-API-Key": `nap-guess${String(i).padStart(28, "0")}` },
        });
        statuses.push(response.status);
        if (response.status === 429) retryAfter = response.headers.get("retry-after");
      }
      expect(statuses.slice(0, 20)).to.deep.equal(Array(20).fill(401));
      expect(statuses.slice(20)).to.deep.equal(Array(130).fill(429));
      expect(Number(retryAfter)).to.be.within(1, 60);
    });
  });

  describe("scoped key bounds", function () {
    const issue = (apiKey: string, body: unknown) =>
      request(api.url, "POST", "/api/v1/agent/keys", { body, headers: { "X-API-Key": apiKey } });

    it("attack: a key that outlives its bounds: expires_in_seconds 59 and 31,536,001 are refused 400; 60 and 31,536,000 are issued", async function () {
      const { apiKey } = await registerAgent(api.url);
      for (const [seconds, error] of [
        [59, "expires_in_seconds: must be at least 60"],
        [365 * 86_400 + 1, "expires_in_seconds: must be at most 31536000"],
      ] as const) {
        const refused = await issue(apiKey, { read_only: true, expires_in_seconds: seconds });
        expect([refused.status, refused.body], String(seconds)).to.deep.equal([400, { error }]);
      }
      for (const seconds of [60, 365 * 86_400]) {
        const issued = await issue(apiKey, { read_only: true, expires_in_seconds: seconds });
        expect(issued.status, String(seconds)).to.equal(201);
      }
    });

    it("attack: an oversized scope: 10 operations (one name repeated), a 101-character label and a 31-digit usdc_per_day are refused 400; at the bounds they are issued", async function () {
      const { apiKey } = await registerAgent(api.url);
      const refusals: [unknown, string][] = [
        [{ operations: Array(10).fill("faucet") }, "operations: must have at most 9 items"],
        [{ operations: [] }, "operations: must have at least 1 items"],
        [{ read_only: true, label: "x".repeat(101) }, "label: must be at most 100 characters"],
        [{ read_only: true, label: "" }, "label: must be at least 1 characters"],
        [
          { operations: ["faucet"], usdc_per_day: `1${"0".repeat(30)}` },
          "usdc_per_day: must be a whole number of USDC base units (6 decimals) as a string",
        ],
      ];
      for (const [body, error] of refusals) {
        const refused = await issue(apiKey, body);
        expect([refused.status, refused.body], error).to.deep.equal([400, { error }]);
      }
      // Nine repeats of one name are one operation: duplicates cost nothing past the length bound.
      const repeated = await issue(apiKey, { operations: Array(9).fill("faucet"), usdc_per_day: "9".repeat(30) });
      expect(repeated.status).to.equal(201);
      expect(repeated.body.scope).to.deep.equal({
        read_only: false,
        operations: ["faucet"],
        usdc_per_day: "9".repeat(30),
      });
      const labelled = await issue(apiKey, { read_only: true, label: "x".repeat(100) });
      expect([labelled.status, labelled.body.label]).to.deep.equal([201, "x".repeat(100)]);
    });

    it("attack: a leaked full key floods the store: the 21st live scoped key is refused 409 naming the cap", async function () {
      const { apiKey } = await registerAgent(api.url);
      for (let i = 0; i < 20; i++) expect((await issue(apiKey, { read_only: true })).status, String(i)).to.equal(201);
      const refused = await issue(apiKey, { read_only: true });
      expect([refused.status, refused.body]).to.deep.equal([
        409,
        {
          error:
            "the agent holds 20 live scoped keys, the most allowed (20); revoke one first: DELETE /api/v1/agent/keys/{prefix}",
        },
      ]);
    });

    it("attack: a revocation by a prefix that is not nap- and 8 letters or digits is refused 400 before any lookup", async function () {
      const { apiKey } = await registerAgent(api.url);
      for (const prefix of ["nap-1234567", "nap-123456789", "nap-1234567%2A", "NAP-12345678"]) {
        const refused = await request(api.url, "DELETE", `/api/v1/agent/keys/${prefix}`, {
          headers: { "X-API-Key": apiKey },
        });
        expect([refused.status, refused.body], prefix).to.deep.equal([
          400,
          { error: "prefix: must be a key prefix: nap- and 8 letters or digits" },
        ]);
      }
      const unknown = await request(api.url, "DELETE", "/api/v1/agent/keys/nap-12345678", {
        headers: { "X-API-Key": apiKey },
      });
      expect([unknown.status, unknown.body]).to.deep.equal([
        404,
        { error: "prefix: the agent has no scoped key nap-12345678" },
      ]);
    });

    it("attack: a 4097-byte signature on the wallet-signed issuance is refused 400 before any check; 4096 bytes reach the nonce check", async function () {
      const { agentId } = await registerAgent(api.url);
      const body = (bytes: number) => ({
        read_only: true,
        nonce: "0".repeat(32),
        signature: `0x${"ab".repeat(bytes)}`,
      });
      const past = await request(api.url, "POST", `/api/v1/agents/${agentId}/keys`, { body: body(4097) });
      expect([past.status, past.body]).to.deep.equal([400, { error: "signature: must be at most 4096 bytes" }]);
      const at = await request(api.url, "POST", `/api/v1/agents/${agentId}/keys`, { body: body(4096) });
      expect([at.status, at.body]).to.deep.equal([
        400,
        { error: "nonce: unknown nonce; request one from POST /api/v1/agents/{agent_id}/keys/nonce" },
      ]);
    });
  });

  describe("chain failures", function () {
    let deployment: Deployment;
    let healthy: TestApp;
    let dead: TestApp;
    let port: number;

    before(async function () {
      deployment = await deployTestSystem();
      port = await freePort();
      const { mkdtempSync, writeFileSync } = await import("node:fs");
      const { tmpdir } = await import("node:os");
      const { join } = await import("node:path");
      const file = join(mkdtempSync(join(tmpdir(), "nap-dead-rpc-")), "31337.json");
      writeFileSync(file, JSON.stringify(deployment));
      const chain = await connectChain({
        rpcUrl: `http://127.0.0.1:${port}`,
        chainId: 31337,
        deploymentFile: file,
        warn: () => undefined,
      });
      // The agent registers while the chain answers (a new wallet index is checked against it), on the same store.
      healthy = await startTestApp({ env: { SERVER_WALLET_MNEMONIC: DEV_MNEMONIC } });
      dead = await startTestApp({ store: healthy.store, chain, env: { SERVER_WALLET_MNEMONIC: DEV_MNEMONIC } });
    });

    after(async function () {
      await dead?.close();
      await healthy?.close();
    });

    it("answers 503 without the RPC host or port in any error text", async function () {
      const { apiKey } = await registerAgent(healthy.url);
      const keyed = { "X-API-Key": apiKey };
      const wallet = (await import("ethers")).Wallet.createRandom();
      const nonce = await request<{ nonce: string; message: string }>(
        dead.url,
        "GET",
        `/api/v1/agent/auth/nonce?wallet=${wallet.address}`,
      );
      const responses = [
        await request(dead.url, "POST", "/api/v1/agent/auth/register", {
          body: {
            wallet_address: wallet.address,
            signature: await wallet.signMessage(nonce.body.message),
            nonce: nonce.body.nonce,
            agent_name: "while the chain is down",
            operator_address: wallet.address,
          },
        }),
        await request(dead.url, "GET", "/api/v1/vaults"),
        await request(dead.url, "GET", "/api/v1/proposals"),
        await request(dead.url, "POST", "/api/v1/positions", { body: { wallet_address: deployment.deployer } }),
        await request(dead.url, "GET", "/api/v1/agent/wallet", { headers: keyed }),
        await request(dead.url, "GET", "/api/v1/agent/strategy/list", { headers: keyed }),
        await request(dead.url, "POST", "/api/v1/agent/faucet", { headers: keyed }),
        await request(dead.url, "POST", "/api/v1/agent/strategy/submit", {
          headers: keyed,
          body: { name: "dead chain", description: "submitted while the RPC is down" },
        }),
      ];
      for (const response of responses) {
        const text = JSON.stringify(response.body);
        expect(response.status, text).to.equal(503);
        expect(text).to.not.include("127.0.0.1");
        expect(text).to.not.include(String(port));
        expect(text).to.match(/chain/);
      }
    });
  });
});
