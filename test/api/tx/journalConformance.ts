import { expect } from "chai";
import fc from "fast-check";
import { OPEN_STATES, type NewIntent, type TxJournalStore, type TxState } from "../../../api/src/tx/journal";

/**
 * One behaviour contract for every TxJournalStore adapter. Each adapter's test file calls this with a factory
 * that returns a fresh, empty store (and a cleanup).
 */

export interface StoreFixture {
  readonly store: TxJournalStore;
  /** A second store over the same data, as another process would open it (memory: the same store). */
  readonly other: TxJournalStore;
  cleanup(): Promise<void>;
}

const WALLET_A = "0xAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAa";
const WALLET_B = "0xBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBbBb";
const TARGET = "0xCcCcCcCcCcCcCcCcCcCcCcCcCcCcCcCcCcCcCcCc";

export function intent(key: string, overrides: Partial<NewIntent> = {}): NewIntent {
  return {
    intentKey: key,
    wallet: { kind: "agent", index: 3 },
    from: WALLET_A,
    chainId: 31337,
    to: TARGET,
    data: "0x1234",
    value: "5",
    kind: "probe.hit",
    requestor: "agent-1",
    meta: { vault_id: "moderate", amount: 12, nested: { ok: true, list: [1, "two", null] } },
    after: null,
    ...overrides,
  };
}

