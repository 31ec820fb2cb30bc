import { expect } from "chai";
import { DuplicateKeyError } from "../../../api/src/errors";
import { MongoStore } from "../../../api/src/store/mongo";
import { ORPHAN_POINTER_MS } from "../../../api/src/store/mongo/agents";
import { dropMongoStore, freshMongoStore } from "../helpers/mongo";
import { sampleAgent, storeConformance } from "./conformance";

storeConformance("mongodb", {
  create: async () => freshMongoStore("store"),
  dispose: async (store) => dropMongoStore(store as MongoStore),
});

describe("MongoDB store: counters shared by several processes", function () {
  it("never hands out one value twice across three store instances on one database", async function () {
    const first = await freshMongoStore("counters");
    const others = [new MongoStore(first.client, first.db), new MongoStore(first.client, first.db)];
    try {
      // The first instance starts ahead, so the others begin from stale reservations and must collide and skip.
      for (let i = 0; i < 5; i++) await first.counters.next("agent_index");
      const stores = [first, ...others];
      const values = await Promise.all(
        Array.from({ length: 60 }, (_, i) => stores[i % stores.length].counters.next("agent_index")),
      );
      expect(new Set(values).size).to.equal(60);
      expect(Math.min(...values)).to.equal(5);
    } finally {
      await dropMongoStore(first);
    }
  });
});

describe("MongoDB store: a scoped key's daily USDC shared by several processes", function () {
  it("never reserves past the limit across three store instances on one database racing for the same slots", async function () {
    const first = await freshMongoStore("scoped_spend");
    const stores = [first, new MongoStore(first.client, first.db), new MongoStore(first.client, first.db)];
    try {
      const keyId = "agent:nap-racing01";
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          stores[i % stores.length].scopedKeys.reserveUsdc({
            keyId,
            day: "2026-11-26",
            claim: `deposit-${i}`,
            amount: 1_000_000n,
            limit: 10_000_000n,
          }),
        ),
      );
      expect(results.filter((result) => result.reserved).length).to.equal(10);
      expect(await stores[2].scopedKeys.spentOn(keyId, "2026-11-26")).to.equal(10_000_000n);
      const totals = results.filter((result) => result.reserved).map((result) => result.spent);
      expect(new Set(totals).size, "each granted reservation holds its own slot").to.equal(10);
    } finally {
      await dropMongoStore(first);
    }
  });
});

describe("MongoDB store: strategy facts", function () {
  it("repairs with a recount a count lost between a fact's insert and its counter update (a crash)", async function () {
    const store = await freshMongoStore("facts");
    try {
      const agent = sampleAgent();
      await store.agents.insert(agent);
      const strategyId = "0x" + "ab".repeat(32);
      // What a process that died right after inserting the fact leaves behind.
      await store.db.collection("agent_strategy_facts").insertOne({
        _id: `${agent.agentId}:passed_screening:${strategyId}` as never,
        agentId: agent.agentId,
        kind: "passed_screening",
        strategyId,
        at: new Date(),
      });
      const now = new Date(Date.UTC(2026, 5, 5));
      const reported = await store.agents.recordStrategyFacts(
        agent.agentId,
        [{ kind: "passed_screening", strategyId }],
        now,
      );
      expect(reported?.strategiesPassedScreening).to.equal(0, "a known fact adds nothing");
      const repaired = await store.agents.recordStrategyFacts(agent.agentId, [], now, { recount: true });
      expect(repaired).to.deep.include({ strategiesSubmitted: 0, strategiesPassedScreening: 1 });
      const later = await store.agents.recordStrategyFacts(agent.agentId, [], now, { recount: true });
      expect(later?.strategiesPassedScreening).to.equal(1);
    } finally {
      await dropMongoStore(store);
    }
  });
});

describe("MongoDB store: wallet and key pointers", function () {
  let store: MongoStore;
  beforeEach(async function () {
    store = await freshMongoStore("pointers");
  });
  afterEach(async function () {
    await dropMongoStore(store);
  });

  it("takes over a wallet pointer left without an agent (a crash mid-insert) once it is old enough", async function () {
    const agent = sampleAgent();
    const walletKey = agent.walletAddress.toLowerCase();
    const pointers = store.db.collection<{ _id: string; agentId: string; createdAt: Date }>("agent_wallets");
    await pointers.insertOne({ _id: walletKey, agentId: "lost", createdAt: new Date() });
    const young = await store.agents.insert(agent).catch((e: unknown) => e);
    expect(young).to.be.instanceOf(DuplicateKeyError);
    expect(await store.agents.findByWallet(agent.walletAddress)).to.equal(null);

    await pointers.updateOne(
      { _id: walletKey },
      { $set: { createdAt: new Date(Date.now() - ORPHAN_POINTER_MS - 1000) } },
    );
    await store.agents.insert(agent);
    expect((await store.agents.findByWallet(agent.walletAddress))?.agentId).to.equal(agent.agentId);
  });

  it("removes its pointers when the agent document is refused", async function () {
    const first = sampleAgent();
    await store.agents.insert(first);
    const clash = sampleAgent({ agentIndex: first.agentIndex });
    const error = await store.agents.insert(clash).catch((e: unknown) => e);
    expect((error as DuplicateKeyError).field).to.equal("agentIndex");
    expect(await store.db.collection("agent_wallets").countDocuments({ agentId: clash.agentId })).to.equal(0);
    expect(await store.db.collection("agent_keys").countDocuments({ agentId: clash.agentId })).to.equal(0);
    // The wallet is free for a later, valid registration.
    await store.agents.insert({ ...clash, agentIndex: first.agentIndex + 1000 });
  });
});
