import type { StoreHealth } from "../../usecases/health";
import type { Stores } from "../stores";
import { MemoryAgentStore } from "./agents";
import { MemoryCounterStore } from "./counters";
import { MemoryDataKeyStore } from "./dataKeys";
import { MemoryIdempotencyStore } from "./idempotency";
import { MemoryNodeStore } from "./nodes";
import { MemoryNonceStore } from "./nonces";
import { MemoryReadModelStore } from "./readModel";
import { MemoryScopedKeyStore } from "./scopedKeys";
import { MemoryTxJournal } from "./txJournal";

/**
 * In-memory store: the zero-set-up store of `npm start` without MONGODB_URI, and a fast double in tests.
 * Node runs JavaScript on one thread, so each method body up to its first `await` is atomic; no method here awaits
 * between reading and writing, which gives the same single-document atomicity as the MongoDB adapter.
 * Records are copied on the way in and out so that callers cannot mutate stored state.
 */
export class MemoryStore implements Stores {
  readonly kind = "memory" as const;
  readonly agents = new MemoryAgentStore();
  readonly nonces = new MemoryNonceStore();
  readonly counters = new MemoryCounterStore();
  readonly journal = new MemoryTxJournal();
  readonly idempotency = new MemoryIdempotencyStore();
  readonly dataKeys = new MemoryDataKeyStore();
  readonly scopedKeys = new MemoryScopedKeyStore();
  readonly nodes = new MemoryNodeStore();
  readonly readModel = new MemoryReadModelStore();

  async init(): Promise<void> {}

  async health(): Promise<StoreHealth> {
    return { kind: "memory", connected: true };
  }

  async close(): Promise<void> {}
}

export function createMemoryStore(): MemoryStore {
  return new MemoryStore();
}
