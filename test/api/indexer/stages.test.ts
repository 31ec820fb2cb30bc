import { expect } from "chai";
import { planBatch } from "../../../api/src/indexer/plan";
import type { BatchRead } from "../../../api/src/indexer/readBatch";
import { writeBatch } from "../../../api/src/indexer/writeBatch";
import type { IndexedEvent } from "../../../api/src/readmodel/records";
import type { ReadModelStore } from "../../../api/src/readmodel/store";
import { MemoryReadModelStore } from "../../../api/src/store/memory/readModel";

/** The store's write calls, in the order made (each awaited before the next is recorded as started). */
function recordingStore(): { store: ReadModelStore; calls: string[] } {
  const inner = new MemoryReadModelStore();
  const calls: string[] = [];
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(name));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, calls };
}

const event: IndexedEvent = {
  id: "31337:0xaa:0",
  chainId: 31337,
  block: 12,
  blockHash: "0x12",
  timestamp: 1_700_000_000,
  transactionHash: "0xaa",
  logIndex: 0,
  contract: "NapVault:moderate",
  address: "0x0000000000000000000000000000000000000001",
  name: "Deposit",
  args: { assets: "1" },
  users: [],
};

describe("indexer stages (plan.ts, writeBatch.ts)", function () {
  it("plans the batch after the cursor up to the newest block treated as final, at most batchBlocks long", function () {
    const settings = { finalityDepth: 2, batchBlocks: 10 };
    expect(planBatch({ height: 4, hash: "0x4" }, 100, settings)).to.deep.equal({
      cursor: { height: 4, hash: "0x4" },
      from: 5,
      to: 14,
    });
    expect(planBatch({ height: 90, hash: "0x90" }, 100, settings)).to.deep.equal({
      cursor: { height: 90, hash: "0x90" },
      from: 91,
      to: 98,
    });
    // The unfinalized blocks (99, 100) wait.
    expect(planBatch({ height: 98, hash: "0x98" }, 100, settings)).to.equal(null);
    expect(planBatch({ height: 120, hash: "0x120" }, 100, settings)).to.equal(null);
    // From the start: the block before the first contract's, with no hash to check.
    expect(planBatch({ height: -1, hash: "" }, 0, { finalityDepth: 0, batchBlocks: 2_000 })).to.deep.equal({
      cursor: { height: -1, hash: "" },
      from: 0,
      to: 0,
    });
  });

  it("writes a batch in the crash-safe order: events, snapshots and vaults, event log, cursor, checkpoint", async function () {
    const { store, calls } = recordingStore();
    const batch: BatchRead = {
      last: { number: 12, hash: "0x12", parentHash: "0x11", timestamp: 1_700_000_000 },
      events: [event],
      records: [],
      snapshots: [],
      pointed: new Set(),
    };
    const cursor = await writeBatch(store, batch, 128);
    expect(cursor).to.deep.equal({ height: 12, hash: "0x12" });
    expect(calls).to.deep.equal([
      "putEvents",
      "putSnapshots",
      "putVaults",
      "appendEventLog",
      "setCursor",
      "putCheckpoint",
    ]);
    expect(await store.cursor()).to.deep.equal({ height: 12, hash: "0x12" });
    expect((await store.events({ aboveBlock: 0 })).map((written) => written.id)).to.deep.equal([event.id]);
    expect(await store.checkpoints(12)).to.deep.equal([{ height: 12, hash: "0x12" }]);
  });

  it("leaves the cursor where it was when a write before it fails, so that the batch is read again", async function () {
    const { store } = recordingStore();
    await store.setCursor({ height: 11, hash: "0x11" });
    const failing = new Proxy(store, {
      get(target, name, receiver) {
        if (name === "appendEventLog") return () => Promise.reject(new Error("store away"));
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    const batch: BatchRead = {
      last: { number: 12, hash: "0x12", parentHash: "0x11", timestamp: 1_700_000_000 },
      events: [event],
      records: [],
      snapshots: [],
      pointed: new Set(),
    };
    const refused = await writeBatch(failing, batch, 128).then(
      () => null,
      (error: unknown) => error,
    );
    expect((refused as Error).message).to.equal("store away");
    expect(await store.cursor()).to.deep.equal({ height: 11, hash: "0x11" });
    expect(await store.checkpoints(12)).to.deep.equal([]);
  });
});
