import { createHash } from "node:crypto";
import type { Collection, Db } from "mongodb";
import { ConflictError, ValidationError } from "../errors";

/**
 * Idempotency-Key for the POSTs that move value (deposit, strategy submit, vote, faucet).
 *
 * - The first successful answer (status 200 and its body) is stored under (agent, operation, key) for 24 hours; a
 *   retry with the same key gets that answer back byte for byte, without running the operation again.
 * - Concurrent duplicates in one process wait for the first call and get its answer.
 * - Errors are not stored: a retry runs the handler again, and the transaction engine (whose intent key is derived
 *   from the same agent, operation and key) signs nothing a second time: it returns the journaled receipt, or the
 *   journaled final error. So a retry after a crash, or a duplicate on another instance, never makes a second
 *   transaction either; only its response body is then rebuilt from the chain.
 * - A key reused with a different request body is refused with 409.
 */

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  fingerprint: string;
  status: number;
  body: unknown;
  createdAt: Date;
}

export interface IdempotencyStore {
  init(): Promise<void>;
  get(id: string): Promise<StoredResponse | null>;
  /** Stores the first answer; a second put for one id keeps the first. */
  put(id: string, response: StoredResponse): Promise<void>;
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #records = new Map<string, StoredResponse>();
  async init(): Promise<void> {}
  async get(id: string): Promise<StoredResponse | null> {
    return this.#records.get(id) ?? null;
  }
  async put(id: string, response: StoredResponse): Promise<void> {
    if (!this.#records.has(id)) this.#records.set(id, response);
    if (this.#records.size > 100_000) {
      const cutoff = Date.now() - TTL_MS;
      for (const [key, value] of this.#records) if (value.createdAt.getTime() < cutoff) this.#records.delete(key);
    }
  }
}

interface ResponseDoc {
  _id: string;
  fingerprint: string;
  status: number;
  body: string;
  createdAt: Date;
}

/** MongoDB collection `idempotent_responses`; the body is kept as JSON text so that no field name is rewritten. */
export class MongoIdempotencyStore implements IdempotencyStore {
  readonly #collection: Collection<ResponseDoc>;
  constructor(db: Db) {
    this.#collection = db.collection<ResponseDoc>("idempotent_responses");
  }
  async init(): Promise<void> {
    await this.#collection.createIndex({ createdAt: 1 }, { name: "by_created" });
  }
  async get(id: string): Promise<StoredResponse | null> {
    const doc = await this.#collection.findOne({ _id: id });
    if (!doc) return null;
    return { fingerprint: doc.fingerprint, status: doc.status, body: JSON.parse(doc.body), createdAt: doc.createdAt };
  }
  async put(id: string, response: StoredResponse): Promise<void> {
    try {
      await this.#collection.insertOne({
        _id: id,
        fingerprint: response.fingerprint,
        status: response.status,
        body: JSON.stringify(response.body),
        createdAt: response.createdAt,
      });
    } catch (error) {
      if ((error as { code?: number }).code !== 11000) throw error;
    }
  }
}

/** Reads and checks the header: undefined when absent. */
export function readIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined || header === "") return undefined;
  if (!KEY_PATTERN.test(header)) {
    throw new ValidationError(`${IDEMPOTENCY_HEADER}: must be 1-255 printable ASCII characters without spaces`);
  }
  return header;
}

export class Idempotency {
  readonly #inflight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Runs `operation` once per (agent, operation name, key); returns the stored body on a retry. Without a key it
   * simply runs the operation.
   */
  async run<T>(
    agentId: string,
    operationName: string,
    key: string | undefined,
    request: unknown,
    operation: () => Promise<T>,
  ): Promise<T> {
    if (key === undefined) return operation();
    const id = createHash("sha256").update(`${agentId}\u0000${operationName}\u0000${key}`).digest("hex");
    const fingerprint = createHash("sha256")
      .update(JSON.stringify(request ?? null))
      .digest("hex");
    for (;;) {
      const running = this.#inflight.get(id);
      if (running) {
        // Wait for the first call; if it failed, the loop runs the operation again (the engine dedups the tx).
        try {
          await running;
        } catch {
          // the first call's error is its own; this call decides again below
        }
        if (this.#inflight.get(id) === running) this.#inflight.delete(id);
        continue;
      }
      const stored = await this.store.get(id);
      if (stored && this.clock().getTime() - stored.createdAt.getTime() < TTL_MS) {
        if (stored.fingerprint !== fingerprint) {
          throw new ConflictError(`${IDEMPOTENCY_HEADER}: this key was already used with a different request`);
        }
        return stored.body as T;
      }
      if (this.#inflight.has(id)) continue;
      const promise = (async () => {
        const body = await operation();
        await this.store.put(id, { fingerprint, status: 200, body, createdAt: this.clock() });
        return body;
      })();
      this.#inflight.set(id, promise);
      try {
        return await promise;
      } finally {
        if (this.#inflight.get(id) === promise) this.#inflight.delete(id);
      }
    }
  }
}
