import { randomBytes } from "node:crypto";
import { connectMongoStore, type MongoStore } from "../../../api/src/store/mongo";
import { ensureMongo } from "../../helpers/services";

/** A database name unique to one test file run, so parallel runs never share data. */
export function uniqueDbName(label: string): string {
  return `nap_test_${label}_${randomBytes(4).toString("hex")}`;
}

/**
 * Connects a MongoStore on a fresh database of the tests' MongoDB-protocol server (MONGODB_URI, else a FerretDB
 * started by test/helpers/services.ts). Fails, never skips, if there is none.
 */
export async function freshMongoStore(label: string): Promise<MongoStore> {
  const uri = await ensureMongo();
  try {
    return await connectMongoStore({ uri, dbName: uniqueDbName(label) });
  } catch (error) {
    throw new Error(`MongoDB-protocol server unreachable at ${uri}: ${String(error)}`, { cause: error });
  }
}

/** Drops the store's database and closes its client. */
export async function dropMongoStore(store: MongoStore): Promise<void> {
  await store.db.dropDatabase();
  await store.close();
}
