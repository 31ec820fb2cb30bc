import { MongoReadModelStore } from "../../../api/src/store/mongo/readModel";
import type { MongoStore } from "../../../api/src/store/mongo";
import { MemoryReadModelStore } from "../../../api/src/store/memory/readModel";
import { dropMongoStore, freshMongoStore } from "../helpers/mongo";
import { readModelConformance } from "./readModelConformance";

readModelConformance("memory", {
  create: async () => new MemoryReadModelStore(),
  dispose: async () => undefined,
});

const owners = new Map<MongoReadModelStore, MongoStore>();
readModelConformance("mongodb", {
  create: async () => {
    const mongo = await freshMongoStore("readmodel");
    owners.set(mongo.readModel, mongo);
    return mongo.readModel;
  },
  dispose: async (store) => {
    const mongo = owners.get(store as MongoReadModelStore);
    owners.delete(store as MongoReadModelStore);
    if (mongo) await dropMongoStore(mongo);
  },
});
