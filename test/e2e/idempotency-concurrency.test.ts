import { expect } from "chai";
import { ethers, network } from "hardhat";
import { toBeHex } from "ethers";
import type { Deployment } from "../../api/src/chain/deployment";
import { registerAgent } from "../api/helpers/app";
import { deployTestSystem } from "../api/helpers/system";
import { StrategyRegistryV3__factory, TestUSDC__factory } from "../../typechain-types";
import { client, startE2eApp, type E2eSystem } from "./helpers";
import { recordFigure } from "../helpers/figures";

type Body = Record<string, unknown>;

/**
 * Idempotency-Key through HTTP (sequential and concurrent duplicates give one transaction and one body) and
 * concurrency (many agents submitting at once: every submission mined, no nonce error, each strategy listed once).
 * Rate limits are lifted (RATE_LIMITS_DISABLED, as the test app sets it).
 */
describe("E2E: idempotency and concurrency through HTTP", function () {
  this.timeout(300_000);

  let deployment: Deployment;
  let system: E2eSystem;
  let base: string;

  before(async function () {
    deployment = await deployTestSystem();
    // These tests are about submissions themselves (strategies stay in shadow): automated screening is off.
    system = await startE2eApp("idemconc", deployment, { STRATEGY_SCREENING: "off" });
    base = system.app.url;
  });

  after(async function () {
    await system?.close();
  });

  async function agentWithFaucet() {
    const { apiKey, agentId } = await registerAgent(base);
    const call = client(base, apiKey);
    const drip = await call("POST", "/api/v1/agent/faucet");
    expect(drip.status).to.equal(200);
    return { call, agentId, address: drip.body.agent_address as string };
  }

  const registry = () =>
    StrategyRegistryV3__factory.connect(deployment.contracts.StrategyRegistryV3.address, ethers.provider);

  describe("Idempotency-Key", function () {
    it("answers a retry of a submission with the first body and sends one transaction", async function () {
      const { call, address } = await agentWithFaucet();
      const body = { name: "Idempotent", description: "Submitted twice with one key" };
      const first = await call("POST", "/api/v1/agent/strategy/submit", body, { "Idempotency-Key": "submit-1" });
      expect(first.status).to.equal(200);
      const nonce = await ethers.provider.getTransactionCount(address);
      const second = await call("POST", "/api/v1/agent/strategy/submit", body, { "Idempotency-Key": "submit-1" });
      expect(second.status).to.equal(200);
      expect(second.body).to.deep.equal(first.body);
      expect(await ethers.provider.getTransactionCount(address)).to.equal(nonce);
      expect(await registry().strategyCountOf(address)).to.equal(1n);

      const other = await call(
        "POST",
        "/api/v1/agent/strategy/submit",
        { ...body, name: "Other body" },
        { "Idempotency-Key": "submit-1" },
      );
      expect(other.status).to.equal(409);
      expect(other.body.error).to.equal("Idempotency-Key: this key was already used with a different request");
      const bad = await call("POST", "/api/v1/agent/strategy/submit", body, { "Idempotency-Key": "has space" });
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.equal("Idempotency-Key: must be 1-255 printable ASCII characters without spaces");
    });

    it("makes concurrent duplicates wait for the first: 8 at once, one transaction, one body", async function () {
      const { call, address } = await agentWithFaucet();
      const nonce = await ethers.provider.getTransactionCount(address);
      const body = { name: "Concurrent duplicate", description: "Eight requests, one key" };
      const responses = await Promise.all(
        Array.from({ length: 8 }, () =>
          call("POST", "/api/v1/agent/strategy/submit", body, { "Idempotency-Key": "dup-8" }),
        ),
      );
      for (const response of responses) {
        expect(response.status).to.equal(200);
        expect(response.body).to.deep.equal(responses[0].body);
      }
      expect(await ethers.provider.getTransactionCount(address)).to.equal(nonce + 1);
      expect(await registry().strategyCountOf(address)).to.equal(1n);
    });

    it("deposits once for a key given twice (also concurrently), and drips once", async function () {
      const { call, address, agentId } = await agentWithFaucet();
      const usdc = TestUSDC__factory.connect(deployment.usdc.address, ethers.provider);
      const before = await usdc.balanceOf(address);
      const body = { vault_id: "conservative", amount_usdc: 10 };
      const [a, b] = await Promise.all([
        call("POST", "/api/v1/agent/vault/deposit", body, { "Idempotency-Key": "dep-1" }),
        call("POST", "/api/v1/agent/vault/deposit", body, { "Idempotency-Key": "dep-1" }),
      ]);
      const c = await call("POST", "/api/v1/agent/vault/deposit", body, { "Idempotency-Key": "dep-1" });
      expect(a.status).to.equal(200);
      expect(b.body).to.deep.equal(a.body);
      expect(c.body).to.deep.equal(a.body);
      expect(await usdc.balanceOf(address)).to.equal(before - 10_000_000n);
      expect((await system.store.agents.findById(agentId))?.depositsMicroUsdc).to.equal("10000000");

      // What a process leaves when it dies after the deposit was mined but before it was counted (and so before its
      // answer was kept): the retry with the same key is answered from the transaction journal and counts it, once.
      const depositTx = (a.body.deposit_tx as string).toLowerCase();
      await system.store.db.collection("agent_deposits").deleteOne({ _id: depositTx as never });
      const kept = await system.store.db
        .collection("idempotent_responses")
        .deleteMany({ body: { $regex: depositTx, $options: "i" } });
      expect(kept.deletedCount).to.equal(1);
      await system.store.db
        .collection("agents")
        .updateOne({ _id: agentId as never }, { $set: { depositsMicroUsdc: 0 } });
      const retried = await call("POST", "/api/v1/agent/vault/deposit", body, { "Idempotency-Key": "dep-1" });
      expect(retried.body).to.deep.equal(a.body);
      await call("POST", "/api/v1/agent/vault/deposit", body, { "Idempotency-Key": "dep-1" });
      expect((await system.store.agents.findById(agentId))?.depositsMicroUsdc).to.equal("10000000");
      expect(await usdc.balanceOf(address)).to.equal(before - 10_000_000n);

      const { apiKey } = await registerAgent(base);
      const fresh = client(base, apiKey);
      const drips = await Promise.all([
        fresh("POST", "/api/v1/agent/faucet", undefined, { "Idempotency-Key": "drip-1" }),
        fresh("POST", "/api/v1/agent/faucet", undefined, { "Idempotency-Key": "drip-1" }),
      ]);
      const again = await fresh("POST", "/api/v1/agent/faucet", undefined, { "Idempotency-Key": "drip-1" });
      expect(drips[0].status).to.equal(200);
      expect(drips[1].body).to.deep.equal(drips[0].body);
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.equal(drips[0].body);
      expect(await ethers.provider.getBalance(drips[0].body.agent_address as string)).to.equal(50_000_000_000_000_000n);
      const cooldown = await fresh("POST", "/api/v1/agent/faucet", undefined, { "Idempotency-Key": "drip-2" });
      expect(cooldown.status).to.equal(429);
    });
  });

  describe("concurrency", function () {
    const AGENTS = Number(process.env.E2E_CONCURRENT_AGENTS ?? 20);
    const PER_AGENT = Number(process.env.E2E_STRATEGIES_PER_AGENT ?? 10);

    it(`mines ${AGENTS} agents x ${PER_AGENT} strategies submitted at once, no nonce error, each listed once`, async function () {
      const agents = [];
      for (let i = 0; i < AGENTS; i++) {
        const { apiKey } = await registerAgent(base);
        const call = client(base, apiKey);
        const wallet = await call("GET", "/api/v1/agent/wallet");
        const address = wallet.body.agent_address as string;
        await network.provider.send("hardhat_setBalance", [address, toBeHex(ethers.parseEther("1"))]);
        agents.push({ call, address });
      }
      const started = Date.now();
      const results = await Promise.all(
        agents.flatMap((agent, a) =>
          Array.from({ length: PER_AGENT }, (_, s) =>
            agent.call("POST", "/api/v1/agent/strategy/submit", {
              name: `agent ${a} strategy ${s}`,
              description: `Concurrent submission ${s} of agent ${a}`,
            }),
          ),
        ),
      );
      const seconds = (Date.now() - started) / 1000;
      const failures = results.filter((r) => r.status !== 200).map((r) => `${r.status} ${JSON.stringify(r.body)}`);
      expect(failures).to.deep.equal([]);
      expect(results.map((r) => JSON.stringify(r.body)).filter((t) => /nonce/i.test(t))).to.deep.equal([]);
      const hashes = new Set(results.map((r) => r.body.tx_hash as string));
      expect(hashes.size).to.equal(AGENTS * PER_AGENT);
      for (const [a, agent] of agents.entries()) {
        const list = await agent.call<{ strategies: Body[]; total_count: number }>(
          "GET",
          "/api/v1/agent/strategy/list",
        );
        expect(list.body.total_count).to.equal(PER_AGENT);
        expect(list.body.strategies.map((s) => s.name).sort()).to.deep.equal(
          Array.from({ length: PER_AGENT }, (_, s) => `agent ${a} strategy ${s}`).sort(),
        );
        expect(await ethers.provider.getTransactionCount(agent.address)).to.equal(PER_AGENT);
      }
      recordFigure("concurrent submissions", `${AGENTS * PER_AGENT} submissions in ${seconds.toFixed(1)} s`);
    });
  });
});
