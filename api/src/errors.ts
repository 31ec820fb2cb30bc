/**
 * The one error hierarchy of the service. Use cases, the transaction engine and the chain layer throw these; each
 * carries a stable `code` and a message written for the client. The doors map codes to their own shapes: the live
 * API to an HTTP status and `{ "error": message }` (doors/live/errors.ts), the data API to its
 * `{ "error": { code, message, details } }`, GraphQL and WebSocket errors. Anything else that escapes is a bug and is
 * answered as INTERNAL without internals.
 */

/** A value safe to put in a JSON body or a journal entry. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export const ERROR_CODES = [
  /** The request is malformed or breaks a rule; the message names the field and the rule. */
  "VALIDATION_FAILED",
  /** The request body is larger than the body limit; `details.max` is the limit in bytes. */
  "PAYLOAD_TOO_LARGE",
  /** Missing or unknown credentials. */
  "UNAUTHENTICATED",
  /** Authenticated, but the caller's kind or tier lacks permission. */
  "FORBIDDEN",
  /** Unknown route or resource. */
  "NOT_FOUND",
  /** Known path, method not allowed. */
  "METHOD_NOT_ALLOWED",
  /** The resource already exists, or a key was reused with a different request. */
  "CONFLICT",
  /** A rate limit or cooldown; `retryAfterSeconds` says when to come back. */
  "RATE_LIMITED",
  /** The wallet cannot pay for gas (and value); the faucet helps. */
  "INSUFFICIENT_GAS",
  /** The contract rejected the transaction (at estimation or onchain); `details.revert` decodes why. */
  "TX_REVERTED",
  /** A later step of a multi-step operation was not sent because an earlier one failed. */
  "PREVIOUS_STEP_FAILED",
  /** The node refused a signed transaction for a reason none of the above covers. */
  "TX_REJECTED",
  /** Sent, not mined within the wait; a retry with the same Idempotency-Key picks it up. */
  "TX_PENDING",
  /** Another instance holds the wallet longer than this one waits. */
  "WALLET_BUSY",
  /** The chain's RPC endpoint did not answer. */
  "CHAIN_UNAVAILABLE",
  /** Something the operation needs is not configured (server wallets, deployment, API keys). */
  "NOT_CONFIGURED",
  /** A dependency other than the chain (store, rate limiter) is unavailable, or the faucet's window budget is spent. */
  "UNAVAILABLE",
  /** A bug: nothing about it is told to the client. */
  "INTERNAL",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  /** Structured facts for clients that read them (the data API's `details`, journal entries). */
  readonly details: Record<string, JsonValue>;
  /** When set, the client may retry after this many seconds (Retry-After). */
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, details: Record<string, JsonValue> = {}, retryAfterSeconds?: number) {
    super(message);
    this.name = new.target.name;
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds === undefined ? undefined : Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

export class ValidationError extends AppError {
  readonly code = "VALIDATION_FAILED";
}

/** A body past the limit, refused before the rest of it is kept (every door answers 413). */
export class PayloadTooLargeError extends AppError {
  readonly code = "PAYLOAD_TOO_LARGE";
  constructor(limitBytes: number) {
    super(`body: larger than the limit of ${limitBytes} bytes`, { max: limitBytes });
  }
}

export class AuthenticationError extends AppError {
  readonly code = "UNAUTHENTICATED";
}

export class PermissionError extends AppError {
  readonly code = "FORBIDDEN";
}

export class NotFoundError extends AppError {
  readonly code = "NOT_FOUND";
}

export class MethodNotAllowedError extends AppError {
  readonly code = "METHOD_NOT_ALLOWED";
}

export class ConflictError extends AppError {
  readonly code = "CONFLICT";
}

export class RateLimitError extends AppError {
  readonly code = "RATE_LIMITED";
  constructor(message: string, retryAfterSeconds: number) {
    super(message, {}, retryAfterSeconds);
  }
}

/**
 * The chain did not answer. The message never carries the RPC endpoint (its host or port) or the transport error:
 * those go to the log only.
 */
export class ChainUnavailableError extends AppError {
  readonly code = "CHAIN_UNAVAILABLE";
  constructor(what = "the chain is unreachable; try again later") {
    super(what, {}, 5);
  }
}

export class NotConfiguredError extends AppError {
  readonly code = "NOT_CONFIGURED";
}

export class UnavailableError extends AppError {
  readonly code = "UNAVAILABLE";
}

/** When a client may try again after a dependency (the store, the rate limiter's Redis) stopped answering. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/**
 * The store did not answer (unreachable, hung, or its connection dropped): every door answers 503 with Retry-After.
 * The driver's error stays the `cause`, for the log only.
 */
export class StoreUnavailableError extends UnavailableError {
  constructor(cause?: unknown) {
    super("the store is unavailable: try again shortly", {}, UNAVAILABLE_RETRY_AFTER_SECONDS);
    if (cause !== undefined) this.cause = cause;
  }
}

/** The rate limiter's store (Redis) did not answer: refused with 503 rather than served without limits. */
export class RateLimiterUnavailableError extends UnavailableError {
  constructor() {
    super("rate limiter unavailable: try again shortly", {}, UNAVAILABLE_RETRY_AFTER_SECONDS);
  }
}

/** Raised by store adapters when a unique value is taken; use cases turn it into a ConflictError. */
export class DuplicateKeyError extends Error {
  constructor(readonly field: string) {
    super(`duplicate value for ${field}`);
    this.name = "DuplicateKeyError";
  }
}
