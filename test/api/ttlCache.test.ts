import { expect } from "chai";
import { TtlCache } from "../../api/src/ttlCache";

/** TtlCache (api/src/ttlCache.ts): reuse within the TTL, and the successor computed ahead of expiry. */

/** A computation the test settles by hand, counting how often it was started. */
function manualComputation() {
  const settle: Array<{ resolve: (value: number) => void; reject: (error: Error) => void }> = [];
  return {
    started: () => settle.length,
    compute: () => new Promise<number>((resolve, reject) => settle.push({ resolve, reject })),
    resolve: (index: number, value: number) => settle[index].resolve(value),
    reject: (index: number, error: Error) => settle[index].reject(error),
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("TtlCache", function () {
  it("reuses a value for its TTL and computes nothing ahead without refreshAheadMs", async function () {
    let now = 0;
    const cache = new TtlCache<"k", number>(1_000, { now: () => now });
    const work = manualComputation();
    const first = cache.get("k", work.compute);
    work.resolve(0, 1);
    expect(await first).to.equal(1);
    now = 999;
    expect(await cache.get("k", work.compute)).to.equal(1);
    expect(cache.peek("k", work.compute)).to.equal(1);
    expect(work.started()).to.equal(1);
    now = 1_000;
    expect(cache.peek("k")).to.equal(undefined);
    const second = cache.get("k", work.compute);
    expect(work.started()).to.equal(2);
    work.resolve(1, 2);
    expect(await second).to.equal(2);
  });

  it("starts one successor in the last refreshAheadMs and answers the kept value until it is computed", async function () {
    let now = 0;
    const cache = new TtlCache<"k", number>(1_000, { now: () => now, refreshAheadMs: 250 });
    const work = manualComputation();
    const first = cache.get("k", work.compute);
    work.resolve(0, 1);
    await first;
    now = 749;
    expect(await cache.get("k", work.compute)).to.equal(1);
    expect(work.started()).to.equal(1, "nothing ahead before the window");
    now = 750;
    expect(await cache.get("k", work.compute)).to.equal(1, "the kept value while the successor runs");
    expect(cache.peek("k", work.compute)).to.equal(1);
    expect(await cache.get("k", work.compute)).to.equal(1);
    expect(work.started()).to.equal(2, "one successor however many reads");
    work.resolve(1, 2);
    await turn();
    expect(await cache.get("k", work.compute)).to.equal(2);
    expect(cache.peek("k")).to.equal(2);
    now = 1_499;
    expect(await cache.get("k", work.compute)).to.equal(2, "the successor's age counts from when it started");
    expect(work.started()).to.equal(2, "its own window opens 750 ms after it started");
    now = 1_500;
    expect(await cache.get("k", work.compute)).to.equal(2);
    expect(work.started()).to.equal(3);
  });

  it("never answers a value older than the TTL: a successor still running at expiry is waited for", async function () {
    let now = 0;
    const cache = new TtlCache<"k", number>(1_000, { now: () => now, refreshAheadMs: 250 });
    const work = manualComputation();
    const first = cache.get("k", work.compute);
    work.resolve(0, 1);
    await first;
    now = 800;
    expect(cache.peek("k", work.compute)).to.equal(1);
    expect(work.started()).to.equal(2);
    now = 1_000;
    expect(cache.peek("k", work.compute)).to.equal(undefined, "expired, and the successor is not computed yet");
    const waiting = cache.get("k", work.compute);
    expect(work.started()).to.equal(2, "the running successor is waited for, not a third computation");
    work.resolve(1, 2);
    expect(await waiting).to.equal(2);
  });

  it("forgets a failed successor: the kept value is answered until it expires and a later read tries again", async function () {
    let now = 0;
    const cache = new TtlCache<"k", number>(1_000, { now: () => now, refreshAheadMs: 250 });
    const work = manualComputation();
    const first = cache.get("k", work.compute);
    work.resolve(0, 1);
    await first;
    now = 800;
    expect(await cache.get("k", work.compute)).to.equal(1);
    work.reject(1, new Error("node unreachable"));
    await turn();
    expect(await cache.get("k", work.compute)).to.equal(1);
    expect(work.started()).to.equal(3, "a read after the failure starts another successor");
    work.reject(2, new Error("node unreachable"));
    await turn();
    now = 1_000;
    const fresh = cache.get("k", work.compute);
    expect(work.started()).to.equal(4, "after expiry a failed successor is not waited for");
    work.resolve(3, 5);
    expect(await fresh).to.equal(5);
  });
});