export function journalConformance(adapter: string, makeFixture: () => Promise<StoreFixture>): void {
  describe(`TxJournalStore conformance: ${adapter}`, () => {
    let fixture: StoreFixture;
    let store: TxJournalStore;

    beforeEach(async () => {
      fixture = await makeFixture();
      store = fixture.store;
      await store.init();
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    describe("intents", () => {
      it("records a new intent in state intent with every field as given and addresses in lowercase", async () => {
        const now = new Date("2026-11-22T02:00:00.000Z");
        const { created, entry } = await store.createIntent(intent("k1"), now);
        expect(created).to.equal(true);
        expect(entry).to.deep.equal({
          intentKey: "k1",
          wallet: { kind: "agent", index: 3 },
          from: WALLET_A.toLowerCase(),
          chainId: 31337,
          to: TARGET.toLowerCase(),
          data: "0x1234",
          value: "5",
          kind: "probe.hit",
          requestor: "agent-1",
          meta: { vault_id: "moderate", amount: 12, nested: { ok: true, list: [1, "two", null] } },
          after: null,
          state: "intent",
          nonce: null,
          hash: null,
          rawTx: null,
          replacedHashes: [],
          blockNumber: null,
          gasUsed: null,
          status: null,
          error: null,
          createdAt: now,
          updatedAt: now,
        });
        expect(await store.get("k1")).to.deep.equal(entry);
      });

      it("returns the first entry, unchanged, when an intent key is recorded again", async () => {
        const first = await store.createIntent(intent("k1"));
        const second = await store.createIntent(intent("k1", { data: "0xffff", kind: "other" }));
        expect(second.created).to.equal(false);
        expect(second.entry).to.deep.equal(first.entry);
      });

      it("creates exactly one entry when 30 callers record one key at once", async () => {
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            store.createIntent(intent("same", { data: `0x${i.toString(16).padStart(2, "0")}` })),
          ),
        );
        expect(results.filter((r) => r.created)).to.have.length(1);
        const winner = results.find((r) => r.created)!.entry;
        for (const r of results) expect(r.entry.data).to.equal(winner.data);
      });

      it("answers null for an unknown key", async () => {
        expect(await store.get("nope")).to.equal(null);
        expect(await store.transition("nope", { states: ["intent"] }, { state: "failed" })).to.equal(null);
      });
    });

    describe("transitions", () => {
      it("applies a patch when the state matches and stamps updatedAt", async () => {
        await store.createIntent(intent("k1"), new Date("2026-11-22T02:00:00.000Z"));
        const later = new Date("2026-11-22T02:00:05.000Z");
        const updated = await store.transition(
          "k1",
          { states: ["intent"], hash: null },
          { state: "signed", nonce: 7, hash: "0xabc", rawTx: "0xdef" },
          later,
        );
        expect(updated).to.include({ state: "signed", nonce: 7, hash: "0xabc", rawTx: "0xdef" });
        expect(updated!.updatedAt).to.deep.equal(later);
        expect(updated!.createdAt).to.deep.equal(new Date("2026-11-22T02:00:00.000Z"));
        expect(await store.get("k1")).to.deep.equal(updated);
      });

      it("refuses a patch when the state or the hash differs, leaving the entry as it was", async () => {
        await store.createIntent(intent("k1"));
        const signed = await store.transition(
          "k1",
          { states: ["intent"] },
          { state: "signed", hash: "0x01", nonce: 1 },
        );
        expect(await store.transition("k1", { states: ["intent"] }, { state: "failed" })).to.equal(null);
        expect(await store.transition("k1", { states: ["signed"], hash: "0x02" }, { state: "broadcast" })).to.equal(
          null,
        );
        expect(await store.transition("k1", { states: ["signed"], hash: null }, { state: "broadcast" })).to.equal(null);
        expect(await store.get("k1")).to.deep.equal(signed);
        const broadcast = await store.transition(
          "k1",
          { states: ["signed", "broadcast"], hash: "0x01" },
          { state: "broadcast" },
        );
        expect(broadcast?.state).to.equal("broadcast");
      });

      it("lets exactly one of 30 concurrent writers move an intent to signed", async () => {
        await store.createIntent(intent("k1"));
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            store.transition("k1", { states: ["intent"], hash: null }, { state: "signed", nonce: i, hash: `0x${i}` }),
          ),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).to.have.length(1);
        expect(await store.get("k1")).to.deep.equal(winners[0]);
      });

      it("stores mined results and journal errors as given", async () => {
        await store.createIntent(intent("k1"));
        await store.transition(
          "k1",
          { states: ["intent"] },
          { state: "signed", nonce: 0, hash: "0x01", rawTx: "0x02" },
        );
        const mined = await store.transition(
          "k1",
          { states: ["signed"], hash: "0x01" },
          {
            state: "mined",
            blockNumber: 12,
            gasUsed: "51234",
            status: 0,
            replacedHashes: ["0x00"],
            error: { code: "CONTRACT_REVERT", message: "m", details: { revert: { name: "X", args: { a: "1" } } } },
          },
        );
        expect(mined).to.deep.include({
          state: "mined",
          blockNumber: 12,
          gasUsed: "51234",
          status: 0,
          replacedHashes: ["0x00"],
          error: { code: "CONTRACT_REVERT", message: "m", details: { revert: { name: "X", args: { a: "1" } } } },
        });
      });
    });

    describe("state machine (model-based, fast-check)", () => {
      const STATES: TxState[] = ["intent", "signed", "broadcast", "mined", "failed"];
      const HASHES = [null, "0x01", "0x02"];
      type Command =
        | { op: "create"; key: number }
        | {
            op: "move";
            key: number;
            from: TxState[];
            hash: string | null | undefined;
            to: TxState;
            newHash: string | null;
          }
        | { op: "other"; key: number; to: TxState };
      const command: fc.Arbitrary<Command> = fc.oneof(
        fc.record({ op: fc.constant("create" as const), key: fc.nat(2) }),
        fc.record({
          op: fc.constant("move" as const),
          key: fc.nat(2),
          from: fc.subarray(STATES, { minLength: 1 }),
          hash: fc.constantFrom(undefined, ...HASHES),
          to: fc.constantFrom(...STATES),
          newHash: fc.constantFrom(...HASHES),
        }),
        // A write through the second store instance, as another process would make it.
        fc.record({ op: fc.constant("other" as const), key: fc.nat(2), to: fc.constantFrom(...STATES) }),
      );
      let run = 0;

      it("answers every sequence of records and conditional transitions like the model", async () => {
        const runs = Number(process.env.TX_JOURNAL_MODEL_RUNS ?? 25);
        await fc.assert(
          fc.asyncProperty(fc.array(command, { maxLength: 25 }), async (commands) => {
            const prefix = `model${run++}-`;
            const model = new Map<number, { state: TxState; hash: string | null }>();
            for (const c of commands) {
              const key = prefix + c.key;
              if (c.op === "create") {
                const { created } = await store.createIntent(intent(key));
                expect(created).to.equal(!model.has(c.key));
                if (!model.has(c.key)) model.set(c.key, { state: "intent", hash: null });
              } else if (c.op === "move") {
                const before = model.get(c.key);
                const allowed =
                  before !== undefined &&
                  c.from.includes(before.state) &&
                  (c.hash === undefined || before.hash === c.hash);
                const result = await store.transition(
                  key,
                  { states: c.from, hash: c.hash },
                  { state: c.to, hash: c.newHash },
                );
                expect(result !== null).to.equal(allowed);
                if (allowed) model.set(c.key, { state: c.to, hash: c.newHash });
              } else {
                const before = model.get(c.key);
                const result = await fixture.other.transition(key, { states: STATES }, { state: c.to });
                expect(result !== null).to.equal(before !== undefined);
                if (before) model.set(c.key, { ...before, state: c.to });
              }
              const stored = await store.get(key);
              const expected = model.get(c.key);
              expect(stored === null ? null : { state: stored.state, hash: stored.hash }).to.deep.equal(
                expected ?? null,
              );
            }
            const open = (await store.listOpen()).filter((e) => e.intentKey.startsWith(prefix)).map((e) => e.intentKey);
            const modelOpen = [...model.entries()]
              .filter(([, v]) => OPEN_STATES.includes(v.state))
              .map(([k]) => prefix + k);
            expect([...open].sort()).to.deep.equal([...modelOpen].sort());
          }),
          { numRuns: runs },
        );
      });
    });

    describe("two processes on one journal", () => {
      it("refuses a transition decided from a stale copy; the stored entry wins", async () => {
        const other = fixture.other;
        await store.createIntent(intent("k1"));
        expect(await store.get("k1")).to.include({ state: "intent" });
        const theirs = await other.transition(
          "k1",
          { states: ["intent"], hash: null },
          { state: "signed", hash: "0xaa", nonce: 1 },
        );
        expect(theirs).to.include({ state: "signed", hash: "0xaa" });
        expect(
          await store.transition("k1", { states: ["intent"], hash: null }, { state: "signed", hash: "0xbb", nonce: 2 }),
        ).to.equal(null);
        expect(await store.get("k1")).to.include({ state: "signed", hash: "0xaa", nonce: 1 });
      });

      it("applies a transition the stored entry permits even when this process last saw an older state", async () => {
        const other = fixture.other;
        await store.createIntent(intent("k1"));
        await store.get("k1");
        await other.transition("k1", { states: ["intent"] }, { state: "signed", hash: "0xaa", nonce: 1 });
        const moved = await store.transition("k1", { states: ["signed"], hash: "0xaa" }, { state: "broadcast" });
        expect(moved).to.include({ state: "broadcast", hash: "0xaa", nonce: 1 });
        expect(await other.get("k1")).to.deep.equal(moved);
      });

      it("sees the other process's intents in open listings and its answer to a duplicate key", async () => {
        const other = fixture.other;
        await other.createIntent(intent("k1"));
        expect((await store.listOpen()).map((e) => e.intentKey)).to.deep.equal(["k1"]);
        expect((await store.createIntent(intent("k1"))).created).to.equal(false);
      });
    });

    describe("listings", () => {
      it("lists open entries oldest first, optionally of one wallet in any letter case", async () => {
        const t = (s: number) => new Date(Date.UTC(2026, 10, 22, 2, 0, s));
        await store.createIntent(intent("a1"), t(1));
        await store.createIntent(intent("b1", { from: WALLET_B }), t(2));
        await store.createIntent(intent("a2"), t(3));
        await store.createIntent(intent("a3"), t(4));
        await store.createIntent(intent("a4"), t(5));
        const states: Record<string, TxState> = { a2: "signed", a3: "mined", a4: "failed" };
        for (const [key, state] of Object.entries(states)) {
          await store.transition(key, { states: ["intent"] }, { state });
        }
        expect((await store.listOpen()).map((e) => e.intentKey)).to.deep.equal(["a1", "b1", "a2"]);
        expect(
          (await store.listOpen(WALLET_A.toUpperCase().replace("0X", "0x"))).map((e) => e.intentKey),
        ).to.deep.equal(["a1", "a2"]);
        expect((await store.listOpen(WALLET_B.toLowerCase())).map((e) => e.intentKey)).to.deep.equal(["b1"]);
      });

      it("lists a requestor's entries newest first, up to the limit", async () => {
        const t = (s: number) => new Date(Date.UTC(2026, 10, 22, 2, 0, s));
        await store.createIntent(intent("r1"), t(1));
        await store.createIntent(intent("r2"), t(2));
        await store.createIntent(intent("x1", { requestor: "agent-2" }), t(3));
        await store.createIntent(intent("r3"), t(4));
        expect((await store.listByRequestor("agent-1", 2)).map((e) => e.intentKey)).to.deep.equal(["r3", "r2"]);
        expect((await store.listByRequestor("agent-2", 10)).map((e) => e.intentKey)).to.deep.equal(["x1"]);
      });

      it("finds an entry by its current hash or a hash it replaced, in any letter case", async () => {
        const first = `0x${"ab".repeat(32)}`;
        const second = `0x${"cd".repeat(32)}`;
        await store.createIntent(intent("h1"));
        await store.createIntent(intent("h2"));
        expect(await store.findByHash(first)).to.equal(null);
        await store.transition("h1", { states: ["intent"] }, { state: "signed", hash: first, nonce: 1 });
        expect((await store.findByHash(first.toUpperCase().replace("0X", "0x")))?.intentKey).to.equal("h1");
        await store.transition(
          "h1",
          { states: ["signed"] },
          { state: "broadcast", hash: second, replacedHashes: [first], nonce: 2 },
        );
        const byOld = await store.findByHash(first);
        expect(byOld?.intentKey).to.equal("h1");
        expect(byOld?.hash).to.equal(second);
        expect((await store.findByHash(second))?.state).to.equal("broadcast");
        expect(await store.findByHash(`0x${"ef".repeat(32)}`)).to.equal(null);
      });
    });

    describe("leases", () => {
      const t0 = new Date("2026-11-22T02:00:00.000Z");
      const at = (ms: number) => new Date(t0.getTime() + ms);

      it("grants a free lease, refuses another holder while it is valid, and renews for its holder", async () => {
        expect(await store.acquireLease(WALLET_A, "one", 1_000, t0)).to.equal(true);
        expect(await store.getLease(WALLET_A)).to.deep.equal({
          wallet: WALLET_A.toLowerCase(),
          holder: "one",
          expiresAt: at(1_000),
        });
        expect(await store.acquireLease(WALLET_A.toLowerCase(), "two", 1_000, at(999))).to.equal(false);
        expect(await store.acquireLease(WALLET_A, "one", 1_000, at(500))).to.equal(true);
        expect((await store.getLease(WALLET_A))!.expiresAt).to.deep.equal(at(1_500));
        expect(await store.acquireLease(WALLET_A, "two", 1_000, at(1_499))).to.equal(false);
        expect(await store.getLease(WALLET_A)).to.include({ holder: "one" });
      });

      it("lets another holder take an expired lease (expiry checked in code)", async () => {
        expect(await store.acquireLease(WALLET_A, "one", 1_000, t0)).to.equal(true);
        expect(await store.acquireLease(WALLET_A, "two", 1_000, at(1_000))).to.equal(true);
        expect(await store.getLease(WALLET_A)).to.deep.equal({
          wallet: WALLET_A.toLowerCase(),
          holder: "two",
          expiresAt: at(2_000),
        });
        expect(await store.acquireLease(WALLET_A, "one", 1_000, at(1_001))).to.equal(false);
      });

      it("releases only for the holder", async () => {
        await store.acquireLease(WALLET_A, "one", 1_000, t0);
        await store.releaseLease(WALLET_A, "two");
        expect(await store.getLease(WALLET_A)).to.include({ holder: "one" });
        await store.releaseLease(WALLET_A, "one");
        expect(await store.getLease(WALLET_A)).to.equal(null);
        expect(await store.acquireLease(WALLET_A, "two", 1_000, at(1))).to.equal(true);
      });

      it("keeps leases of different wallets apart", async () => {
        expect(await store.acquireLease(WALLET_A, "one", 1_000, t0)).to.equal(true);
        expect(await store.acquireLease(WALLET_B, "two", 1_000, t0)).to.equal(true);
      });

      it("grants a free lease to exactly one of 20 concurrent holders", async () => {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.acquireLease(WALLET_B, `holder-${i}`, 60_000, t0)),
        );
        expect(results.filter(Boolean)).to.have.length(1);
        const winner = `holder-${results.indexOf(true)}`;
        expect(await store.getLease(WALLET_B)).to.include({ holder: winner });
      });

      it("gives an expired lease to exactly one of 20 concurrent holders", async () => {
        await store.acquireLease(WALLET_B, "old", 1_000, t0);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.acquireLease(WALLET_B, `holder-${i}`, 60_000, at(5_000))),
        );
        expect(results.filter(Boolean)).to.have.length(1);
      });
    });
  });
}
