import type { DataAccessStores } from "../doors/data/access";
import type { ReadModelStore } from "../readmodel/store";
import type { UseCaseStores } from "../usecases";

/** Every store of the service, as both adapters (memory, MongoDB) provide it: the use cases' interfaces and a lifecycle. */
export interface Stores extends UseCaseStores, DataAccessStores {
  readonly kind: "mongodb" | "memory";
  /** The data API's read model: written by the indexer, read by the query layer. */
  readonly readModel: ReadModelStore;
  /** Creates collections and indexes; idempotent. */
  init(): Promise<void>;
  close(): Promise<void>;
}
