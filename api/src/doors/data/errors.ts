import type { Context, Middleware } from "koa";
import type { z } from "zod";
import {
  AppError,
  AuthenticationError,
  NotFoundError,
  PermissionError,
  ValidationError,
  type ErrorCode,
  type JsonValue,
} from "../../errors";
import type { Logger } from "../../logger";
import { DATA_ERROR_STATUS } from "../../../../packages/wire/src/codes";

/**
 * The data API's error renderer: `{ "error": { "code", "message", "details" } }` (data-api.md, Errors). Its routes and
 * access layer throw the service's errors (api/src/errors.ts), with the data API's finer code as their `reason` where
 * the spec names one (INVALID_ADDRESS, VAULT_NOT_FOUND, INSUFFICIENT_SCOPE...); an error without one is named by its
 * kind. Anything that is not the service's own is INTERNAL_ERROR without internals.
 */

/** Every code the data API answers, with its status (the wire contract's; the OpenAPI document lists them). */
export const DATA_ERRORS = DATA_ERROR_STATUS;

/** A code of the catalogue, or `INVALID_<FIELD>` for a bad field of the access routes (400). */
export type DataErrorCode = keyof typeof DATA_ERRORS | `INVALID_${string}`;

/** The code an error without a reason is answered with, by its kind. */
const CODE_OF_KIND: Record<ErrorCode, keyof typeof DATA_ERRORS> = {
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

/** The status of a data API code (`INVALID_<FIELD>`: 400). */
export function dataStatusOf(code: string): number {
  return (DATA_ERRORS as Record<string, number>)[code] ?? (code.startsWith("INVALID_") ? 400 : 500);
}

/** The WWW-Authenticate challenge of a refused credential (RFC 6750). */
const REALM = 'Bearer realm="nap-data"';

/** The data API's answer to `raw`: status, code, message, details and the headers that go with them. */
export interface DataErrorAnswer {
  status: number;
  code: string;
  message: string;
  details: Record<string, JsonValue>;
  headers: Record<string, string>;
}

export function dataErrorAnswer(raw: unknown): DataErrorAnswer {
  if (!(raw instanceof AppError)) return internal();
  const code = raw.reason ?? CODE_OF_KIND[raw.code];
  if (code === "INTERNAL_ERROR") return internal();
  const headers: Record<string, string> = {};
  if (raw.retryAfterSeconds !== undefined) headers["Retry-After"] = String(raw.retryAfterSeconds);
  if (code === "INSUFFICIENT_SCOPE") {
    headers["WWW-Authenticate"] = `${REALM}, error="insufficient_scope", scope="${String(raw.details.required_scope)}"`;
  } else if (raw.code === "UNAUTHENTICATED") {
    headers["WWW-Authenticate"] = REALM;
  }
  return { status: dataStatusOf(code), code, message: raw.message, details: raw.details, headers };
}

function internal(): DataErrorAnswer {
  return { status: 500, code: "INTERNAL_ERROR", message: "internal error", details: {}, headers: {} };
}

/** Writes the data API's answer to `raw` (its status, headers and body). */
export function writeDataError(ctx: Context, raw: unknown): DataErrorAnswer {
  const answer = dataErrorAnswer(raw);
  ctx.status = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
  ctx.body = { error: { code: answer.code, message: answer.message, details: answer.details } };
  return answer;
}

/** Answers every error of the data API's routes in its shape; unexpected ones are logged. */
export function dataErrorHandler(logger: Logger): Middleware {
  return (ctx, next) =>
    next().then(undefined, (thrown: unknown) => {
      const answer = writeDataError(ctx, thrown);
      // A read that asked for a block not yet indexed is a client's retry, not a fault; a dependency that is away
      // (the store, the chain, the limiter's Redis) is a state of the service, not a bug: one warning line per
      // answer, no stack.
      if (answer.code === "SERVICE_UNAVAILABLE" || answer.code === "UNAVAILABLE") {
        logger.warn({ reason: answer.message, path: ctx.path }, "data API: service unavailable");
      } else if (answer.status >= 500 && answer.code !== "NOT_YET_INDEXED") {
        logger.error({ err: thrown, path: ctx.path, requestId: ctx.state.requestId }, "data API error");
      }
    });
}

/** Bad input under one of the data API's codes; `details.field` names the input. */
export function invalid(
  code: DataErrorCode,
  message: string,
  details: Record<string, JsonValue> = {},
): ValidationError {
  return new ValidationError(message, details, { reason: code });
}

/** Nothing under that name, under one of the data API's codes. */
export function notFound(code: DataErrorCode, message: string, details: Record<string, JsonValue> = {}): NotFoundError {
  return new NotFoundError(message, details, { reason: code });
}

/** A credential problem (401 with WWW-Authenticate). */
export function unauthorized(message: string, details: Record<string, JsonValue> = {}): AuthenticationError {
  return new AuthenticationError(message, details, { reason: "UNAUTHORIZED" });
}

/** A key used outside its scopes (RFC 6750's insufficient_scope); `details.required_scope` names the scope. */
export function insufficientScope(message: string, details: Record<string, JsonValue>): PermissionError {
  return new PermissionError(message, details, { reason: "INSUFFICIENT_SCOPE" });
}

/** `INVALID_<FIELD>` from a field name: `expires_in_days` -> INVALID_EXPIRES_IN_DAYS. */
export function invalidField(field: string, message: string): ValidationError {
  const code = `INVALID_${field.replace(/[^A-Za-z0-9]+/g, "_").toUpperCase()}` as const;
  return invalid(code, `${field}: ${message}`, { field });
}

/** The first zod issue as INVALID_<FIELD> (the top-level field it is about; the whole body when it has no path). */
export function fromZodError(error: z.ZodError, whole: string): ValidationError {
  const issue = error.issues[0];
  const field = issue.path.length > 0 ? String(issue.path[0]) : whole;
  const where = issue.path.length > 1 ? `${issue.path.slice(1).join(".")}: ` : "";
  return invalidField(field, where + issue.message);
}

/** Whether a thrown value is a refusal of the caller's credential (not the key store being away). */
export function isCredentialRefusal(error: unknown): error is AppError {
  return error instanceof AuthenticationError || error instanceof PermissionError;
}
