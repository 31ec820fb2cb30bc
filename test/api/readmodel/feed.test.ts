import { expect } from "chai";
import { EventFeed } from "../../../api/src/readmodel/feed";
import type { ReadModelReader } from "../../../api/src/readmodel/store";
import { MemoryReadModelStore } from "../../../api/src/store/memory/readModel";
import { sampleEvent } from "../store/readModelConformance";

describe("event feed: a wake while the first listener starts", function () {
  it("delivers an entry written while the feed reads its tail, whose wake came before the listener was in place", async function () {
    const store = new MemoryReadModelStore();
    await store.appendEventLog([{ action: "added", event: sampleEvent(5, 0) }]);
    // The feed's start reads the log's newest seq; it answers as of before the write below (the write lands while it
    // runs), so the tail found is seq 1 while the log already holds seq 2, whose wake arrives before the listener is
    // in place.
    const reader = new Proxy(store, {
      get(target, name) {
        if (name === "lastEventSeq") return async () => 1;
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as ReadModelReader;
    // An hour's poll: only the wake can deliver the entry.
    const feed = new EventFeed(reader, { pollMs: 3_600_000 });
    const received: number[] = [];
    const listening = feed.listen((entry) => received.push(entry.seq), 1);

    // The memory store writes at once; the write and the wake both land while the start reads the tail.
    void store.appendEventLog([{ action: "added", event: sampleEvent(6, 0) }]);
    feed.wake();
    await listening;
    for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    feed.close();

    expect(received).to.deep.equal([2]);
  });
});
