import { expect } from "chai";
import fc from "fast-check";
import { randomUUID } from "node:crypto";
import { DuplicateKeyError } from "../../../api/src/errors";
import type { Stores as Store } from "../../../api/src/store";
import type { AgentRecord } from "../../../api/src/usecases/agents";
import { dataAccessConformance } from "./dataAccessConformance";
import { scopedKeyConformance } from "./scopedKeyConformance";

/**
 * One behavioural contract for every store adapter. Each adapter's test file calls this with a factory that returns
 * an empty store and a disposer.
 */
export interface StoreHarness {
  create(): Promise<Store>;
  dispose(store: Store): Promise<void>;
}

let sequence = 0;

export function sampleAgent(overrides: Partial<AgentRecord> = {}): AgentRecord {
  sequence += 1;
  const hex = sequence.toString(16).padStart(40, "0");
  const created = new Date(Date.UTC(2026, 0, 1, 0, 0, sequence));
  return {
    agentId: randomUUID(),
    agentIndex: sequence,
    walletAddress: `0x${hex.slice(4)}AbCd`,
    agentName: `agent-${sequence}`,
    agentType: "custom",
    description: "",
    operatorAddress: "0x000000000000000000000000000000000000dEaD",
    tier: "unverified",
    status: "active",
    strategiesSubmitted: 0,
    strategiesPassedScreening: 0,
    depositsMicroUsdc: "0",
    performanceScore: 0,
    apiKeyHash: `${sequence.toString(16).padStart(64, "0")}`,
    apiKeyPrefix: "nap-abcdefgh",
    createdAt: created,
    updatedAt: created,
    ...overrides,
  };
}

