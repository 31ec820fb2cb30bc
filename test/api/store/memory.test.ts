import { createMemoryStore } from "../../../api/src/store/memory";
import { storeConformance } from "./conformance";

storeConformance("memory", {
  create: async () => createMemoryStore(),
  dispose: async (store) => store.close(),
});
