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
