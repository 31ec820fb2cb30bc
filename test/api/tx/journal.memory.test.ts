import { expect } from "chai";
import { MemoryTxJournal } from "../../../api/src/store/memory/txJournal";
import { journalConformance } from "./journalConformance";

journalConformance("memory", async () => {
  const store = new MemoryTxJournal();
  return { store, other: store, cleanup: async () => {} };
});

describe("MemoryTxJournal snapshots", () => {
  it("hands out entries that no caller can change", async () => {
    const journal = new MemoryTxJournal();
    const { entry } = await journal.createIntent({
      intentKey: "frozen",
      wallet: { kind: "agent", index: 1 },
      from: "0x" + "11".repeat(20),
      chainId: 31337,
      to: "0x" + "22".repeat(20),
      data: "0x",
      value: "0",
      kind: "probe",
      requestor: null,
      meta: { note: "kept" },
      after: null,
    });
    expect(() => ((entry as { state: string }).state = "mined")).to.throw(TypeError);
    expect(() => ((entry.meta as { note: string }).note = "changed")).to.throw(TypeError);
    expect(await journal.get("frozen")).to.deep.include({ state: "intent", meta: { note: "kept" } });
  });
});
