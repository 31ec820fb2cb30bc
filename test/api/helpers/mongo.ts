import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { connectMongoStore, type MongoStore } from "../../../api/src/store/mongo";

/** The MongoDB-protocol server of the tests: MONGODB_URI, else the project's local FerretDB. Never skipped. */
export const TEST_MONGODB_URI = process.env.MONGODB_URI ?? "mongodb://127.0.0.1:27017/";

/** A database name unique to one test file run, so parallel helpers never share data. */
export function uniqueDbName(label: string): string {
  return `nap_test_${label}_${randomBytes(4).toString("hex")}`;
}

/** Connects a MongoStore on a fresh database; fails (never skips) if the server is unreachable. */
export async function freshMongoStore(label: string): Promise<MongoStore> {
  try {
    return await connectMongoStore({ uri: TEST_MONGODB_URI, dbName: uniqueDbName(label) });
  } catch (error) {
    throw new Error(`MongoDB-protocol server unreachable at ${TEST_MONGODB_URI} (set MONGODB_URI): ${String(error)}`);
  }
}

/** Drops the store's database and closes its client. */
export async function dropMongoStore(store: MongoStore): Promise<void> {
  await store.db.dropDatabase();
  await store.close();
}

export { MongoClient };
