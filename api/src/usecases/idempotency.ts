import { createHash } from "node:crypto";
import { ConflictError } from "../errors";
import { IDEMPOTENCY_HEADER } from "../../../packages/wire/src/idempotency";

/**
 * Idempotency-Key for the POSTs that move value (deposit, strategy submit, vote, faucet).
 *
 * - The first successful answer (its body) is stored under (agent, operation, key) for 24 hours; a retry with the
 *   same key gets that answer back, without running the operation again.
 * - Concurrent duplicates in one process wait for the first call and get its answer.
 * - Errors are not stored: a retry runs the operation again, and the transaction engine (whose intent key is derived
 *   from the same agent, operation and key) signs nothing a second time: it returns the journaled receipt, or the
 *   journaled final error. So a retry after a crash, or a duplicate on another instance, never makes a second
 *   transaction either; only its answer is then rebuilt from the chain.
 * - A key reused with a different request is refused as a CONFLICT.
 */

export { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_PATTERN } from "../../../packages/wire/src/idempotency";
/** How long an answer is kept and returned to retries. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredAnswer {
  /** SHA-256 of the request the answer was given to. */
  fingerprint: string;
  body: unknown;
  createdAt: Date;
}

/** Where answers are kept. Adapters in store/ (MongoDB with a TTL index, memory). */
export interface IdempotencyStore {
  init(): Promise<void>;
  /** The answer stored under `id`, or null; never one older than IDEMPOTENCY_TTL_MS at `now`. */
  get(id: string, now?: Date): Promise<StoredAnswer | null>;
  /** Stores the first answer; a second put for one id keeps the first (unless it has expired). */
  put(id: string, answer: StoredAnswer): Promise<void>;
  /** Deletes answers older than IDEMPOTENCY_TTL_MS at `now`; returns how many. */
  purgeExpired(now?: Date): Promise<number>;
}

export class Idempotency {
  readonly #inflight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: IdempotencyStore,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Runs `operation` once per (agent, operation name, key); returns the stored answer on a retry. Without a key it
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
      .update(
        JSON.stringify(request ?? null, (_key, value: unknown) => (typeof value === "bigint" ? `${value}n` : value)),
      )
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
      const stored = await this.store.get(id, this.clock());
      if (stored) {
        if (stored.fingerprint !== fingerprint) {
          throw new ConflictError(`${IDEMPOTENCY_HEADER}: this key was already used with a different request`);
        }
        return stored.body as T;
      }
      if (this.#inflight.has(id)) continue;
      const promise = (async () => {
        const body = await operation();
        await this.store.put(id, { fingerprint, body, createdAt: this.clock() });
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
