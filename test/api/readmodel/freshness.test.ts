import { expect } from "chai";
import fc from "fast-check";
import {
  atLeastBlock,
  chooseMinBlock,
  IndexedBlockWatch,
  MIN_BLOCK_HEAD_MARGIN,
} from "../../../api/src/readmodel/freshness";

/** A cursor the test moves, and how often the watch read it. */
function cursor(start: number | null) {
  const state = { height: start, reads: 0 };
  return { state, read: async () => (state.reads++, state.height) };
}

describe("read your own write: the wait for an indexed block (readmodel/freshness.ts)", function () {
  it("stale read after a write: a hundred waiting reads cost one cursor read when the indexer moves, none before", async function () {
    const { state, read } = cursor(10);
    const watch = new IndexedBlockWatch(read, { fallbackMs: 60_000 });
    const waits = Array.from({ length: 100 }, () => watch.waitFor(12, 10, 5_000));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(state.reads).to.equal(0);
    // A notice of a block below the one waited for reads nothing.
    watch.advanced(11);
    expect(state.reads).to.equal(0);
    state.height = 12;
    watch.advanced(12);
    expect(await Promise.all(waits)).to.deep.equal(Array(100).fill(12));
    expect(state.reads).to.equal(1);
    expect(watch.waiting).to.equal(0);
  });

  it("stale read after a write: a lost notice delays the answer by one fallback read at most", async function () {
    const { state, read } = cursor(3);
    const watch = new IndexedBlockWatch(read, { fallbackMs: 20 });
    const waiting = watch.waitFor(4, 3, 5_000);
    state.height = 4;
    expect(await waiting).to.equal(4);
  });

  it("stale read after a write: the wait runs out with the height reached, below the block asked for", async function () {
    const { read } = cursor(7);
    const watch = new IndexedBlockWatch(read, { fallbackMs: 10 });
    expect(await watch.waitFor(9, 7, 50)).to.equal(7);
    expect(watch.waiting).to.equal(0);
  });

  it("stale read after a write: waiters past the cap are answered at once, not queued", async function () {
    const { read } = cursor(1);
    const watch = new IndexedBlockWatch(read, { fallbackMs: 60_000, maxWaiters: 2 });
    const held = [watch.waitFor(5, 1, 5_000), watch.waitFor(5, 1, 5_000)];
    const started = Date.now();
    expect(await watch.waitFor(5, 1, 5_000)).to.equal(1);
    expect(Date.now() - started).to.be.below(1_000);
    watch.close();
    expect(await Promise.all(held)).to.deep.equal([1, 1]);
  });

  it("stale read after a write: minBlock malformed, empty or beyond the head is invalid, absent asks for nothing", async function () {
    let waited = 0;
    const deps = { waitForBlock: async (block: number) => (waited++, block), head: async () => 100 };
    expect(await atLeastBlock(deps, undefined, "minBlock")).to.deep.equal({ status: "none" });
    expect(await atLeastBlock(deps, null, "extensions.minBlock")).to.deep.equal({ status: "none" });
    // schemathesis sent `X-Min-Block:` with no value and got the read as if it had asked for nothing.
    for (const bad of ["", "-1", "1.5", "0x10", "12345678901234567", 1.5, true, {}]) {
      expect((await atLeastBlock(deps, bad, "minBlock")).status, String(bad)).to.equal("invalid");
    }
    expect(await atLeastBlock(deps, String(101 + MIN_BLOCK_HEAD_MARGIN), "minBlock")).to.deep.include({
      status: "invalid",
      field: "minBlock",
    });
    expect(waited).to.equal(0);
    expect(await atLeastBlock(deps, 100 + MIN_BLOCK_HEAD_MARGIN, "minBlock")).to.deep.equal({
      status: "reached",
      minBlock: 100 + MIN_BLOCK_HEAD_MARGIN,
      indexedBlock: 100 + MIN_BLOCK_HEAD_MARGIN,
    });
  });
  it("minBlock named in two places: a malformed place is never passed over, and the higher block is asked for", function () {
    expect(
      chooseMinBlock([
        ["0", "minBlock"],
        ["-1", "X-Min-Block"],
      ]),
    ).to.deep.equal({
      field: "X-Min-Block",
      message: "X-Min-Block: must be a block number (an integer from 0 to 9007199254740991)",
    });
    expect(
      chooseMinBlock([
        [undefined, "minBlock"],
        [undefined, "X-Min-Block"],
      ]),
    ).to.deep.equal({
      raw: undefined,
      field: "minBlock",
    });
    expect(
      chooseMinBlock([
        ["7", "minBlock"],
        ["", "X-Min-Block"],
      ]),
    ).to.deep.include({ field: "X-Min-Block" });
    const place = fc.option(fc.oneof(fc.nat().map(String), fc.string()), { nil: undefined });
    fc.assert(
      fc.property(place, place, (query, header) => {
        const chosen = chooseMinBlock([
          [query, "minBlock"],
          [header, "X-Min-Block"],
        ]);
        const good = (raw: string | undefined) => raw === undefined || /^\d{1,16}$/.test(raw);
        if (!good(query) || !good(header)) return "message" in chosen;
        const blocks = [query, header].filter((raw) => raw !== undefined).map(Number);
        if (blocks.length === 0) return !("message" in chosen) && chosen.raw === undefined;
        return !("message" in chosen) && Number(chosen.raw) === Math.max(...blocks);
      }),
    );
  });
});
