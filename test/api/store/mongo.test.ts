import type { MongoStore } from "../../../api/src/store/mongo";
import { dropMongoStore, freshMongoStore } from "../helpers/mongo";
import { storeConformance } from "./conformance";

storeConformance("mongodb", {
  create: async () => freshMongoStore("store"),
  dispose: async (store) => dropMongoStore(store as MongoStore),
});
