import { expect } from "chai";
import fc from "fast-check";
import type { IndexedEvent, VaultRecord, VaultSnapshot } from "../../../api/src/readmodel/records";
import type { ReadModelStore } from "../../../api/src/readmodel/store";

/** One behavioural contract for both read-model adapters (memory, MongoDB). */
export interface ReadModelHarness {
  create(): Promise<ReadModelStore>;
  dispose(store: ReadModelStore): Promise<void>;
}

const VAULT = "0x00000000000000000000000000000000000000aa";
const ALICE = "0x00000000000000000000000000000000000000a1";

export function sampleEvent(block: number, logIndex: number, overrides: Partial<IndexedEvent> = {}): IndexedEvent {
  const hash = `0x${block.toString(16).padStart(4, "0")}${logIndex.toString(16).padStart(60, "0")}`;
  return {
    id: `31337:${hash}:${logIndex}`,
    chainId: 31337,
    block,
    blockHash: `0x${"b".repeat(60)}${block.toString(16).padStart(4, "0")}`,
    timestamp: 1_800_000_000 + block * 2,
    transactionHash: hash,
    logIndex,
    contract: "NapVault:moderate",
    address: VAULT,
    name: "Deposit",
    args: { sender: ALICE, owner: ALICE, assets: "1000000", shares: "1000000000000" },
    users: [ALICE],
    ...overrides,
  };
}

function sampleSnapshot(block: number, overrides: Partial<VaultSnapshot> = {}): VaultSnapshot {
  return {
    vault: VAULT,
    resolution: "point",
    key: block,
    block,
    timestamp: 1_800_000_000 + block * 2,
    totalAssets: String(1_000 + block),
    totalSupply: "1000",
    pricePerShare: String(1_000_000 + block),
    ...overrides,
  };
}

function sampleVault(): VaultRecord {
  return {
    address: VAULT,
    id: "moderate",
    name: "NAP Moderate",
    symbol: "napMOD",
    asset: "0x00000000000000000000000000000000000000c0",
    assetDecimals: 6,
    shareDecimals: 12,
    totalAssets: "1",
    totalSupply: "1",
    pricePerShare: "1000000",
    managementFeeBps: 100,
    performanceFeeBps: 1000,
    hurdleRateBps: 0,
    riskLevel: "MODERATE",
    isERC7540: false,
    fulfillmentDelay: 0,
    paused: false,
    createdAt: 1,
    allocations: [{ strategyId: `0x${"1".repeat(64)}`, targetBps: 5000 }],
    block: 7,
    timestamp: 99,
  };
}

