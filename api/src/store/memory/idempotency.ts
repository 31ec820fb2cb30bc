import { IDEMPOTENCY_TTL_MS, type IdempotencyStore, type StoredAnswer } from "../../usecases/idempotency";

/** Answers kept in a Map; expired ones are never returned, and removed by purgeExpired (run by the server). */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #answers = new Map<string, StoredAnswer>();

  async init(): Promise<void> {}

  async get(id: string, now: Date = new Date()): Promise<StoredAnswer | null> {
    const answer = this.#answers.get(id);
    if (!answer || now.getTime() - answer.createdAt.getTime() >= IDEMPOTENCY_TTL_MS) return null;
    return answer;
  }

  async put(id: string, answer: StoredAnswer): Promise<void> {
    const existing = this.#answers.get(id);
    if (existing && Date.now() - existing.createdAt.getTime() < IDEMPOTENCY_TTL_MS) return;
    this.#answers.set(id, answer);
  }

  async purgeExpired(now: Date = new Date()): Promise<number> {
    let removed = 0;
    for (const [key, answer] of this.#answers) {
      if (now.getTime() - answer.createdAt.getTime() >= IDEMPOTENCY_TTL_MS) {
        this.#answers.delete(key);
        removed += 1;
      }
    }
    return removed;
  }
}
