/**
 * The one error hierarchy of the service. Use cases, the transaction engine and the chain layer throw these; each
 * carries a stable `code` and a message written for the client. The doors map codes to their own shapes: the live
 * API to an HTTP status and `{ "error": message }` (doors/live/errors.ts), the data API to its
 * `{ "error": { code, message, details } }`, GraphQL and WebSocket errors. Anything else that escapes is a bug and is
 * answered as INTERNAL without internals.
 */

import { LIVE_ERROR_CODES } from "../../packages/wire/src/codes";

/** A value safe to put in a JSON body or a journal entry. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * The kinds of error, the stable codes of the wire contract (packages/wire/src/codes.ts, where each is described):
 * every door maps a kind to its status and shape.
 */
export const ERROR_CODES = LIVE_ERROR_CODES;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** What an error may carry besides its message and details. */
export interface AppErrorOptions {
  /** The client may retry after this many seconds (Retry-After). */
  retryAfterSeconds?: number;
  /**
   * A finer public code than the kind's, for the doors that publish one (the data API's INVALID_ADDRESS,
   * VAULT_NOT_FOUND, INSUFFICIENT_SCOPE, the /ws door's INVALID_AFTER_SEQ): the kind stays what decides the status.
   */
  reason?: string;
}

export abstract class AppError extends Error {
  /** The kind: what every door maps to its status. */
  abstract readonly code: ErrorCode;
  /** Structured facts for clients that read them (the data API's `details`, journal entries). */
  readonly details: Record<string, JsonValue>;
  /** When set, the client may retry after this many seconds (Retry-After). */
  readonly retryAfterSeconds: number | undefined;
  /** See AppErrorOptions.reason; undefined: the door names the kind. */
  readonly reason: string | undefined;

  /** `options`: the seconds to retry after, or the options. */
  constructor(message: string, details: Record<string, JsonValue> = {}, options: number | AppErrorOptions = {}) {
    super(message);
    const { retryAfterSeconds, reason } = typeof options === "number" ? { retryAfterSeconds: options } : options;
    this.name = new.target.name;
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds === undefined ? undefined : Math.max(1, Math.ceil(retryAfterSeconds));
    this.reason = reason;
  }
}

export class ValidationError extends AppError {
  readonly code = "VALIDATION_FAILED";
}

/**
 * Bad input named after its field, as the data API and /ws name it: `INVALID_<FIELD>` (`expires_in_days` ->
 * INVALID_EXPIRES_IN_DAYS), the message starting with the field, `details.field` naming it. A nested field is coded
 * by its top-level one (`permit.value` -> INVALID_PERMIT), as the request schemas code it, and named whole.
 */
export function invalidField(field: string, message: string): ValidationError {
  const reason = `INVALID_${field
    .split(".")[0]!
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toUpperCase()}`;
  return new ValidationError(`${field}: ${message}`, { field }, { reason });
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
  constructor(message: string, retryAfterSeconds: number, details: Record<string, JsonValue> = {}) {
    super(message, details, retryAfterSeconds);
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

/**
 * The rate limiter's store (Redis) did not answer: refused with 503 rather than served without limits. The data
 * API names it UNAVAILABLE (its store being away is SERVICE_UNAVAILABLE).
 */
export class RateLimiterUnavailableError extends UnavailableError {
  constructor() {
    super(
      "rate limiter unavailable: try again shortly",
      {},
      {
        retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
        reason: "UNAVAILABLE",
      },
    );
  }
}

/** Raised by store adapters when a unique value is taken; use cases turn it into a ConflictError. */
export class DuplicateKeyError extends Error {
  constructor(readonly field: string) {
    super(`duplicate value for ${field}`);
    this.name = "DuplicateKeyError";
  }
}
