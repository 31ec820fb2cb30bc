/**
 * Errors of the SDK. Every answer of the API that is not a 2xx becomes a NapApiError (or one of its subclasses, by
 * status) carrying the API's own message (`{ "error": "..." }` names the field and the rule), the status, the parsed
 * body and, for 429 and 503, the seconds the API asked to wait.
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
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: the message names the field and the rule (also a transaction the contract would reject, or no gas). */
export class NapValidationError extends NapApiError {}
/** 401 or 403: missing or unknown API key, or a tier too low for the operation. */
export class NapAuthError extends NapApiError {}
/** 404. */
export class NapNotFoundError extends NapApiError {}
/** 409: the resource exists, the Idempotency-Key was used for another request, or the state does not allow it yet. */
export class NapConflictError extends NapApiError {}
/** 429: a rate limit or a cooldown; retryAfterSeconds says when to come back. */
export class NapRateLimitError extends NapApiError {}
/** 502, 503: the chain, a wallet or a dependency is unavailable; retryAfterSeconds when it will pass by itself. */
export class NapUnavailableError extends NapApiError {}
/** The API could not be reached at all (connection refused, DNS, reset). */
export class NapNetworkError extends Error {
  constructor(
    message: string,
    readonly request: string,
    override readonly cause: unknown,
  ) {
    super(message);
    this.name = "NapNetworkError";
  }
}

export function errorFor(
  status: number,
  body: unknown,
  retryAfterSeconds: number | undefined,
  request: string,
): NapApiError {
  const apiMessage =
    body !== null && typeof body === "object" && typeof (body as { error?: unknown }).error === "string"
      ? (body as { error: string }).error
      : `HTTP ${status}`;
  const args = [apiMessage, status, body, retryAfterSeconds, request] as const;
  if (status === 400) return new NapValidationError(...args);
  if (status === 401 || status === 403) return new NapAuthError(...args);
  if (status === 404) return new NapNotFoundError(...args);
  if (status === 409) return new NapConflictError(...args);
  if (status === 429) return new NapRateLimitError(...args);
  if (status === 502 || status === 503) return new NapUnavailableError(...args);
  return new NapApiError(...args);
}
