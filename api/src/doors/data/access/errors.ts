import type { Context } from "koa";
import type { z } from "zod";
import { PayloadTooLargeError, UnavailableError, type JsonValue } from "../../../errors";

/**
 * Errors of the data API's access layer, rendered as the data API's body `{ "error": { code, message, details } }`.
 * Statuses follow the spec: every credential problem is 401 (an insufficient-permission key included, with its own
 * code INSUFFICIENT_SCOPE so that clients can tell it apart), a refused request 429 with Retry-After, bad input 400
 * with a code naming the field (INVALID_<FIELD>), a body past the body limit 413 PAYLOAD_TOO_LARGE (`details.max`).
 */

export const ACCESS_ERROR_STATUS = {
  UNAUTHORIZED: 401,
  INSUFFICIENT_SCOPE: 401,
  RATE_LIMITED: 429,
  KEY_NOT_FOUND: 404,
  KEY_LIMIT_REACHED: 409,
  NODE_ID_TAKEN: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
} as const;

export type AccessErrorCode = keyof typeof ACCESS_ERROR_STATUS | `INVALID_${string}`;

export class DataAccessError extends Error {
  readonly status: number;
  constructor(
    readonly code: AccessErrorCode,
    message: string,
    readonly details: Record<string, JsonValue> = {},
    /** Headers the answer carries (Retry-After, WWW-Authenticate). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "DataAccessError";
    this.status = code.startsWith("INVALID_") ? 400 : ACCESS_ERROR_STATUS[code as keyof typeof ACCESS_ERROR_STATUS];
  }
}

/** 401 for a credential problem; WWW-Authenticate tells the client the scheme (RFC 6750). */
export function unauthorized(message: string, details: Record<string, JsonValue> = {}): DataAccessError {
  return new DataAccessError("UNAUTHORIZED", message, details, {
    "WWW-Authenticate": 'Bearer realm="nap-data"',
  });
}

/** `INVALID_<FIELD>` from a field name: `expires_in_days` -> INVALID_EXPIRES_IN_DAYS. */
export function invalidField(field: string, message: string): DataAccessError {
  const code = `INVALID_${field.replace(/[^A-Za-z0-9]+/g, "_").toUpperCase()}` as AccessErrorCode;
  return new DataAccessError(code, `${field}: ${message}`, { field });
}

/** The first zod issue as INVALID_<FIELD> (the top-level field it is about; the whole body when it has no path). */
export function fromZodError(error: z.ZodError, whole: string): DataAccessError {
  const issue = error.issues[0];
  const field = issue.path.length > 0 ? String(issue.path[0]) : whole;
  const where = issue.path.length > 1 ? `${issue.path.slice(1).join(".")}: ` : "";
  return invalidField(field, where + issue.message);
}

/** The store or the limiter's Redis away (the service's UnavailableError): 503 with Retry-After. */
export function unavailable(error: UnavailableError): DataAccessError {
  const retryAfter = error.retryAfterSeconds;
  return new DataAccessError("UNAVAILABLE", error.message, {}, retryAfter ? { "Retry-After": String(retryAfter) } : {});
}

/** Writes the error body and its headers. */
export function renderError(ctx: Context, error: DataAccessError): void {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  ctx.body = { error: { code: error.code, message: error.message, details: error.details } };
}

/** Answers the access routes' errors in the data API's shape; anything unexpected is a logged 500. */
export function accessErrorHandler(log: (error: unknown, ctx: Context) => void) {
  return async (ctx: Context, next: () => Promise<unknown>): Promise<void> => {
    try {
      await next();
    } catch (error) {
      if (error instanceof DataAccessError) return renderError(ctx, error);
      if (error instanceof UnavailableError) return renderError(ctx, unavailable(error));
      if (error instanceof PayloadTooLargeError) {
        return renderError(ctx, new DataAccessError("PAYLOAD_TOO_LARGE", error.message, error.details));
      }
      log(error, ctx);
      renderError(ctx, new DataAccessError("INTERNAL_ERROR", "internal server error"));
    }
  };
}
