import { createHash, randomUUID } from "node:crypto";

/**
 * Intent keys name one onchain operation in the journal. With an Idempotency-Key the key is derived from who
 * asked, which operation, and the client's key, so a retry finds the first intent; without one it is random.
 * The client's key is hashed: it is client-chosen text of any length and must not be echoed into logs as is.
 */
export function intentKeyFor(requestor: string, operation: string, idempotencyKey?: string | null): string {
  if (idempotencyKey === undefined || idempotencyKey === null || idempotencyKey === "") {
    return `rand:${randomUUID()}`;
  }
  const digest = createHash("sha256").update(`${requestor}\u0000${operation}\u0000${idempotencyKey}`).digest("hex");
  return `idem:${digest}`;
}

/** Key of one step of a multi-step operation (e.g. `${key}:approve`, `${key}:deposit`). */
export function stepKey(intentKey: string, step: string): string {
  return `${intentKey}:${step}`;
}