export function storeConformance(name: string, harness: StoreHarness): void {
  describe(`store conformance: ${name}`, function () {
    let store: Store;

    beforeEach(async function () {
      store = await harness.create();
    });

    afterEach(async function () {
      await harness.dispose(store);
    });

    describe("agents", function () {
      it("returns an inserted agent by id, wallet (any case) and key hash, with every field intact", async function () {
        const agent = sampleAgent({
          operatorEmail: "ops@example.org",
          operatorName: "Ops",
          framework: "custom",
          repoUrl: "https://example.org/repo",
        });
        await store.agents.insert(agent);
        expect(await store.agents.findById(agent.agentId)).to.deep.equal(agent);
        expect(await store.agents.findByWallet(agent.walletAddress.toLowerCase())).to.deep.equal(agent);
        expect(await store.agents.findByWallet(agent.walletAddress.toUpperCase().replace("0X", "0x"))).to.deep.equal(
          agent,
        );
        expect(await store.agents.findByKeyHash(agent.apiKeyHash)).to.deep.equal(agent);
      });

      it("omits optional fields that were not given", async function () {
        const agent = sampleAgent();
        await store.agents.insert(agent);
        const found = await store.agents.findById(agent.agentId);
        expect(found).to.not.have.property("operatorEmail");
        expect(found).to.not.have.property("tierGrantedBy");
      });

      it("returns null for unknown id, wallet and key hash", async function () {
        expect(await store.agents.findById(randomUUID())).to.equal(null);
        expect(await store.agents.findByWallet("0x0000000000000000000000000000000000000001")).to.equal(null);
        expect(await store.agents.findByKeyHash("f".repeat(64))).to.equal(null);
      });

      it("rejects a second agent for the same wallet in another letter case with DuplicateKeyError(walletAddress)", async function () {
        const first = sampleAgent();
        await store.agents.insert(first);
        const second = sampleAgent({ walletAddress: first.walletAddress.toLowerCase() });
        const error = await store.agents.insert(second).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(DuplicateKeyError);
        expect((error as DuplicateKeyError).field).to.equal("walletAddress");
        expect(await store.agents.findById(second.agentId)).to.equal(null);
      });

      it("rejects a duplicate key hash with DuplicateKeyError(apiKeyHash)", async function () {
        const first = sampleAgent();
        await store.agents.insert(first);
        const error = await store.agents.insert(sampleAgent({ apiKeyHash: first.apiKeyHash })).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(DuplicateKeyError);
        expect((error as DuplicateKeyError).field).to.equal("apiKeyHash");
      });

      it("rejects a duplicate agent index with DuplicateKeyError(agentIndex)", async function () {
        const first = sampleAgent();
        await store.agents.insert(first);
        const error = await store.agents.insert(sampleAgent({ agentIndex: first.agentIndex })).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(DuplicateKeyError);
        expect((error as DuplicateKeyError).field).to.equal("agentIndex");
      });

      it("lets exactly one of many concurrent inserts for one wallet succeed", async function () {
        const wallet = sampleAgent().walletAddress;
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, () => store.agents.insert(sampleAgent({ walletAddress: wallet }))),
        );
        expect(results.filter((r) => r.status === "fulfilled")).to.have.length(1);
        for (const r of results) {
          if (r.status === "rejected") expect(r.reason).to.be.instanceOf(DuplicateKeyError);
        }
      });

      it("orders the leaderboard by score (highest first), then creation time, and applies the limit", async function () {
        const a = sampleAgent({ performanceScore: 5 });
        const b = sampleAgent({ performanceScore: 12.5 });
        const c = sampleAgent({ performanceScore: 5 });
        const d = sampleAgent({ performanceScore: 0 });
        for (const agent of [d, c, a, b]) await store.agents.insert(agent);
        const board = await store.agents.leaderboard(10);
        expect(board.map((x) => x.agentId)).to.deep.equal([b.agentId, a.agentId, c.agentId, d.agentId]);
        expect((await store.agents.leaderboard(2)).map((x) => x.agentId)).to.deep.equal([b.agentId, a.agentId]);
      });

      it("reports any() false on an empty store and true after an insert", async function () {
        expect(await store.agents.any()).to.equal(false);
        await store.agents.insert(sampleAgent());
        expect(await store.agents.any()).to.equal(true);
      });

      it("sums statistics over all agents", async function () {
        expect(await store.agents.stats()).to.deep.equal({
          totalAgents: 0,
          activeAgents: 0,
          strategiesSubmitted: 0,
          depositsMicroUsdc: 0n,
        });
        await store.agents.insert(sampleAgent({ strategiesSubmitted: 3, depositsMicroUsdc: "2500000" }));
        await store.agents.insert(sampleAgent({ strategiesSubmitted: 4, status: "suspended" }));
        await store.agents.insert(sampleAgent({ depositsMicroUsdc: "9007199254740993" }));
        expect(await store.agents.stats()).to.deep.equal({
          totalAgents: 3,
          activeAgents: 2,
          strategiesSubmitted: 7,
          depositsMicroUsdc: 9007199257240993n,
        });
      });

      it("adds activity atomically under concurrency and returns the updated record", async function () {
        const agent = sampleAgent();
        await store.agents.insert(agent);
        const now = new Date(Date.UTC(2026, 5, 1));
        await Promise.all(
          Array.from({ length: 25 }, () =>
            store.agents.addActivity(
              agent.agentId,
              { strategiesSubmitted: 1, strategiesPassedScreening: 2, depositsMicroUsdc: 1_000_000n },
              now,
            ),
          ),
        );
        const updated = await store.agents.findById(agent.agentId);
        expect(updated?.strategiesSubmitted).to.equal(25);
        expect(updated?.strategiesPassedScreening).to.equal(50);
        expect(updated?.depositsMicroUsdc).to.equal("25000000");
        expect(updated?.updatedAt.getTime()).to.equal(now.getTime());
        expect(await store.agents.addActivity("missing", { strategiesSubmitted: 1 }, now)).to.equal(null);
      });

      it("counts each strategy fact once, however often, concurrently and in whichever case it is reported", async function () {
        const agent = sampleAgent();
        await store.agents.insert(agent);
        const now = new Date(Date.UTC(2026, 5, 3));
        const id = (n: number) => "0x" + n.toString(16).padStart(64, "0");
        await Promise.all(
          Array.from({ length: 10 }, () =>
            store.agents.recordStrategyFacts(agent.agentId, [{ kind: "submitted", strategyId: id(0xab) }], now),
          ),
        );
        const again = await store.agents.recordStrategyFacts(
          agent.agentId,
          [{ kind: "submitted", strategyId: "0x" + id(0xab).slice(2).toUpperCase() }],
          now,
        );
        expect(again).to.deep.include({ strategiesSubmitted: 1, strategiesPassedScreening: 0 });
        // The catch-up from the chain lists every strategy, known or not.
        const caughtUp = await store.agents.recordStrategyFacts(
          agent.agentId,
          [
            { kind: "submitted", strategyId: id(0xab) },
            { kind: "submitted", strategyId: id(2) },
            { kind: "submitted", strategyId: id(3) },
            { kind: "passed_screening", strategyId: id(0xab) },
            { kind: "passed_screening", strategyId: id(0xab) },
          ],
          now,
          { recount: true },
        );
        expect(caughtUp).to.deep.include({ strategiesSubmitted: 3, strategiesPassedScreening: 1 });
        expect(caughtUp?.updatedAt.getTime()).to.equal(now.getTime());
        expect((await store.agents.findById(agent.agentId))?.strategiesSubmitted).to.equal(3);
        expect(await store.agents.recordStrategyFacts("missing", [{ kind: "submitted", strategyId: id(1) }], now)).to.be
          .null;
      });

      it("adds a deposit once per transaction hash, however often and concurrently it is reported", async function () {
        const agent = sampleAgent();
        await store.agents.insert(agent);
        const now = new Date(Date.UTC(2026, 5, 6));
        const tx = "0x" + "cd".repeat(32);
        await Promise.all(
          Array.from({ length: 10 }, () => store.agents.recordDeposit(agent.agentId, tx, 2_500_000n, now)),
        );
        const again = await store.agents.recordDeposit(
          agent.agentId,
          tx.toUpperCase().replace("0X", "0x"),
          2_500_000n,
          now,
        );
        expect(again?.depositsMicroUsdc).to.equal("2500000");
        const other = await store.agents.recordDeposit(agent.agentId, "0x" + "ef".repeat(32), 1n, now);
        expect(other?.depositsMicroUsdc).to.equal("2500001");
        expect(other?.updatedAt.getTime()).to.equal(now.getTime());
        expect(await store.agents.recordDeposit("missing", "0x" + "01".repeat(32), 1n, now)).to.be.null;
      });

      it("keeps the counters equal to the distinct facts reported, in any order and batching (property)", async function () {
        const now = new Date(Date.UTC(2026, 5, 4));
        const fact = fc.record({
          kind: fc.constantFrom("submitted" as const, "passed_screening" as const),
          strategyId: fc.integer({ min: 1, max: 6 }).map((n) => "0x" + n.toString(16).padStart(64, "0")),
        });
        // Rounds of concurrent reports; each report is a batch of facts, with or without a recount.
        const rounds = fc.array(
          fc.array(fc.record({ facts: fc.array(fact, { maxLength: 4 }), recount: fc.boolean() }), {
            minLength: 1,
            maxLength: 3,
          }),
          { minLength: 1, maxLength: 4 },
        );
        await fc.assert(
          fc.asyncProperty(rounds, async (plan) => {
            const agent = sampleAgent();
            await store.agents.insert(agent);
            const distinct = new Set<string>();
            for (const round of plan) {
              await Promise.all(
                round.map((report) =>
                  store.agents.recordStrategyFacts(agent.agentId, report.facts, now, { recount: report.recount }),
                ),
              );
              for (const report of round) for (const f of report.facts) distinct.add(`${f.kind}:${f.strategyId}`);
            }
            const submitted = [...distinct].filter((key) => key.startsWith("submitted:")).length;
            const stored = await store.agents.findById(agent.agentId);
            expect(stored).to.deep.include({
              strategiesSubmitted: submitted,
              strategiesPassedScreening: distinct.size - submitted,
            });
          }),
          { numRuns: Number(process.env.STORE_PROPERTY_RUNS ?? 25) },
        );
      });

      it("updates standing only when the tier still has the expected value", async function () {
        const agent = sampleAgent();
        await store.agents.insert(agent);
        const now = new Date(Date.UTC(2026, 5, 2));
        const updated = await store.agents.updateStanding(
          agent.agentId,
          "unverified",
          { tier: "established", tierGrantedBy: "operator:1", performanceScore: 7 },
          now,
        );
        expect(updated?.tier).to.equal("established");
        expect(updated?.tierGrantedBy).to.equal("operator:1");
        expect(updated?.performanceScore).to.equal(7);
        expect(
          await store.agents.updateStanding(
            agent.agentId,
            "unverified",
            { tier: "registered", performanceScore: 1 },
            now,
          ),
        ).to.equal(null);
        const cleared = await store.agents.updateStanding(
          agent.agentId,
          "established",
          { tier: "registered", tierGrantedBy: null, performanceScore: 8 },
          now,
        );
        expect(cleared?.tier).to.equal("registered");
        expect(cleared).to.not.have.property("tierGrantedBy");
      });

      it("sets the operator only while it is still the expected one (any case); one of concurrent changes lands", async function () {
        const agent = sampleAgent();
        await store.agents.insert(agent);
        const now = new Date(Date.UTC(2026, 5, 3));
        const next = "0x1111111111111111111111111111111111111111";
        const changes = await Promise.all(
          ["0x2222222222222222222222222222222222222222", next].map((to, i) =>
            i === 0
              ? store.agents.setOperator(agent.agentId, agent.operatorAddress.toLowerCase(), to, now)
              : store.agents.setOperator(agent.agentId, agent.operatorAddress, to, now),
          ),
        );
        expect(changes.filter((change) => change !== null)).to.have.length(1);
        const landed = changes.find((change) => change !== null)!;
        expect(landed.updatedAt.getTime()).to.equal(now.getTime());
        expect((await store.agents.findById(agent.agentId))!.operatorAddress).to.equal(landed.operatorAddress);
        expect(await store.agents.setOperator(agent.agentId, agent.operatorAddress, next, now)).to.equal(null);
        expect(await store.agents.setOperator("missing", agent.operatorAddress, next, now)).to.equal(null);
        const back = await store.agents.setOperator(agent.agentId, landed.operatorAddress, agent.operatorAddress, now);
        expect(back?.operatorAddress).to.equal(agent.operatorAddress);
      });

      it("replaces or revokes the key only while it is still the expected one; the old hash finds nothing at once", async function () {
        const agent = sampleAgent();
        const other = sampleAgent();
        await store.agents.insert(agent);
        await store.agents.insert(other);
        const now = new Date(Date.UTC(2026, 5, 4));
        const next = { hash: "a".repeat(64), prefix: "nap-NEWKEY01" };
        const rivals = await Promise.all([
          store.agents.replaceKey(agent.agentId, agent.apiKeyHash, next, now),
          store.agents.replaceKey(
            agent.agentId,
            agent.apiKeyHash,
            { hash: "b".repeat(64), prefix: "nap-RIVAL001" },
            now,
          ),
        ]);
        expect(rivals.filter((record) => record !== null)).to.have.length(1);
        const landed = rivals.find((record) => record !== null)!;
        expect(await store.agents.findByKeyHash(agent.apiKeyHash)).to.equal(null);
        expect((await store.agents.findByKeyHash(landed.apiKeyHash))?.agentId).to.equal(agent.agentId);
        const loser = landed.apiKeyHash === next.hash ? "b".repeat(64) : next.hash;
        expect(await store.agents.findByKeyHash(loser)).to.equal(null);
        let taken: unknown;
        try {
          await store.agents.replaceKey(agent.agentId, landed.apiKeyHash, { hash: other.apiKeyHash, prefix: "x" }, now);
        } catch (error) {
          taken = error;
        }
        expect(taken).to.be.instanceOf(DuplicateKeyError);
        expect((await store.agents.findByKeyHash(landed.apiKeyHash))?.agentId).to.equal(agent.agentId);
        const revoked = await store.agents.replaceKey(agent.agentId, landed.apiKeyHash, null, now);
        expect(revoked?.apiKeyHash).to.equal("");
        expect(revoked?.apiKeyPrefix).to.equal(landed.apiKeyPrefix);
        expect(await store.agents.findByKeyHash(landed.apiKeyHash)).to.equal(null);
        expect(await store.agents.replaceKey(agent.agentId, landed.apiKeyHash, null, now)).to.equal(null);
        expect(await store.agents.replaceKey("missing", "", next, now)).to.equal(null);
        const fresh = await store.agents.replaceKey(
          agent.agentId,
          "",
          { hash: "c".repeat(64), prefix: "nap-FRESH001" },
          now,
        );
        expect((await store.agents.findByKeyHash("c".repeat(64)))?.agentId).to.equal(fresh!.agentId);
      });

      it("keeps the keys an agent held (rotated, revoked) and the current key's creation and last use", async function () {
        const agent = sampleAgent();
        await store.agents.insert(agent);
        const at = (minute: number) => new Date(Date.UTC(2026, 5, 5, 0, minute));
        await store.agents.touchKey(agent.agentId, agent.apiKeyHash, at(1));
        await store.agents.touchKey(agent.agentId, "f".repeat(64), at(2));
        expect((await store.agents.findById(agent.agentId))!.apiKeyLastUsedAt).to.deep.equal(at(1));
        const second = { hash: "d".repeat(64), prefix: "nap-SECOND01" };
        const rotated = await store.agents.replaceKey(agent.agentId, agent.apiKeyHash, second, at(3));
        expect(rotated!.apiKeyCreatedAt).to.deep.equal(at(3));
        expect(rotated!.apiKeyLastUsedAt).to.equal(undefined);
        await store.agents.touchKey(agent.agentId, second.hash, at(4));
        await store.agents.replaceKey(agent.agentId, second.hash, null, at(5));
        const stored = (await store.agents.findById(agent.agentId))!;
        expect(stored.apiKeyHash).to.equal("");
        expect(stored.retiredKeys).to.deep.equal([
          {
            prefix: agent.apiKeyPrefix,
            createdAt: agent.createdAt,
            lastUsedAt: at(1),
            endedAt: at(3),
            reason: "rotated",
          },
          { prefix: second.prefix, createdAt: at(3), lastUsedAt: at(4), endedAt: at(5), reason: "revoked" },
        ]);
      });
    });

    describe("nonces", function () {
      const wallet = "0x1111111111111111111111111111111111111111";
      const issuedAt = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));
      const expiresAt = new Date(issuedAt.getTime() + 600_000);

      it("stores and finds a nonce", async function () {
        await store.nonces.insert({ nonce: "a".repeat(32), walletAddress: wallet, issuedAt, expiresAt });
        expect(await store.nonces.find("a".repeat(32))).to.deep.equal({
          nonce: "a".repeat(32),
          walletAddress: wallet,
          issuedAt,
          expiresAt,
        });
        expect(await store.nonces.find("b".repeat(32))).to.equal(null);
      });

      it("rejects a duplicate nonce", async function () {
        await store.nonces.insert({ nonce: "c".repeat(32), walletAddress: wallet, issuedAt, expiresAt });
        const error = await store.nonces
          .insert({ nonce: "c".repeat(32), walletAddress: wallet, issuedAt, expiresAt })
          .catch((e: unknown) => e);
        expect(error).to.be.instanceOf(DuplicateKeyError);
      });

      it("consumes once, for the right wallet (any case), before expiry only", async function () {
        const nonce = "d".repeat(32);
        await store.nonces.insert({ nonce, walletAddress: wallet, issuedAt, expiresAt });
        const other = "0x2222222222222222222222222222222222222222";
        expect(await store.nonces.consume(nonce, other, issuedAt)).to.equal(null);
        expect(await store.nonces.consume(nonce, wallet, expiresAt)).to.equal(null, "expired at expiresAt");
        const consumed = await store.nonces.consume(nonce, wallet.toUpperCase().replace("0X", "0x"), issuedAt);
        expect(consumed).to.deep.equal({ nonce, walletAddress: wallet, issuedAt, expiresAt });
        expect(await store.nonces.consume(nonce, wallet, issuedAt)).to.equal(null);
        expect((await store.nonces.find(nonce))?.consumedAt?.getTime()).to.equal(issuedAt.getTime());
        expect(await store.nonces.consume("e".repeat(32), wallet, issuedAt)).to.equal(null);
      });

      it("lets exactly one of 100 concurrent consumers win", async function () {
        const nonce = "f".repeat(32);
        await store.nonces.insert({ nonce, walletAddress: wallet, issuedAt, expiresAt });
        const results = await Promise.all(
          Array.from({ length: 100 }, () => store.nonces.consume(nonce, wallet, issuedAt)),
        );
        expect(results.filter((r) => r !== null)).to.have.length(1);
      });

      it("purges nonces that expired before the given time", async function () {
        await store.nonces.insert({ nonce: "1".repeat(32), walletAddress: wallet, issuedAt, expiresAt });
        const later = new Date(expiresAt.getTime() + 1);
        await store.nonces.insert({
          nonce: "2".repeat(32),
          walletAddress: wallet,
          issuedAt: later,
          expiresAt: new Date(later.getTime() + 600_000),
        });
        expect(await store.nonces.purgeExpired(later)).to.equal(1);
        expect(await store.nonces.find("1".repeat(32))).to.equal(null);
        expect(await store.nonces.find("2".repeat(32))).to.not.equal(null);
      });
    });

    describe("counters", function () {
      it("starts at 0 and never hands out one value twice under concurrency", async function () {
        const values = await Promise.all(Array.from({ length: 50 }, () => store.counters.next("agent_index")));
        expect([...values].sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
        expect(await store.counters.next("other")).to.equal(0);
        expect(await store.counters.next("agent_index")).to.equal(50);
      });

      it("raises a sequence past a value, never lowers it, and hands out nothing twice while raised", async function () {
        expect(await store.counters.next("raised")).to.equal(0);
        await store.counters.raise("raised", 10);
        expect(await store.counters.next("raised")).to.equal(10);
        await store.counters.raise("raised", 5);
        expect(await store.counters.next("raised")).to.equal(11);
        const [values] = await Promise.all([
          Promise.all(Array.from({ length: 20 }, () => store.counters.next("raised"))),
          store.counters.raise("raised", 15),
        ]);
        expect(new Set(values).size).to.equal(20);
        expect(Math.min(...values)).to.be.at.least(12);
        await store.counters.raise("fresh", 0);
        expect(await store.counters.next("fresh")).to.equal(0);
      });
    });

    dataAccessConformance(() => store);
    scopedKeyConformance(() => store);

    it("reports itself connected", async function () {
      expect((await store.health()).connected).to.equal(true);
    });
  });
}
