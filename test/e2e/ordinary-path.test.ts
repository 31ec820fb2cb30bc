import { expect } from "chai";
import { ethers } from "hardhat";
import { HDNodeWallet, formatUnits } from "ethers";
import { connectChain } from "../../api/src/chain";
import type { Deployment } from "../../api/src/chain/deployment";
import { createMemoryStore } from "../../api/src/store/memory";
import type { Stores } from "../../api/src/store";
import { NapVault__factory, StrategyRegistryV3__factory } from "../../typechain-types";
import { registerAgent, startTestApp, type TestApp } from "../api/helpers/app";
import { deployTestSystem } from "../api/helpers/system";
import { client, DEV_MNEMONIC, OPERATOR_KEY, serveDeployment } from "./helpers";

type Body = Record<string, unknown>;
type Call = ReturnType<typeof client>;

/**
 * The ordinary path of a new agent, driven as a client written from the spec would drive it: step after step with no
 * waits, reading right after writing, and concurrently. The API talks to the chain over HTTP JSON-RPC through the
 * provider it builds in production. A read must never show less than what a write already returned.
 */
describe("E2E: the ordinary path of a new agent, over JSON-RPC (read-your-writes, nonces, text)", function () {
  this.timeout(600_000);

  let deployment: Deployment;
  let rpc: Awaited<ReturnType<typeof serveDeployment>>;
  let store: Stores;

  before(async function () {
    deployment = await deployTestSystem();
    rpc = await serveDeployment(deployment);
    store = createMemoryStore();
  });

  after(async function () {
    await rpc?.close();
  });

  /** A fresh start of the API (new provider, new engine, nothing warm) on the shared chain and the given store. */
  async function startApi(onStore: Stores, env: Record<string, string> = {}): Promise<TestApp> {
    const chain = await connectChain({
      rpcUrl: rpc.rpcUrl,
      chainId: deployment.chainId,
      deploymentFile: rpc.deploymentFile,
      warn: () => undefined,
    });
    const app = await startTestApp({
      store: onStore,
      chain,
      env: { SERVER_WALLET_MNEMONIC: DEV_MNEMONIC, AGENT_API_KEYS: OPERATOR_KEY, ...env },
      extra: { engineOptions: { pollIntervalMs: 20 } },
    });
    await app.app.useCases.start();
    return {
      ...app,
      async close() {
        await app.app.useCases.settled();
        await app.close();
        chain.provider.destroy();
      },
    };
  }

  async function newAgentWithFaucet(api: TestApp): Promise<{ call: Call; address: string; agentId: string }> {
    const { apiKey, agentId } = await registerAgent(api.url);
    const call = client(api.url, apiKey);
    const drip = await call("POST", "/api/v1/agent/faucet");
    expect(drip.status, JSON.stringify(drip.body)).to.equal(200);
    return { call, address: drip.body.agent_address as string, agentId };
  }

  const vault = () => NapVault__factory.connect(deployment.vaults.moderate!.address, ethers.provider);
  const registry = () =>
    StrategyRegistryV3__factory.connect(deployment.contracts.StrategyRegistryV3.address, ethers.provider);

  /**
   * One agent's first minutes: faucet, wallet, deposit, positions, wallet, vault list, submit, list, eligibility; every
   * read checked against the write before it. Returns the problems found (empty when none).
   */
  async function firstMinutes(api: TestApp, label: string): Promise<string[]> {
    const problems: string[] = [];
    const check = (ok: boolean, what: string, body: unknown) => {
      if (!ok) problems.push(`${label}: ${what}: ${JSON.stringify(body)}`);
    };
    const { apiKey } = await registerAgent(api.url);
    const call = client(api.url, apiKey);

    const drip = await call("POST", "/api/v1/agent/faucet");
    check(drip.status === 200, "faucet", drip.body);
    if (drip.status !== 200) return problems;
    const wallet = await call("GET", "/api/v1/agent/wallet");
    check(
      wallet.body.eth_balance_wei === drip.body.drip_amount_wei &&
        wallet.body.usdc_balance_raw === drip.body.drip_amount_usdc_raw &&
        wallet.body.has_gas === true,
      "wallet right after the drip shows less than the drip",
      wallet.body,
    );

    const deposit = await call("POST", "/api/v1/agent/vault/deposit", { vault_id: "moderate", amount_usdc: 10 });
    check(deposit.status === 200, "deposit", deposit.body);
    if (deposit.status !== 200) return problems;
    const positions = await call<{ positions: Body[] }>("GET", "/api/v1/agent/vault/positions");
    const decimals = Number(await vault().decimals());
    check(
      positions.body.positions?.length === 1 &&
        positions.body.positions[0].shares ===
          formatUnits(BigInt(deposit.body.shares_balance as string), decimals).replace(/\.0$/, ""),
      "positions right after the deposit do not show its shares",
      positions.body,
    );
    const afterDeposit = await call("GET", "/api/v1/agent/wallet");
    check(
      afterDeposit.body.usdc_balance_raw ===
        (BigInt(drip.body.drip_amount_usdc_raw as string) - 10_000_000n).toString(),
      "wallet right after the deposit still shows the USDC deposited",
      afterDeposit.body,
    );
    const vaults = await call<{ vaults: Body[] }>("GET", "/api/v1/vaults");
    const totalAtDeposit = await vault().totalAssets({ blockTag: deposit.body.block_number as number });
    const listed = vaults.body.vaults.find((v) => v.address === deployment.vaults.moderate!.address);
    check(
      listed !== undefined && ethers.parseUnits(listed.total_assets as string, 6) >= totalAtDeposit,
      `vault list right after the deposit shows less than ${formatUnits(totalAtDeposit, 6)} in the vault`,
      listed,
    );

    const submit = await call("POST", "/api/v1/agent/strategy/submit", {
      name: `first strategy ${label}`,
      description: "submitted right after the first deposit",
    });
    check(submit.status === 200, "submission right after the deposit", submit.body);
    if (submit.status !== 200) return problems;
    const list = await call<{ strategies: Body[]; total_count: number }>("GET", "/api/v1/agent/strategy/list");
    check(
      list.body.total_count === 1 && list.body.strategies?.[0]?.strategy_id === submit.body.strategy_id,
      "strategy list right after the submission does not show it",
      list.body,
    );
    const eligibility = await call<{ criteria: Body[] }>("GET", "/api/v1/agent/galaxy/eligibility");
    const submitted = eligibility.body.criteria?.find((c) => c.id === "strategy_submitted");
    check(submitted?.met === true && submitted.value === 1, "eligibility does not count the submission", submitted);
    return problems;
  }

  it("10 fresh starts of the API: faucet, deposit, submit straight after one another, then list: all 200, all listed", async function () {
    const problems: string[] = [];
    for (let start = 0; start < 10; start++) {
      const api = await startApi(store);
      try {
        const { apiKey } = await registerAgent(api.url);
        const call = client(api.url, apiKey);
        const steps: [string, Promise<{ status: number; body: Body }>][] = [];
        for (const [what, method, path, body] of [
          ["faucet", "POST", "/api/v1/agent/faucet", undefined],
          ["deposit", "POST", "/api/v1/agent/vault/deposit", { vault_id: "moderate", amount_usdc: 1 }],
          [
            "submit",
            "POST",
            "/api/v1/agent/strategy/submit",
            { name: "straight", description: "right after a deposit" },
          ],
          ["list", "GET", "/api/v1/agent/strategy/list", undefined],
        ] as const) {
          const response = await call(method, path, body);
          steps.push([what, Promise.resolve(response)]);
          if (response.status !== 200)
            problems.push(`start ${start + 1}: ${what}: ${response.status} ${JSON.stringify(response.body)}`);
          else if (what === "list" && response.body.total_count !== 1) {
            problems.push(`start ${start + 1}: list right after the submission: ${JSON.stringify(response.body)}`);
          }
          if (response.status !== 200) break;
        }
      } finally {
        await api.close();
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it("10 fresh starts of the API: faucet, deposit, submit and list each answer 200 and show the write before", async function () {
    const problems: string[] = [];
    for (let start = 0; start < 10; start++) {
      const api = await startApi(store);
      try {
        problems.push(...(await firstMinutes(api, `start ${start + 1}`)));
      } finally {
        await api.close();
      }
    }
    expect(problems).to.deep.equal([]);
  });

  describe("on one running API", function () {
    let api: TestApp;

    before(async function () {
      api = await startApi(store);
    });

    after(async function () {
      await api?.close();
    });

    it("10 agents at once through their first minutes: every write answered 200 and every read shows it", async function () {
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => firstMinutes(api, `agent ${i + 1}`)));
      expect(outcomes.flat()).to.deep.equal([]);
    });

    it("10 concurrent submissions by one agent, then a list that shows all 10", async function () {
      const { call, address } = await newAgentWithFaucet(api);
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          call("POST", "/api/v1/agent/strategy/submit", {
            name: `concurrent ${i}`,
            description: `one of ten submitted at once (${i})`,
          }),
        ),
      );
      expect(responses.map((r) => r.status)).to.deep.equal(Array(10).fill(200));
      const list = await call<{ strategies: Body[]; total_count: number }>("GET", "/api/v1/agent/strategy/list");
      expect(list.status).to.equal(200);
      expect(list.body.total_count).to.equal(10);
      expect(list.body.strategies.map((s) => s.strategy_id).sort()).to.deep.equal(
        responses.map((r) => r.body.strategy_id).sort(),
      );
      expect(await registry().strategyCountOf(address)).to.equal(10n);
    });

    it("5 concurrent deposits by one agent into one vault all succeed and add up", async function () {
      const { call, address } = await newAgentWithFaucet(api);
      const responses = await Promise.all(
        Array.from({ length: 5 }, () =>
          call("POST", "/api/v1/agent/vault/deposit", { vault_id: "moderate", amount_usdc: 7 }),
        ),
      );
      expect(
        responses.map((r) => r.status),
        JSON.stringify(responses.map((r) => r.body)),
      ).to.deep.equal(Array(5).fill(200));
      const wallet = await call("GET", "/api/v1/agent/wallet");
      expect(wallet.body.usdc_balance_raw).to.equal((1_000_000_000n - 35_000_000n).toString());
      const shares = await vault().balanceOf(address);
      expect(shares).to.equal(
        BigInt(responses.map((r) => BigInt(r.body.shares_balance as string)).reduce((a, b) => (a > b ? a : b))),
      );
      // The value of all five deposits' shares, as the vault converts them (rounded down; the vault accrues on entry).
      const positions = await call<{ positions: Body[] }>("GET", "/api/v1/agent/vault/positions");
      const value = await vault().convertToAssets(shares);
      expect(value).to.be.within(34_000_000n, 35_000_000n);
      expect(positions.body.positions.map((p) => p.value_usdc)).to.deep.equal([
        formatUnits(value, 6).replace(/\.0$/, ""),
      ]);
    });

    describe("text fields", function () {
      const BAD_TEXT: [string, string][] = [
        ["a lone high surrogate", "name \ud800 here"],
        ["a lone low surrogate", "name \udc00 here"],
        ["NUL", "name \u0000 here"],
        ["a newline", "name \n here"],
        ["an ANSI escape", "name \u001b[31m red"],
        ["a right-to-left override", "name \u202e here"],
        ["a bidi isolate", "name \u2067 here"],
      ];

      for (const [what, text] of BAD_TEXT) {
        it(`refuses a strategy name with ${what} with 400 naming the field, before any transaction`, async function () {
          const { call, address } = await newAgentWithFaucet(api);
          const nonce = await ethers.provider.getTransactionCount(address);
          const response = await call("POST", "/api/v1/agent/strategy/submit", {
            name: text,
            description: "a strategy with a bad name",
          });
          expect(response.status, JSON.stringify(response.body)).to.equal(400);
          expect(response.body.error).to.match(/^name: /);
          expect(await ethers.provider.getTransactionCount(address)).to.equal(nonce);
        });
      }

      it("refuses a description with a lone low surrogate, and a vote reason with a bidi override", async function () {
        const { call } = await newAgentWithFaucet(api);
        const description = await call("POST", "/api/v1/agent/strategy/submit", {
          name: "good name",
          description: "description \udc00 with a lone low surrogate",
        });
        expect(description.status).to.equal(400);
        expect(description.body.error).to.match(/^description: /);
        const voter = await newAgentWithFaucet(api);
        const grant = await client(api.url, OPERATOR_KEY)("POST", `/api/v1/operator/agents/${voter.agentId}/tier`, {
          tier: "established",
        });
        expect(grant.status).to.equal(200);
        const vote = await voter.call("POST", "/api/v1/agent/governance/vote", {
          proposal_id: 1,
          support: 1,
          reason: "because \u202e reasons",
        });
        expect(vote.status).to.equal(400);
        expect(vote.body.error).to.match(/^reason: /);
      });

      it("refuses agent text fields with control, bidi or lone surrogate characters at registration", async function () {
        for (const [field, value] of [
          ["agent_name", "agent \u202e name"],
          ["agent_name", "agent \ud800 name"],
          ["description", "about \u0000 me"],
          ["description", "about \udc00 me"],
          ["operator_name", "op \u2066 name"],
          ["framework", "frame\u001b[0m"],
        ]) {
          const response = await registerAgent(api.url, undefined, { [field]: value }).then(
            () => ({ status: 200, error: "" }),
            (error: Error) => ({ status: 400, error: error.message }),
          );
          expect(response.error, `${field} ${JSON.stringify(value)}`).to.match(
            new RegExp(`^register: 400 \\{"error":"${field}: `),
          );
        }
      });

      it("keeps a strategy list readable when a strategy's text onchain is not valid UTF-8", async function () {
        const { call, agentId } = await newAgentWithFaucet(api);
        const record = await store.agents.findById(agentId);
        // The agent's own server wallet, used directly (as a script holding the mnemonic could): the API never sent this.
        const signer = HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/1'/0/${record!.agentIndex}`).connect(
          ethers.provider,
        );
        const params = {
          maxPositionSizePercent: 10,
          maxLeverage: 200,
          stopLossPercent: 500,
          slippageToleranceBps: 100,
          correlationThreshold: 70,
          velocityLimit: 1_000_000,
          flashLoansEnabled: false,
        };
        // ethers encodes a lone low surrogate as the bytes ED B0 80, which are not UTF-8.
        await (
          await registry().connect(signer).submit("raw name", "raw \udc00 description", ethers.id("raw dna"), params)
        ).wait();
        // This write went around the API, so the read rule does not cover it: the API sees it once its chain head
        // has moved on (within the head's 250 ms).
        let list = await call<{ strategies: Body[] }>("GET", "/api/v1/agent/strategy/list");
        for (let tries = 0; list.status === 200 && list.body.strategies.length === 0 && tries < 40; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          list = await call<{ strategies: Body[] }>("GET", "/api/v1/agent/strategy/list");
        }
        expect(list.status, JSON.stringify(list.body)).to.equal(200);
        expect(list.body.strategies.map((s) => s.description)).to.deep.equal(["raw \ufffd\ufffd\ufffd description"]);
      });
    });
  });

  it("gives a new agent a wallet never used on the chain after a restart of the API with an in-memory store", async function () {
    const first = await startApi(createMemoryStore());
    let oldAddress: string;
    try {
      const { call, address } = await newAgentWithFaucet(first);
      oldAddress = address;
      expect(
        (await call("POST", "/api/v1/agent/strategy/submit", { name: "old", description: "the old agent's" })).status,
      ).to.equal(200);
    } finally {
      await first.close();
    }
    const second = await startApi(createMemoryStore());
    try {
      const { apiKey } = await registerAgent(second.url);
      const call = client(second.url, apiKey);
      const wallet = await call("GET", "/api/v1/agent/wallet");
      expect(wallet.body.agent_address).to.not.equal(oldAddress);
      expect(wallet.body).to.include({ eth_balance_wei: "0", usdc_balance_raw: "0" });
      expect((await call("GET", "/api/v1/agent/strategy/list")).body.total_count).to.equal(0);
    } finally {
      await second.close();
    }
  });
});
