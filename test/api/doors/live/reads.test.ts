import { expect } from "chai";
import { Writable } from "node:stream";
import { ethers } from "hardhat";
import type { Deployment } from "../../../../api/src/chain/deployment";
import { createChainAccess } from "../../../../api/src/chain";
import { HEALTH_TTL_MS } from "../../../../api/src/usecases/health";
import { Vaults } from "../../../../api/src/usecases/vaults";
import { createMemoryStore } from "../../../../api/src/store/memory";
import { createLogger } from "../../../../api/src/logger";
import { defineRoute } from "../../../../api/src/doors/live/route";
import { openApiPath } from "../../../../api/src/doors/live/openapi";
import type { MongoStore } from "../../../../api/src/store/mongo";
import { SERVICE_VERSION } from "../../../../api/src/version";
import { TestUSDC__factory } from "../../../../typechain-types";
import { sampleAgent } from "../../store/conformance";
import { request, startTestApp, hardhatChain, type TestApp } from "../../helpers/app";
import { dropMongoStore, freshMongoStore } from "../../helpers/mongo";
import { deployTestSystem } from "../../helpers/system";
import { JsonRpcProvider } from "ethers";

/* Just enough of the OpenAPI document's shape for the assertions below. */
interface JsonSchemaNode {
  [key: string]: unknown;
  properties: Record<string, JsonSchemaNode & { enum: string[] }>;
  required: string[];
}
interface OpenApiOperation {
  requestBody: { content: Record<string, { schema: unknown }> };
  security: unknown;
  responses: Record<string, unknown>;
}
interface OpenApiDoc {
  components: { schemas: Record<string, JsonSchemaNode> };
}

