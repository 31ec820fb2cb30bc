/**
 * The one error hierarchy of the service. Domain code and HTTP code throw these; a single middleware
 * (http/middleware/errors.ts) maps each class to its HTTP status and a `{ "error": message }` body.
 * Anything else that escapes a handler is a bug and becomes a 500 without internals.
 */
export abstract class AppError extends Error {
  /** HTTP status the error middleware answers with. */
  abstract readonly status: number;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string> = {};

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: the request is malformed or breaks a rule; the message names the field and the rule. */
export class ValidationError extends AppError {
  readonly status = 400;
}

/** 401: missing or unknown API key. */
export class AuthenticationError extends AppError {
  readonly status = 401;
}

/** 403: authenticated, but the tier (or kind of key) lacks permission. */
export class PermissionError extends AppError {
  readonly status = 403;
}

/** 404: unknown route or resource. */
export class NotFoundError extends AppError {
  readonly status = 404;
}

/** 405: known path, method not allowed. */
export class MethodNotAllowedError extends AppError {
  readonly status = 405;
}

/** 409: the resource already exists (e.g. a second agent for one wallet). */
export class ConflictError extends AppError {
  readonly status = 409;
}

/** 429: a rate limit or a cooldown; carries Retry-After. */
export class RateLimitError extends AppError {
  readonly status = 429;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.headers["Retry-After"] = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

/** 503: a dependency (store, chain, configuration such as AGENT_API_KEYS) is unavailable. */
export class UnavailableError extends AppError {
  readonly status = 503;
}

/** Raised by stores when a unique index rejects a write; domain code turns it into a ConflictError. */
export class DuplicateKeyError extends Error {
  constructor(readonly field: string) {
    super(`duplicate value for ${field}`);
    this.name = "DuplicateKeyError";
  }
}
