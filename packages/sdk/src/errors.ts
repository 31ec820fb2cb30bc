/**
 * Errors of the SDK. Every answer of the API that is not a 2xx becomes a NapApiError (or one of its subclasses, by
 * status) carrying the API's own message, the status, the parsed body, the error code when the API gives one and,
 * for 429 and 503, the seconds the API asked to wait. The message is read from each of the API's error shapes: the
 * live API's `{ "error": "..." }`, the data API's `{ "error": { "code", "message" } }` and GraphQL's
 * `{ "errors": [{ "message", "extensions": { "code" } }] }`.
 */

export class NapApiError extends Error {
  constructor(
    message: string,
    /** HTTP status. */
    readonly status: number,
    /** The parsed answer (JSON when it was JSON, else the text). */
    readonly body: unknown,
    /** Retry-After in seconds, when the API sent it. */
    readonly retryAfterSeconds: number | undefined,
    /** Method and path of the request, for logs. */
    readonly request: string,
    /** The data API's or GraphQL's error code (e.g. VAULT_NOT_FOUND, RATE_LIMITED); undefined for the live API. */
    readonly code?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: the message names the field and the rule (also a transaction the contract would reject, or no gas). */
export class NapValidationError extends NapApiError {}
/** 401 or 403: missing or unknown API key, a tier too low for the operation, or a data key without the scope. */
export class NapAuthError extends NapApiError {}
/** 404. */
export class NapNotFoundError extends NapApiError {}
/** 409: the resource exists, the Idempotency-Key was used for another request, or the state does not allow it yet. */
export class NapConflictError extends NapApiError {}
/** 429: a rate limit or a cooldown; retryAfterSeconds says when to come back. */
export class NapRateLimitError extends NapApiError {}
/** 502, 503: the chain, a wallet or a dependency is unavailable; retryAfterSeconds when it will pass by itself. */
export class NapUnavailableError extends NapApiError {}
/**
 * No usable answer: the API could not be reached at all (connection refused, DNS, reset), or one of the subclasses
 * below, which the transport does not resend.
 */
export class NapNetworkError extends Error {
  constructor(
    message: string,
    readonly request: string,
    override readonly cause: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** No complete answer (headers and body, redirects included) within the client's `timeoutMs`. */
export class NapTimeoutError extends NapNetworkError {
  constructor(
    message: string,
    request: string,
    cause: unknown,
    readonly timeoutMs: number,
  ) {
    super(message, request, cause);
  }
}

/** The answer was longer than the client's `maxResponseBytes`: reading stopped there and the connection closed. */
export class NapResponseTooLargeError extends NapNetworkError {
  constructor(
    message: string,
    request: string,
    readonly maxResponseBytes: number,
  ) {
    super(message, request, undefined);
  }
}

/**
 * The server redirected to another origin (or more than the client follows): nothing was sent there, so neither
 * the request nor its key (X-API-Key, Authorization) left the API's origin.
 */
export class NapRedirectError extends NapNetworkError {
  constructor(
    message: string,
    request: string,
    /** The Location the server gave, resolved against the request's URL. */
    readonly location: string,
  ) {
    super(message, request, undefined);
  }
}

/** A GraphQL answer whose `errors` say what went wrong in a field (HTTP 200; `data` holds the other fields). */
export class NapGraphQLError extends NapApiError {
  constructor(
    readonly errors: readonly {
      message: string;
      path?: readonly (string | number)[];
      extensions?: { code?: string };
    }[],
    readonly data: unknown,
    request: string,
  ) {
    super(
      errors.map((e) => e.message).join("; "),
      200,
      { errors, data },
      undefined,
      request,
      errors[0]?.extensions?.code,
    );
  }
}

/** The message and code of an error body, whichever of the API's shapes it has. */
function describe(status: number, body: unknown): { message: string; code?: string } {
  const fallback = { message: `HTTP ${status}` };
  if (body === null || typeof body !== "object") return fallback;
  const { error, errors } = body as { error?: unknown; errors?: unknown };
  if (typeof error === "string") return { message: error };
  if (error !== null && typeof error === "object") {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof message === "string") return { message, ...(typeof code === "string" ? { code } : {}) };
  }
  if (Array.isArray(errors) && errors.length > 0) {
    const first = errors[0] as { extensions?: { code?: unknown } };
    const code = first.extensions?.code;
    const message = errors.map((e: { message?: unknown }) => String(e.message)).join("; ");
    return { message, ...(typeof code === "string" ? { code } : {}) };
  }
  return fallback;
}

export function errorFor(
  status: number,
  body: unknown,
  retryAfterSeconds: number | undefined,
  request: string,
): NapApiError {
  const { message, code } = describe(status, body);
  const args = [message, status, body, retryAfterSeconds, request, code] as const;
  if (status === 400) return new NapValidationError(...args);
  if (status === 401 || status === 403) return new NapAuthError(...args);
  if (status === 404) return new NapNotFoundError(...args);
  if (status === 409) return new NapConflictError(...args);
  if (status === 429) return new NapRateLimitError(...args);
  if (status === 502 || status === 503) return new NapUnavailableError(...args);
  return new NapApiError(...args);
}
