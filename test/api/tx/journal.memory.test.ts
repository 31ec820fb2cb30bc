import { MemoryTxJournal } from "../../../api/src/store/memory/txJournal";
import { journalConformance } from "./journalConformance";

journalConformance("memory", async () => {
  const store = new MemoryTxJournal();
  return { store, other: store, cleanup: async () => {} };
});
