import { randomBytes } from "node:crypto";
import { MongoClient, type Db } from "mongodb";

/**
 * The MongoDB-protocol server of the tests (FerretDB here): MONGODB_URI, else the machine's shared one.
 * Unreachable means the tests fail, never skip. (On main, test/helpers/services.ts `ensureMongo()` starts one when
 * MONGODB_URI is unset; this function is the one place to switch to it.)
 */
export async function mongoUri(): Promise<string> {
  return process.env.MONGODB_URI ?? "mongodb://127.0.0.1:27017/";
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