describe("API public reads (MongoDB store, Hardhat chain)", function () {
  let store: MongoStore;
  let api: TestApp;

  before(async function () {
    store = await freshMongoStore("reads");
    api = await startTestApp({
      store,
      extra: {
        extraRoutes: () => [
          defineRoute({
            method: "get",
            path: "/api/v1/test/crash",
            tag: "test",
            summary: "throws an unexpected error",
            auth: null,
            rateLimit: null,
            responses: { 200: { description: "never" } },
            handler: () => {
              throw new Error("secret internal detail at /srv/db");
            },
          }),
        ],
      },
    });
  });

  after(async function () {
    await api.close();
    await dropMongoStore(store);
  });

  describe("GET /health", function () {
    it("reports version, chain, RPC and store state", async function () {
      const response = await request(api.url, "GET", "/health");
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({
        status: "ok",
        version: SERVICE_VERSION,
        chain_id: 31337,
        chain_name: "hardhat",
        rpc_connected: true,
        store: { kind: "mongodb", connected: true },
        // This app has no deployment: its indexer has nothing to follow.
        indexer: {
          role: "reader",
          indexed_block: null,
          head_block: await ethers.provider.getBlockNumber(),
          lag_blocks: null,
          halt: null,
        },
      });
      expect(response.headers.get("x-request-id")).to.match(/^[0-9a-f-]{36}$/);
    });

    it("reports degraded with rpc_connected false when the RPC endpoint is down", async function () {
      const deadProvider = new JsonRpcProvider("http://127.0.0.1:9", 31337, { staticNetwork: true });
      const degraded = await startTestApp({ chain: createChainAccess(deadProvider, 31337, null) });
      try {
        const response = await request(degraded.url, "GET", "/health");
        expect(response.status).to.equal(200);
        expect(response.body.status).to.equal("degraded");
        expect(response.body.rpc_connected).to.equal(false);
        const vaults = await request(degraded.url, "GET", "/api/v1/vaults");
        expect(vaults.status).to.equal(503);
        expect(vaults.body).to.deep.equal({
          error: "no deployment file for chain 31337: onchain endpoints are unavailable",
        });
      } finally {
        await degraded.close();
        deadProvider.destroy();
      }
    });
    it("probes the store and the chain at most once per second, sharing one probe among concurrent requests", async function () {
      const inner = createMemoryStore();
      let probes = 0;
      const counting = new Proxy(inner, {
        get(target, property, receiver) {
          if (property === "health") return () => (probes++, target.health());
          return Reflect.get(target, property, receiver);
        },
      });
      const app = await startTestApp({ store: counting });
      try {
        const answers = await Promise.all(Array.from({ length: 20 }, () => request(app.url, "GET", "/health")));
        for (const answer of answers) {
          expect(answer.status).to.equal(200);
          expect(answer.headers.get("content-type")).to.equal("application/json; charset=utf-8");
          expect(answer.body).to.deep.include({ status: "ok", store: { kind: "memory", connected: true } });
        }
        expect(probes).to.equal(1);
        await new Promise((resolve) => setTimeout(resolve, HEALTH_TTL_MS));
        await request(app.url, "GET", "/health");
        expect(probes).to.equal(2);
      } finally {
        await app.close();
      }
    });
  });

  describe("GET /api/v1/agents and /api/v1/agents/stats", function () {
    before(async function () {
      for (let i = 0; i < 55; i += 1) {
        await store.agents.insert(
          sampleAgent({
            agentName: `agent ${i}`,
            performanceScore: i % 11,
            strategiesSubmitted: i % 3,
            status: i === 0 ? "suspended" : "active",
            depositsMicroUsdc: i === 1 ? "1500250000" : "0",
          }),
        );
      }
    });

    it("returns 50 agents by default, highest performance score first, never a key", async function () {
      const response = await request<{ agents: Array<Record<string, unknown>>; count: number }>(
        api.url,
        "GET",
        "/api/v1/agents",
      );
      expect(response.status).to.equal(200);
      expect(response.body.count).to.equal(50);
      expect(response.body.agents).to.have.length(50);
      const scores = response.body.agents.map((a) => a.performance_score as number);
      expect(scores).to.deep.equal([...scores].sort((x, y) => y - x));
      expect(scores[0]).to.equal(10);
      expect(Object.keys(response.body.agents[0]).sort()).to.deep.equal([
        "agent_name",
        "performance_score",
        "strategies_submitted",
        "tier",
      ]);
      expect(JSON.stringify(response.body)).to.not.match(/api_key|nap-/);
    });

    it("honours limit up to 100 and rejects limits out of range", async function () {
      const two = await request<{ agents: unknown[]; count: number }>(api.url, "GET", "/api/v1/agents?limit=2");
      expect(two.body.count).to.equal(2);
      const hundred = await request<{ agents: unknown[]; count: number }>(api.url, "GET", "/api/v1/agents?limit=100");
      expect(hundred.body.count).to.equal(55);
      for (const [limit, error] of [
        ["101", "limit: must be at most 100"],
        ["0", "limit: must be at least 1"],
        ["1.5", "limit: must be an integer"],
        ["abc", "limit: must be a number"],
      ]) {
        const response = await request(api.url, "GET", `/api/v1/agents?limit=${limit}`);
        expect(response.status, limit).to.equal(400);
        expect(response.body).to.deep.equal({ error });
      }
    });

    it("sums the statistics", async function () {
      const response = await request(api.url, "GET", "/api/v1/agents/stats");
      expect(response.status).to.equal(200);
      // strategies: i % 3 over i = 0..54 -> 18 full cycles (3 each) + (0) = 54 + 0 = 18*3 = 54, plus i=54 -> 0
      expect(response.body).to.deep.equal({
        total_agents: 55,
        active_agents: 54,
        strategies_submitted: 54,
        total_deposits_usdc: 1500.25,
      });
    });
  });

  describe("GET /api/v1/vaults", function () {
    let vaultApi: TestApp;
    let deployment: Deployment;

    before(async function () {
      deployment = await deployTestSystem();
      vaultApi = await startTestApp({ chain: await hardhatChain(deployment) });
    });

    after(async function () {
      await vaultApi.close();
    });

    async function listVaults() {
      const response = await request<{ vaults: Array<Record<string, unknown>>; total: number }>(
        vaultApi.url,
        "GET",
        "/api/v1/vaults",
      );
      expect(response.status).to.equal(200);
      expect(response.headers.get("content-type")).to.equal("application/json; charset=utf-8");
      return response.body;
    }

    it("lists the six vaults of the deployment through the VaultLens, with every field of the spec", async function () {
      const body = await listVaults();
      expect(body.total).to.equal(6);
      const ids = ["conservative", "moderate", "aggressive", "inverse", "hedged", "configurable"] as const;
      expect(body.vaults.map((v) => v.address)).to.deep.equal(ids.map((id) => deployment.vaults[id]!.address));
      for (const [i, vault] of body.vaults.entries()) {
        const token = await ethers.getContractAt("IERC20Metadata", deployment.vaults[ids[i]]!.address);
        expect(vault).to.deep.equal({
          address: deployment.vaults[ids[i]]!.address,
          name: await token.name(),
          asset: "USDC",
          total_assets: "0",
          apy: 0,
          status: "active",
        });
      }
    });

    it("shows deposits as whole USDC and a paused vault as paused, after a new block", async function () {
      const [, guardian, holder] = await ethers.getSigners();
      const faucet = deployment.contracts.NapFaucet!.address;
      await ethers.provider.send("hardhat_impersonateAccount", [faucet]);
      await ethers.provider.send("hardhat_setBalance", [faucet, "0x56BC75E2D63100000"]);
      const usdc = TestUSDC__factory.connect(deployment.usdc.address, await ethers.getSigner(faucet));
      await usdc.mint(holder.address, 1_250_500_000n);
      await ethers.provider.send("hardhat_stopImpersonatingAccount", [faucet]);
      const conservative = deployment.vaults.conservative!.address;
      await TestUSDC__factory.connect(deployment.usdc.address, holder).approve(conservative, 1_250_500_000n);
      const vault = await ethers.getContractAt("IERC4626", conservative, holder);
      await vault.deposit(1_250_500_000n, holder.address);
      const pausable = await ethers.getContractAt("INapVault", deployment.vaults.aggressive!.address, guardian);
      await pausable.pause();

      const body = await listVaults();
      expect(body.vaults[0]).to.include({ total_assets: "1250.5", status: "active" });
      expect(body.vaults[2]).to.include({ status: "paused" });
    });

    it("serves repeated reads in one block from the cache and re-reads after a new block", async function () {
      const vaults = vaultApi.app.useCases.vaults;
      const first = await vaults.list();
      expect(await vaults.list()).to.equal(first);
      await ethers.provider.send("evm_mine", []);
      const second = await vaults.list();
      expect(second).to.not.equal(first);
      expect(second).to.deep.equal(first);
    });

    it("asks the node for the block number once per TTL, ahead in its last 100 ms, sharing one request among concurrent reads", async function () {
      let now = 1_000_000;
      let asked = 0;
      const provider = ethers.provider;
      const counting = new Proxy(provider, {
        get(target, property, receiver) {
          if (property === "getBlockNumber") return () => (asked++, target.getBlockNumber());
          const value = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const chain = createChainAccess(counting, 31337, deployment, { head: { latestTtlMs: 250, now: () => now } });
      // Listing vaults needs neither the engine, the wallets nor the agents.
      const vaults = new Vaults(chain, null as never, null as never, null as never);
      const first = await Promise.all(Array.from({ length: 10 }, () => vaults.list()));
      expect(asked).to.equal(1);
      for (const list of first) expect(list).to.equal(first[0]);
      await ethers.provider.send("evm_mine", []);
      now += 149;
      expect(await vaults.list()).to.equal(first[0]);
      expect(asked).to.equal(1, "nothing asked before the last 100 ms");
      now += 1;
      const ahead = await Promise.all(Array.from({ length: 10 }, () => vaults.list()));
      for (const list of ahead) expect(list).to.equal(first[0], "the kept block while the next number is asked");
      expect(asked).to.equal(2, "one request ahead, whatever the number of reads");
      now += 100;
      const after = await vaults.list();
      expect(asked).to.equal(2, "at the TTL the number asked ahead is used (waited for if not answered yet)");
      expect(after).to.not.equal(first[0]);
      expect(after.map((vault) => vault.id)).to.deep.equal(first[0].map((vault) => vault.id));
    });

    it("never reads below a block this instance saw, whatever the TTL of the latest block", async function () {
      let now = 2_000_000;
      const chain = createChainAccess(ethers.provider, 31337, deployment, {
        head: { latestTtlMs: 250, now: () => now },
      });
      const vaults = new Vaults(chain, null as never, null as never, null as never);
      const before = await vaults.list();
      const [, , holder] = await ethers.getSigners();
      const faucet = deployment.contracts.NapFaucet!.address;
      await ethers.provider.send("hardhat_impersonateAccount", [faucet]);
      await ethers.provider.send("hardhat_setBalance", [faucet, "0x56BC75E2D63100000"]);
      await TestUSDC__factory.connect(deployment.usdc.address, await ethers.getSigner(faucet)).mint(
        holder.address,
        1_000_000n,
      );
      await ethers.provider.send("hardhat_stopImpersonatingAccount", [faucet]);
      const usdc = TestUSDC__factory.connect(deployment.usdc.address, holder);
      const conservative = deployment.vaults.conservative!.address;
      await (await usdc.approve(conservative, 1_000_000n)).wait();
      const vault = await ethers.getContractAt("IERC4626", conservative, holder);
      const receipt = await (await vault.deposit(1_000_000n, holder.address)).wait();
      // The TTL has not passed, but this instance saw the deposit's block (a receipt of its engine, say).
      now += 1;
      chain.head.saw(receipt!.blockNumber);
      const after = await vaults.list();
      // Exactly the vault's state at the deposit's block (the deposit itself, less what the vault accrues on entry).
      const atDeposit = await vault.totalAssets({ blockTag: receipt!.blockNumber });
      expect(atDeposit).to.not.equal(before[0].totalAssets);
      expect(after[0].totalAssets).to.equal(atDeposit);
    });

    it("answers 503 when the deployment lists no VaultLens", async function () {
      const withoutLens: Deployment = { ...deployment, contracts: { ...deployment.contracts } };
      delete withoutLens.contracts.VaultLens;
      const other = await startTestApp({ chain: await hardhatChain(withoutLens) });
      try {
        const response = await request(other.url, "GET", "/api/v1/vaults");
        expect(response.status).to.equal(503);
        expect(response.body).to.deep.equal({
          error: "the deployment file lists no VaultLens: this endpoint is unavailable",
        });
      } finally {
        await other.close();
      }
    });
  });

  describe("errors and documents", function () {
    it("answers 500 without internals for an unexpected error", async function () {
      const response = await request(api.url, "GET", "/api/v1/test/crash");
      expect(response.status).to.equal(500);
      expect(response.body).to.deep.equal({ error: "internal server error" });
    });

    it("serves an OpenAPI 3.1 document that covers every mounted route", async function () {
      const response = await request<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(
        api.url,
        "GET",
        "/openapi.json",
      );
      expect(response.status).to.equal(200);
      expect(response.body.openapi).to.equal("3.1.0");
      const documented = Object.entries(response.body.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((method) => `${method} ${path}`),
      );
      const mounted = api.app.routeDefinitions.map((route) => `${route.method} ${openApiPath(route.path)}`);
      expect(documented.sort()).to.deep.equal(mounted.sort());
      for (const expected of [
        "get /api/v1/agent/auth/nonce",
        "post /api/v1/agent/auth/register",
        "get /api/v1/agent/auth/lookup",
        "get /api/v1/agents",
        "get /api/v1/agents/stats",
        "get /health",
        "get /api/v1/vaults",
        "post /api/v1/operator/agents/{agent_id}/tier",
        "get /openapi.json",
        "get /docs",
      ]) {
        expect(documented).to.include(expected);
      }
      const register = response.body.paths["/api/v1/agent/auth/register"].post as OpenApiOperation;
      expect(register.requestBody.content["application/json"].schema).to.deep.equal({
        $ref: "#/components/schemas/RegisterRequest",
      });
      const schema = (response.body as unknown as OpenApiDoc).components.schemas.RegisterRequest;
      expect(schema.additionalProperties).to.equal(false);
      expect(schema.required.sort()).to.deep.equal([
        "agent_name",
        "nonce",
        "operator_address",
        "signature",
        "wallet_address",
      ]);
      expect(schema.properties.agent_name).to.include({ minLength: 3, maxLength: 100 });
      expect(schema.properties.description).to.include({ maxLength: 500 });
      expect(schema.properties.agent_type.enum).to.deep.equal([
        "trading",
        "governance",
        "analytics",
        "custom",
        "quant",
        "cfo",
        "research",
      ]);
      expect((response.body as unknown as OpenApiDoc).components.schemas.Error).to.deep.equal({
        type: "object",
        properties: { error: { type: "string", description: "human-readable description of what was wrong" } },
        required: ["error"],
        additionalProperties: false,
      });
      const tier = response.body.paths["/api/v1/operator/agents/{agent_id}/tier"].post as OpenApiOperation;
      expect(tier.security).to.deep.equal([{ ApiKey: [] }]);
      expect(Object.keys(tier.responses)).to.include.members(["200", "400", "401", "403", "404", "429", "503"]);
    });

    it("serves the Swagger UI reference from the service itself, loading nothing from other hosts", async function () {
      const response = await fetch(`${api.url}/docs`);
      expect(response.status).to.equal(200);
      expect(response.headers.get("content-type")).to.equal("text/html; charset=utf-8");
      const html = await response.text();
      expect(html).to.not.match(/(src|href)="(https?:)?\/\//);
      const loaded = [...html.matchAll(/<(?:script|link)[^>]* (?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      // Links to the data API's reference and GraphiQL, on this service too.
      expect([...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1])).to.deep.equal(["/v1/docs", "/graphql"]);
      expect(loaded).to.deep.equal([
        "/docs/assets/favicon-32x32.png",
        "/docs/assets/swagger-ui.css",
        "/docs/assets/swagger-ui-bundle.js",
        "/docs/assets/start.js",
      ]);
      const { absolutePath } = await import("swagger-ui-dist");
      const { readFileSync } = await import("node:fs");
      for (const asset of loaded) {
        const file = await fetch(`${api.url}${asset}`);
        expect(file.status, asset).to.equal(200);
        const body = Buffer.from(await file.arrayBuffer());
        if (asset !== "/docs/assets/start.js") {
          expect(body.equals(readFileSync(`${absolutePath()}/${asset.slice("/docs/assets/".length)}`)), asset).to.equal(
            true,
          );
        } else {
          expect(body.toString()).to.include('url: "/openapi.json"');
        }
      }
      expect((await fetch(`${api.url}/docs/assets/index.html`)).status).to.equal(404);
      expect((await fetch(`${api.url}/docs/assets/../../package.json`)).status).to.equal(404);
    });

    it("marks public operations with an empty security requirement and documents the rate-limit headers", async function () {
      const doc = (await request(api.url, "GET", "/openapi.json")).body as unknown as {
        paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, { headers?: object }> }>>;
      };
      expect(doc.paths["/api/v1/vaults"].get.security).to.deep.equal([]);
      expect(doc.paths["/api/v1/agent/vault/deposit"].post.security).to.deep.equal([{ ApiKey: [] }]);
      expect(Object.keys(doc.paths["/api/v1/vaults"].get.responses["200"].headers!)).to.deep.equal([
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
      ]);
      expect(doc.paths["/api/v1/agent/vault/claim"].post.responses["409"].headers).to.have.property("Retry-After");
      expect(doc.paths["/docs"].get).to.not.have.property("x-rate-limit");
    });

    it("redacts API keys, signatures and mnemonics in logs", function () {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const logger = createLogger("info", sink);
      logger.info({
        req: { headers: { "x-api-key": "nap-SECRETSECRETSECRETSECRETSECRET12" } },
        body: { api_key: "nap-SECRET2", signature: "0xSIGNATURE" },
        mnemonic: "myth like bonus",
      });
      const output = lines.join("");
      expect(output).to.not.match(/SECRET|SIGNATURE|myth/);
      expect(output).to.include("[redacted]");
    });
  });
});
