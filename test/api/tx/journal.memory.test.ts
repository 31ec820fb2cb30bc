import { MemoryTxJournal } from "../../../api/src/store/memory/txJournal";
import { journalConformance } from "./journalConformance";

journalConformance("memory", async () => ({ store: new MemoryTxJournal(), cleanup: async () => {} }));
