import type { Context, Middleware } from "koa";
import { AppError, type JsonValue } from "../../errors";
import type { Logger } from "../../logger";

/**
 * The data API's errors: `{ "error": { "code", "message", "details" } }` (data-api.md, Errors), one catalogue of
 * codes with their HTTP status. The door throws DataApiError for its own checks; the service's AppErrors (from
 * shared code) are mapped by their code; anything else is INTERNAL_ERROR without internals.
 */

export const DATA_ERRORS = {
  /** The spec's four. */
  VAULT_NOT_FOUND: 404,
  INVALID_ADDRESS: 400,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  /** Bad input, one code per kind (the message names the field). */
  INVALID_PERIOD: 400,
  INVALID_INTERVAL: 400,
  TOO_MANY_POINTS: 400,
  INVALID_LIMIT: 400,
  INVALID_OFFSET: 400,
  INVALID_TRANSACTION_TYPE: 400,
  INVALID_MIN_BLOCK: 400,
  INVALID_STRATEGY_ID: 400,
  INVALID_BODY: 400,
  UNKNOWN_PARAMETER: 400,
  /** A body above the body limit (`details.max`), refused before the rest of it is kept. */
  PAYLOAD_TOO_LARGE: 413,
  STRATEGY_NOT_FOUND: 404,
  /** Unknown /v1 path, or a known one with another method. */
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** Keys (the access layer): missing, invalid, expired, revoked or out of scope. */
  UNAUTHORIZED: 401,
  /** The chain, the store or a setting the answer needs is unavailable. */
  SERVICE_UNAVAILABLE: 503,
  /** The block a read asked for (minBlock) is not indexed yet: retry after Retry-After. */
  NOT_YET_INDEXED: 503,
} as const;

export type DataErrorCode = keyof typeof DATA_ERRORS;

export class DataApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: DataErrorCode,
    message: string,
    readonly details: Record<string, JsonValue> = {},
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "DataApiError";
    this.status = DATA_ERRORS[code];
  }
}

const FROM_APP_ERROR: Record<AppError["code"], DataErrorCode> = {
  VALIDATION_FAILED: "INVALID_BODY",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNAUTHENTICATED: "UNAUTHORIZED",
  FORBIDDEN: "UNAUTHORIZED",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  CONFLICT: "INVALID_BODY",
  RATE_LIMITED: "RATE_LIMITED",
  INSUFFICIENT_GAS: "INTERNAL_ERROR",
  TX_REVERTED: "INTERNAL_ERROR",
  PREVIOUS_STEP_FAILED: "INTERNAL_ERROR",
  TX_REJECTED: "INTERNAL_ERROR",
  TX_PENDING: "INTERNAL_ERROR",
  WALLET_BUSY: "SERVICE_UNAVAILABLE",
  CHAIN_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  NOT_CONFIGURED: "SERVICE_UNAVAILABLE",
  UNAVAILABLE: "SERVICE_UNAVAILABLE",
  INTERNAL: "INTERNAL_ERROR",
};

/** The data API's form of any thrown value. */
export function toDataApiError(error: unknown): DataApiError {
  if (error instanceof DataApiError) return error;
  if (error instanceof AppError) {
    const code = FROM_APP_ERROR[error.code];
    if (code === "INTERNAL_ERROR") return new DataApiError(code, "internal error");
    return new DataApiError(code, error.message, error.details, error.retryAfterSeconds);
  }
  return new DataApiError("INTERNAL_ERROR", "internal error");
}

export function writeDataError(ctx: Context, error: DataApiError): void {
  ctx.status = error.status;
  if (error.retryAfterSeconds !== undefined) ctx.set("Retry-After", String(error.retryAfterSeconds));
  ctx.body = { error: { code: error.code, message: error.message, details: error.details } };
}

/** Answers every error of the data API's routes in its shape; unexpected ones are logged. */
export function dataErrorHandler(logger: Logger): Middleware {
  return (ctx, next) =>
    next().then(undefined, (thrown: unknown) => {
      const error = toDataApiError(thrown);
      // A read that asked for a block not yet indexed is a client's retry, not a fault; a dependency that is away
      // (the store, the chain) is a state of the service, not a bug: one warning line per answer, no stack.
      if (error.code === "SERVICE_UNAVAILABLE") {
        logger.warn({ reason: error.message, path: ctx.path }, "data API: service unavailable");
      } else if (error.status >= 500 && error.code !== "NOT_YET_INDEXED") {
        logger.error({ err: thrown, path: ctx.path }, "data API error");
      }
      writeDataError(ctx, error);
    });
}
