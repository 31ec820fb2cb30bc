import { expect } from "chai";
import { Writable } from "node:stream";
import { ethers } from "hardhat";
import { time } from "@nomicfoundation/hardhat-network-helpers";
import type { Deployment } from "../../../api/src/chain/deployment";
import { createChainAccess } from "../../../api/src/chain";
import { annualisedApy } from "../../../api/src/chain/vaults";
import { createLogger } from "../../../api/src/logger";
import { defineRoute } from "../../../api/src/http/route";
import { openApiPath } from "../../../api/src/http/openapi";
import type { MongoStore } from "../../../api/src/store/mongo";
import { SERVICE_VERSION } from "../../../api/src/version";
import { MockApiVault__factory, TestUSDC__factory } from "../../../typechain-types";
import { sampleAgent } from "../store/conformance";
import { request, startTestApp, hardhatChain, type TestApp } from "../helpers/app";
import { dropMongoStore, freshMongoStore } from "../helpers/mongo";
import { JsonRpcProvider } from "ethers";

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
        expect(vaults.body).to.deep.equal({ error: "no deployment file for chain 31337: vaults are unavailable" });
      } finally {
        await degraded.close();
        deadProvider.destroy();
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
      const response = await request<{ agents: Array<Record<string, unknown>>; count: number }>(api.url, "GET", "/api/v1/agents");
      expect(response.status).to.equal(200);
      expect(response.body.count).to.equal(50);
      expect(response.body.agents).to.have.length(50);
      const scores = response.body.agents.map((a) => a.performance_score as number);
      expect(scores).to.deep.equal([...scores].sort((x, y) => y - x));
      expect(scores[0]).to.equal(10);
      expect(Object.keys(response.body.agents[0]).sort()).to.deep.equal(
        ["agent_name", "performance_score", "strategies_submitted", "tier"],
      );
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
    let addresses: string[];

    before(async function () {
      const [deployer] = await ethers.getSigners();
      const usdc = await new TestUSDC__factory(deployer).deploy(deployer.address);
      const now = await time.latest();
      const yearAgo = now - 365 * 24 * 3600;
      const conservative = await new MockApiVault__factory(deployer).deploy(usdc, "NAP Conservative", "napCON", yearAgo);
      const aggressive = await new MockApiVault__factory(deployer).deploy(usdc, "NAP Aggressive", "napAGG", now);
      addresses = [await conservative.getAddress(), await aggressive.getAddress()];
      await usdc.mint(deployer.address, 2_000_000_000n);
      await usdc.approve(conservative, 1_000_000_000n);
      await conservative.deposit(1_000_000_000n, deployer.address); // 1000 USDC
      await usdc.transfer(conservative, 100_500_000n); // yield: 100.5 USDC -> share price 1.1005 after one year
      await aggressive.setPaused(true);
      const deployment: Deployment = {
        chainId: 31337,
        network: "localhost",
        deployer: deployer.address,
        updatedAt: new Date().toISOString(),
        usdc: { address: await usdc.getAddress(), deployedByUs: true },
        contracts: { TestUSDC: { address: await usdc.getAddress(), block: 1 } },
        vaults: {
          conservative: { address: addresses[0], block: 2 },
          aggressive: { address: addresses[1], block: 3 },
        },
        roles: { admin: deployer.address, relayer: deployer.address, guardians: [], oracles: [] },
      };
      vaultApi = await startTestApp({ chain: await hardhatChain(deployment) });
    });

    after(async function () {
      await vaultApi.close();
    });

    it("lists the deployment's vaults from the chain with every field of the spec", async function () {
      const response = await request<{ vaults: Array<Record<string, unknown>>; total: number }>(
        vaultApi.url,
        "GET",
        "/api/v1/vaults",
      );
      expect(response.status).to.equal(200);
      expect(response.body.total).to.equal(2);
      const [conservative, aggressive] = response.body.vaults;
      expect(conservative).to.deep.include({
        address: addresses[0],
        name: "NAP Conservative",
        asset: "USDC",
        total_assets: "1100.5",
        status: "active",
      });
      // One year (to within the few seconds of the test's blocks) at a share price of 1.1005: about 10.05 %.
      expect(conservative.apy as number).to.be.within(10.04, 10.06);
      expect(aggressive).to.deep.equal({
        address: addresses[1],
        name: "NAP Aggressive",
        asset: "USDC",
        total_assets: "0",
        apy: 0,
        status: "paused",
      });
    });

    it("serves repeated reads in one block from the cache and re-reads after a new block", async function () {
      const reader = vaultApi.app.services.chain.vaults!;
      const first = await reader.list();
      expect(await reader.list()).to.equal(first);
      await ethers.provider.send("evm_mine", []);
      expect(await reader.list()).to.not.equal(first);
    });

    it("annualises share-price growth", function () {
      expect(annualisedApy(1_100_000n, 6, 365 * 24 * 3600)).to.equal(10);
      expect(annualisedApy(1_010_000n, 6, (365 * 24 * 3600) / 2)).to.equal(2.01);
      expect(annualisedApy(1_100_000n, 6, 3600)).to.equal(0);
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
      const register = response.body.paths["/api/v1/agent/auth/register"].post as Record<string, any>;
      expect(register.requestBody.content["application/json"].schema).to.deep.equal({
        $ref: "#/components/schemas/RegisterRequest",
      });
      const schema = (response.body as any).components.schemas.RegisterRequest;
      expect(schema.additionalProperties).to.equal(false);
      expect(schema.required.sort()).to.deep.equal(["agent_name", "nonce", "operator_address", "signature", "wallet_address"]);
      expect(schema.properties.agent_name).to.include({ minLength: 3, maxLength: 100 });
      expect(schema.properties.description).to.include({ maxLength: 500 });
      expect(schema.properties.agent_type.enum).to.deep.equal(["trading", "governance", "analytics", "custom", "quant", "cfo", "research"]);
      expect((response.body as any).components.schemas.Error).to.deep.equal({
        type: "object",
        properties: { error: { type: "string", description: "human-readable description of what was wrong" } },
        required: ["error"],
        additionalProperties: false,
      });
      const tier = response.body.paths["/api/v1/operator/agents/{agent_id}/tier"].post as Record<string, any>;
      expect(tier.security).to.deep.equal([{ ApiKey: [] }]);
      expect(Object.keys(tier.responses)).to.include.members(["200", "400", "401", "403", "404", "429", "503"]);
    });

    it("serves a docs page that loads nothing from other hosts", async function () {
      const response = await fetch(`${api.url}/docs`);
      expect(response.status).to.equal(200);
      expect(response.headers.get("content-type")).to.equal("text/html; charset=utf-8");
      const html = await response.text();
      expect(html).to.include('fetch("/openapi.json")');
      expect(html).to.not.match(/(src|href)="(https?:)?\/\//);
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
