import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonRpcProvider, Network, parseEther, toBeHex } from "ethers";
import { MongoClient } from "mongodb";
import { loadDeployment, type Deployment } from "../../api/src/chain/deployment";
import { MongoTxJournal } from "../../api/src/store/mongo/txJournal";
import { StrategyRegistryV3__factory } from "../../typechain-types";
import { registerAgent, request } from "../api/helpers/app";
import { uniqueDbName } from "../api/helpers/mongo";
import { ensureMongo } from "../helpers/services";
import { client, DEV_MNEMONIC } from "./helpers";
import { deployTo, kill, rpc, spawnApi, spawnHardhatNode, type Spawned } from "./processes";
import { recordFigure } from "../helpers/figures";

/**
 * Crash safety at the HTTP level: a spawned API process (MongoDB store and journal) on a spawned Hardhat node with
 * slow interval mining is killed with SIGKILL in the middle of a burst of strategy submissions, while some of its
 * transactions sit unmined in the mempool; half of those are then dropped from the node's mempool, as if they had
 * never left the dead process. A new API process on the same database reconciles its journal before it listens.
 * Every request the first process accepted (200s, and every intent in the journal) must end mined exactly once;
 * retries of the unanswered requests with their Idempotency-Key must add nothing twice.
 */
describe("E2E: API process killed mid-burst (spawned API and Hardhat node, MongoDB)", function () {
  this.timeout(300_000);

  const AGENTS = Number(process.env.E2E_CRASH_AGENTS ?? 5);
  const PER_AGENT = Number(process.env.E2E_CRASH_PER_AGENT ?? 8);

  let node: Spawned;
  let api: Spawned | null = null;
  let outDir: string;
  let deployment: Deployment;
  let mongo: MongoClient;
  let dbName: string;
  let env: Record<string, string>;

  before(async function () {
    node = await spawnHardhatNode();
    outDir = mkdtempSync(join(tmpdir(), "nap-crash-"));
    await deployTo(node.url, outDir);
    deployment = await loadDeployment(join(outDir, "31337.json"), 31337);
    const uri = await ensureMongo();
    mongo = new MongoClient(uri);
    await mongo.connect();
    dbName = uniqueDbName("crash_http");
    env = {
      RPC_URL: node.url,
      CHAIN_ID: "31337",
      DEPLOYMENT_FILE: join(outDir, "31337.json"),
      MONGODB_URI: uri,
      MONGODB_DB: dbName,
      SERVER_WALLET_MNEMONIC: DEV_MNEMONIC,
      RATE_LIMITS_DISABLED: "true",
      SIGNATURE_WORKERS: "0",
      // The transactions counted here are the submissions only.
      STRATEGY_SCREENING: "off",
    };
  });

  after(async function () {
    if (api) await kill(api.child);
    if (node) await kill(node.child);
    await mongo?.db(dbName).dropDatabase();
    await mongo?.close();
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it("ends every accepted submission mined exactly once after SIGKILL, restart and retries", async function () {
    api = await spawnApi(env);
    const agents: { apiKey: string; address: string }[] = [];
    for (let a = 0; a < AGENTS; a++) {
      const { apiKey } = await registerAgent(api.url);
      const call = client(api.url, apiKey);
      const wallet = await call("GET", "/api/v1/agent/wallet");
      const address = wallet.body.agent_address as string;
      await rpc(node.url, "hardhat_setBalance", [address, toBeHex(parseEther("1"))]);
      agents.push({ apiKey, address });
    }
    // Slow blocks: at the kill, some transactions are broadcast but not mined, some intents not yet signed.
    await rpc(node.url, "evm_setAutomine", [false]);
    await rpc(node.url, "evm_setIntervalMining", [1_500]);

    const requests = agents.flatMap((agent, a) =>
      Array.from({ length: PER_AGENT }, (_, s) => ({
        agent,
        key: `crash-${a}-${s}`,
        body: { name: `crash ${a} ${s}`, description: `Burst submission ${s} of agent ${a}` },
      })),
    );
    const firstUrl = api.url;
    const outcomes = new Map<string, { status: number; body: Record<string, unknown> } | null>();
    const burst = requests.map(async (r, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 40));
      try {
        const response = await request(firstUrl, "POST", "/api/v1/agent/strategy/submit", {
          body: r.body,
          headers: { "X-API-Key": r.agent.apiKey, "Idempotency-Key": r.key },
        });
        outcomes.set(r.key, { status: response.status, body: response.body });
      } catch {
        outcomes.set(r.key, null); // connection cut by the kill
      }
    });
    // Kill once some requests were answered and others are still in flight.
    const deadline = Date.now() + 60_000;
    while ([...outcomes.values()].filter((o) => o?.status === 200).length < 3 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    await kill(api.child, "SIGKILL");
    api = null;
    // No more blocks until the restart, so that what is unmined now stays unmined while half of it is dropped.
    await rpc(node.url, "evm_setIntervalMining", [0]);
    await Promise.all(burst);

    const accepted = requests.filter((r) => outcomes.get(r.key)?.status === 200);
    const cut = requests.filter((r) => outcomes.get(r.key) === null);
    expect(accepted.length).to.be.greaterThan(0);
    expect(cut.length, "some requests must be in flight at the kill").to.be.greaterThan(0);
    for (const r of requests) {
      const outcome = outcomes.get(r.key);
      if (outcome && outcome.status !== 200)
        expect.fail(`unexpected answer before the kill: ${JSON.stringify(outcome)}`);
    }

    // Half of the unmined journal transactions vanish from the mempool, as if they were never broadcast.
    const journal = new MongoTxJournal(mongo.db(dbName));
    const open = await journal.listOpen();
    // Open in the journal, and not mined (the dead process may not have seen a receipt yet).
    const withHash: typeof open = [];
    for (const entry of open) {
      if (entry.hash && (await rpc(node.url, "eth_getTransactionReceipt", [entry.hash])) === null) withHash.push(entry);
    }
    for (const entry of withHash.filter((_, i) => i % 2 === 0)) {
      await rpc(node.url, "hardhat_dropTransaction", [entry.hash]);
    }
    const intents = await mongo
      .db(dbName)
      .collection("tx_intents")
      .find({ kind: "strategy.submit" })
      .project<{ _id: string }>({ _id: 1 })
      .toArray();
    expect(intents.length).to.be.at.least(accepted.length);

    // Restart: the new process reconciles the journal before it listens.
    await rpc(node.url, "evm_setIntervalMining", [500]);
    api = await spawnApi(env);
    // Every submission is final once the new process listens; relayer work started during reconcile (a badge mint,
    // a nonce filler) may still be finishing, and must finish too.
    expect((await journal.listOpen()).filter((e) => e.kind === "strategy.submit")).to.deep.equal([]);
    const drainDeadline = Date.now() + 60_000;
    while ((await journal.listOpen()).length > 0 && Date.now() < drainDeadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await journal.listOpen()).to.deep.equal([]);

    const provider = new JsonRpcProvider(node.url, Network.from(31337), { staticNetwork: true });
    const registry = StrategyRegistryV3__factory.connect(deployment.contracts.StrategyRegistryV3.address, provider);
    const namesOnchain = async () => {
      const names: string[] = [];
      for (const agent of agents) {
        const count = Number(await registry.strategyCountOf(agent.address));
        for (const view of await registry.strategiesOf(agent.address, 0, count)) names.push(view.name);
      }
      return names;
    };
    // Exactly the journal's intents are mined, each once; every 200 is among them with its hash.
    const afterRestart = await namesOnchain();
    const notMined = [];
    for (const intent of intents) {
      const entry = await journal.get(intent._id);
      if (entry?.state !== "mined" || entry.status !== 1)
        notMined.push({ state: entry?.state, error: entry?.error, meta: entry?.meta });
    }
    expect(notMined, JSON.stringify(notMined)).to.deep.equal([]);
    expect(afterRestart.length).to.equal(intents.length);
    expect(new Set(afterRestart).size).to.equal(afterRestart.length);
    for (const r of accepted) {
      expect(afterRestart).to.include(r.body.name);
      const receipt = await provider.getTransactionReceipt(outcomes.get(r.key)!.body.tx_hash as string);
      expect(receipt?.status).to.equal(1);
    }

    // Clients retry what was never answered, with the same key: each ends mined once, nothing doubles.
    await rpc(node.url, "evm_setAutomine", [true]);
    const retryUrl = api.url;
    const retries = await Promise.all(
      requests.map((r) =>
        request(retryUrl, "POST", "/api/v1/agent/strategy/submit", {
          body: r.body,
          headers: { "X-API-Key": r.agent.apiKey, "Idempotency-Key": r.key },
        }),
      ),
    );
    for (const [i, response] of retries.entries()) {
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      const first = outcomes.get(requests[i].key);
      if (first?.status === 200) expect(response.body).to.deep.equal(first.body);
    }
    const final = await namesOnchain();
    expect(final.sort()).to.deep.equal(requests.map((r) => r.body.name).sort());
    for (const agent of agents) expect(await provider.getTransactionCount(agent.address)).to.equal(PER_AGENT);
    provider.destroy();
    recordFigure(
      "API killed mid-burst",
      `${accepted.length} answered 200 before the kill, ${cut.length} cut, ${intents.length} in the journal, ` +
        `${withHash.length} unmined at the kill (${Math.ceil(withHash.length / 2)} dropped from the mempool)`,
    );
  });
});
