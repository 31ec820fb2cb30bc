import { createMemoryStore } from "./memory";
import { connectMongoStore } from "./mongo";
import type { Stores } from "./stores";

export type { Stores } from "./stores";

/**
 * The store factory: every store of the service, for MongoDB (the store of record; FerretDB v1 in tests) or in memory
 * (a zero-set-up start). Adapters only live here; the interfaces they implement belong to the code that uses them
 * (usecases/*, tx/journal.ts). Both adapters pass one conformance suite per interface.
 */

export interface StoreSettings {
  /** Absent: in memory. */
  mongodbUri?: string;
  mongodbDb: string;
}

/** Opens (and initialises) the stores the settings name. */
export async function openStores(settings: StoreSettings): Promise<Stores> {
  if (!settings.mongodbUri) return createMemoryStore();
  return connectMongoStore({ uri: settings.mongodbUri, dbName: settings.mongodbDb });
}
