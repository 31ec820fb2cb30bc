import { expect } from "chai";
import { DataQueries } from "../../../api/src/readmodel/queries";
import { MemoryReadModelStore } from "../../../api/src/store/memory/readModel";

const HASH = `0x${"ab".repeat(32)}`;

describe("DataQueries: the vault list kept for the hot reads", () => {
  it("has nothing kept before the list of the kept cursor's block is computed", async () => {
    const store = new MemoryReadModelStore();
    await store.setCursor({ height: 7, hash: HASH });
    const queries = new DataQueries(store, { cursorTtlMs: 60_000 });
    expect(queries.keptVaults()).to.equal(undefined);
    await queries.cursor();
    expect(queries.keptVaults()).to.equal(undefined);
  });

  it("hands out the very list `vaults()` computed for that block, without a promise", async () => {
    const store = new MemoryReadModelStore();
    await store.setCursor({ height: 7, hash: HASH });
    const queries = new DataQueries(store, { cursorTtlMs: 60_000 });
    const list = await queries.vaults();
    expect(list.indexedBlock).to.equal(7);
    expect(queries.keptVaults()).to.equal(list);
  });

  it("keeps nothing of an older block once the cursor read moved on (read-your-writes wait included)", async () => {
    const store = new MemoryReadModelStore();
    await store.setCursor({ height: 7, hash: HASH });
    const queries = new DataQueries(store, { cursorTtlMs: 60_000 });
    await queries.vaults();
    await store.setCursor({ height: 8, hash: HASH });
    expect(await queries.waitForBlock(8)).to.equal(8);
    expect(queries.keptVaults()).to.equal(undefined);
    const next = await queries.vaults();
    expect(next.indexedBlock).to.equal(8);
    expect(queries.keptVaults()).to.equal(next);
  });

  it("keeps nothing while the cursor is not kept (a TTL of 0 reads it for every request)", async () => {
    const store = new MemoryReadModelStore();
    await store.setCursor({ height: 7, hash: HASH });
    const queries = new DataQueries(store, { cursorTtlMs: 0 });
    await queries.vaults();
    expect(queries.keptVaults()).to.equal(undefined);
  });
});