export function readModelConformance(name: string, harness: ReadModelHarness): void {
  describe(`read model conformance: ${name}`, function () {
    let store: ReadModelStore;
    beforeEach(async function () {
      store = await harness.create();
    });
    afterEach(async function () {
      await harness.dispose(store);
    });

    it("stores an event once however often it is written, and answers queries in chain order", async function () {
      const later = sampleEvent(5, 0);
      const earlier = sampleEvent(4, 3, { users: ["0x00000000000000000000000000000000000000b2"], name: "Transfer" });
      await store.putEvents([later, earlier]);
      await store.putEvents([later, { ...earlier, args: { changed: "ignored" } }]);
      expect(await store.events({})).to.deep.equal([earlier, later]);
      expect(await store.events({ user: ALICE })).to.deep.equal([later]);
      expect(await store.events({ names: ["Transfer"] })).to.deep.equal([earlier]);
      expect(await store.events({ addresses: [VAULT], contracts: ["NapVault:moderate"] })).to.have.length(2);
      expect(await store.events({ contracts: ["StrategyRegistryV3"] })).to.deep.equal([]);
      expect(await store.events({ aboveBlock: 4 })).to.deep.equal([later]);
    });

    it("deletes the events above a height and returns them (a reorg's rewind)", async function () {
      const events = [sampleEvent(1, 0), sampleEvent(2, 0), sampleEvent(3, 1), sampleEvent(3, 0)];
      await store.putEvents(events);
      const removed = await store.deleteEventsAbove(1);
      expect(removed.map((e) => [e.block, e.logIndex])).to.deep.equal([
        [2, 0],
        [3, 0],
        [3, 1],
      ]);
      expect(await store.events({})).to.deep.equal([events[0]]);
    });

    it("keeps the latest sample of a bucket whatever order samples arrive in", async function () {
      const hour = (block: number) => sampleSnapshot(block, { resolution: "hour", key: 1_800_000_000 });
      await store.putSnapshots([hour(10), hour(12)]);
      await store.putSnapshots([hour(11)]);
      const stored = await store.snapshots(VAULT, "hour", 0);
      expect(stored).to.deep.equal([hour(12)]);
      await store.putSnapshots([hour(12)]);
      expect(await store.snapshots(VAULT, "hour", 0)).to.deep.equal([hour(12)]);
    });

    it("answers snapshots by resolution from a time, oldest first, and deletes those above a height", async function () {
      await store.putSnapshots([sampleSnapshot(3), sampleSnapshot(1), sampleSnapshot(2)]);
      await store.putSnapshots([sampleSnapshot(2, { resolution: "day", key: 0 })]);
      expect((await store.snapshots(VAULT, "point", 0)).map((s) => s.block)).to.deep.equal([1, 2, 3]);
      expect((await store.snapshots(VAULT, "point", sampleSnapshot(2).timestamp)).map((s) => s.block)).to.deep.equal([
        2, 3,
      ]);
      expect((await store.firstSnapshot(VAULT))?.block).to.equal(1);
      await store.deleteSnapshotsAbove(1);
      expect((await store.snapshots(VAULT, "point", 0)).map((s) => s.block)).to.deep.equal([1]);
      expect(await store.snapshots(VAULT, "day", 0)).to.deep.equal([]);
      expect(await store.firstSnapshot("0x00000000000000000000000000000000000000ff")).to.equal(null);
    });

    it("replaces a vault's record and keeps the cursor, the halt and the checkpoints", async function () {
      const vault = sampleVault();
      await store.putVaults([vault]);
      await store.putVaults([{ ...vault, totalAssets: "2" }]);
      expect(await store.vaults()).to.deep.equal([{ ...vault, totalAssets: "2" }]);
      expect(await store.cursor()).to.equal(null);
      await store.setCursor({ height: 9, hash: "0x09" });
      expect(await store.cursor()).to.deep.equal({ height: 9, hash: "0x09" });
      expect(await store.halt()).to.equal(null);
      const halt = { reason: "deep reorg", at: new Date(Date.UTC(2026, 0, 1)) };
      await store.setHalt(halt);
      expect(await store.halt()).to.deep.equal(halt);
      await store.setHalt(null);
      expect(await store.halt()).to.equal(null);
      for (let h = 1; h <= 5; h++) await store.putCheckpoint({ height: h * 10, hash: `0x${h}` }, 3);
      expect((await store.checkpoints(100)).map((c) => c.height)).to.deep.equal([50, 40, 30]);
      expect((await store.checkpoints(45)).map((c) => c.height)).to.deep.equal([40, 30]);
      await store.deleteCheckpointsAbove(30);
      expect(await store.checkpoints(100)).to.deep.equal([{ height: 30, hash: "0x3" }]);
    });

    it("deletes the vault records read above a height and keeps those read at or below it", async function () {
      const early = sampleVault();
      const late = { ...sampleVault(), address: "0x00000000000000000000000000000000000000ee", id: "late", block: 12 };
      await store.putVaults([early, late]);
      await store.deleteVaultsAbove(12);
      expect((await store.vaults()).map((v) => v.id).sort()).to.deep.equal([early.id, "late"].sort());
      await store.deleteVaultsAbove(early.block);
      expect(await store.vaults()).to.deep.equal([early]);
    });

    it("keeps what was written whatever the writer or a reader changes in its objects afterwards", async function () {
      const event = sampleEvent(3, 1, { args: { owner: ALICE, nested: { amounts: ["1", "2"] } } });
      const vault = sampleVault();
      const snapshot = sampleSnapshot(3);
      const halt = { reason: "deep reorg", at: new Date(Date.UTC(2026, 0, 1)) };
      const written = structuredClone({ event, vault, snapshot, halt });
      await store.putEvents([event]);
      await store.appendEventLog([{ action: "added", event }]);
      await store.putVaults([vault]);
      await store.putSnapshots([snapshot]);
      await store.setHalt(halt);
      // The writer changes its objects, then a reader changes what it was given.
      (event.args.nested as { amounts: string[] }).amounts.push("3");
      event.users.push("0x00000000000000000000000000000000000000b2");
      vault.allocations[0].targetBps = 1;
      snapshot.totalAssets = "0";
      halt.at.setTime(0);
      const [read] = await store.events({});
      (read.args.nested as { amounts: string[] }).amounts.length = 0;
      read.users.length = 0;
      const [logged] = await store.eventLog(0, 1);
      logged.event.args.owner = "nobody";
      (await store.vaults())[0].allocations.length = 0;
      (await store.snapshots(VAULT, "point", 0))[0].totalSupply = "0";
      (await store.halt())?.at.setTime(1);
      expect(await store.events({})).to.deep.equal([written.event]);
      expect((await store.eventLog(0, 1))[0].event).to.deep.equal(written.event);
      expect(await store.vaults()).to.deep.equal([written.vault]);
      expect(await store.snapshots(VAULT, "point", 0)).to.deep.equal([written.snapshot]);
      expect(await store.halt()).to.deep.equal(written.halt);
    });

    it("appends each (event, block hash, action) to the log once, with seq 1, 2, 3 ... in order", async function () {
      expect(await store.lastEventSeq()).to.equal(0);
      const a = sampleEvent(1, 0);
      const b = sampleEvent(2, 0);
      await store.appendEventLog([
        { action: "added", event: a },
        { action: "added", event: b },
      ]);
      // A batch written again after a crash, then a reorg taking b out and putting it back in another block.
      await store.appendEventLog([
        { action: "added", event: a },
        { action: "added", event: b },
      ]);
      await store.appendEventLog([{ action: "removed", event: b }]);
      const b2 = { ...b, blockHash: `0x${"c".repeat(64)}` };
      await store.appendEventLog([{ action: "added", event: b2 }]);
      const log = await store.eventLog(0, 100);
      expect(log.map((e) => [e.seq, e.action, e.event.blockHash])).to.deep.equal([
        [1, "added", a.blockHash],
        [2, "added", b.blockHash],
        [3, "removed", b.blockHash],
        [4, "added", b2.blockHash],
      ]);
      expect((await store.eventLog(2, 1)).map((e) => e.seq)).to.deep.equal([3]);
      expect((await store.eventLog(3, 100)).map((e) => e.seq)).to.deep.equal([4]);
      expect(await store.eventLog(4, 100)).to.deep.equal([]);
      expect(await store.eventLog(0, 0)).to.deep.equal([]);
      expect(await store.lastEventSeq()).to.equal(4);
    });

    it("gives the lease to one holder until it expires or is released", async function () {
      const t0 = new Date(Date.UTC(2026, 0, 1));
      const at = (ms: number) => new Date(t0.getTime() + ms);
      expect(await store.acquireLease("a", 1_000, t0)).to.equal(true);
      expect(await store.acquireLease("b", 1_000, at(500))).to.equal(false);
      expect(await store.acquireLease("a", 1_000, at(900))).to.equal(true, "renewal");
      expect(await store.acquireLease("b", 1_000, at(1_500))).to.equal(false, "renewed until 1900");
      expect(await store.acquireLease("b", 1_000, at(1_901))).to.equal(true, "expired");
      expect((await store.lease())?.holder).to.equal("b");
      await store.releaseLease("a");
      expect((await store.lease())?.holder).to.equal("b", "only the holder releases");
      await store.releaseLease("b");
      expect(await store.lease()).to.equal(null);
      expect(await store.acquireLease("a", 1_000, at(1_902))).to.equal(true);
    });

    it("lets exactly one of many concurrent takers win a free lease (property)", async function () {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 2, max: 6 }), async (takers) => {
          const fresh = await harness.create();
          try {
            const now = new Date(Date.UTC(2026, 0, 1));
            const results = await Promise.all(
              Array.from({ length: takers }, (_, i) => fresh.acquireLease(`holder-${i}`, 5_000, now)),
            );
            expect(results.filter(Boolean)).to.have.length(1);
          } finally {
            await harness.dispose(fresh);
          }
        }),
        { numRuns: 5 },
      );
    });
  });
}
