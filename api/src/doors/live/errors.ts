import type { Context } from "koa";
import { AppError, type ErrorCode } from "../../errors";
import type { Logger } from "../../logger";

/**
 * The live API's one mapping from the service's error codes (api/src/errors.ts) to HTTP: a status, `Retry-After`
 * when the error says when to come back, and the spec's body `{ "error": "<message>" }`. Errors that are not the
 * service's own are bugs: 500 `internal server error`, logged with the stack, never sent.
 */

export const STATUS_OF: Readonly<Record<ErrorCode, number>> = {
  VALIDATION_FAILED: 400,
  INSUFFICIENT_GAS: 400,
  TX_REVERTED: 400,
  PREVIOUS_STEP_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  TX_REJECTED: 502,
  CHAIN_UNAVAILABLE: 503,
  TX_PENDING: 503,
  WALLET_BUSY: 503,
  NOT_CONFIGURED: 503,
  UNAVAILABLE: 503,
};

/** Errors thrown by Koa and its libraries (http-errors) with a client status. */
interface HttpError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
}

/** Answers `raw`, thrown by a route or by the middleware in front of it, as the live API's error response. */
export function respondWithError(ctx: Context, raw: unknown, logger: Logger): void {
  if (raw instanceof AppError) {
    ctx.status = STATUS_OF[raw.code];
    if (raw.retryAfterSeconds !== undefined) ctx.set("Retry-After", String(raw.retryAfterSeconds));
    ctx.body = { error: raw.message };
    return;
  }
  const status = (raw as HttpError).status ?? (raw as HttpError).statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    ctx.status = status;
    ctx.body = {
      error: (raw as HttpError).expose && (raw as HttpError).message ? (raw as HttpError).message : "bad request",
    };
    return;
  }
  logger.error({ err: raw, requestId: ctx.state.requestId }, "unhandled error");
  ctx.status = 500;
  ctx.body = { error: "internal server error" };
}
