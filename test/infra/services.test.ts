import { expect } from "chai";
import { MongoClient } from "mongodb";
import { ensureMongo } from "../helpers/services";

describe("test services", () => {
  it("gives a MongoDB-protocol server that enforces unique indexes", async () => {
    const client = await MongoClient.connect(await ensureMongo());
    try {
      const collection = client.db(`nap_probe_${process.pid}`).collection<{ key: string }>("probe");
      await collection.createIndex({ key: 1 }, { unique: true });
      await collection.insertOne({ key: "a" });
      const duplicate = await collection.insertOne({ key: "a" }).catch((error: { code?: number }) => error.code);
      expect(duplicate).to.equal(11000);
      await client.db(`nap_probe_${process.pid}`).dropDatabase();
    } finally {
      await client.close();
    }
  });
});
