import { randomBytes } from "node:crypto";
import { MongoClient, type Db } from "mongodb";
import { ensureMongo } from "../../helpers/services";

/**
 * The MongoDB-protocol server of the tests: MONGODB_URI, else a FerretDB started for the test process
 * (test/helpers/services.ts). Unreachable means the tests fail, never skip.
 */
export function mongoUri(): Promise<string> {
  return ensureMongo();
}

export async function connectMongo(): Promise<MongoClient> {
  const client = new MongoClient(await mongoUri(), { serverSelectionTimeoutMS: 5_000 });
  await client.connect();
  return client;
}

/** A database of its own for one test (file), dropped by `drop`. */
export function uniqueDb(client: MongoClient, prefix: string): { db: Db; name: string; drop(): Promise<void> } {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const db = client.db(name);
  return { db, name, drop: async () => void (await db.dropDatabase()) };
}
