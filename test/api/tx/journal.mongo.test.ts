import type { MongoClient } from "mongodb";
import { MongoTxJournal } from "../../../api/src/store/mongo/txJournal";
import { journalConformance } from "./journalConformance";
import { connectMongo, uniqueDb } from "./mongo";

describe("MongoTxJournal", () => {
  let client: MongoClient;

  before(async () => {
    client = await connectMongo();
  });

  after(async () => {
    await client?.close();
  });

  journalConformance("mongo", async () => {
    const { db, drop } = uniqueDb(client, "txjournal");
    return { store: new MongoTxJournal(db), other: new MongoTxJournal(db), cleanup: drop };
  });
});
