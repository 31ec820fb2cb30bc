import { errorFor, NapNetworkError } from "./errors";

/**
 * The HTTP transport both clients share (the live API's and the data API's): one request with retries.
 *
 * - A 429 or 503 with Retry-After is retried after that many seconds (at most `maxRetries` times, and only when the
 *   wait is at most `maxRetryWaitSeconds`; a faucet cooldown of a day is thrown at once, with retryAfterSeconds).
 * - A request that never reached an answer (connection refused or reset) is retried only when it is safe: reads,
 *   and writes that carry an Idempotency-Key.
 * - Every other non-2xx answer rejects with a NapApiError carrying the API's message, code and status.
 */

export interface TransportOptions {
  /** Base URL of the API, e.g. http://127.0.0.1:3000 (no trailing path). */
  baseUrl: string;
  /** Retries of 429/503 with Retry-After and of requests that never got an answer (default 3). */
  maxRetries?: number;
  /** Longest Retry-After honoured by waiting, in seconds (default 30); longer ones are thrown. */
  maxRetryWaitSeconds?: number;
  /** Wait before retrying a request that got no answer, in milliseconds (default 500, doubled each time). */
  networkRetryDelayMs?: number;
  /** fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Called before each retry: attempt number (1-based), the wait in ms and why. */
  onRetry?: (info: { attempt: number; waitMs: number; reason: string }) => void;
}

export interface HttpRequest {
  method: string;
  path: string;
  /** Query parameters; undefined ones are left out. */
  query?: object;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as Idempotency-Key, and makes the request safe to resend after no answer. */
  idempotencyKey?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class HttpTransport {
  readonly baseUrl: string;
  readonly #maxRetries: number;
  readonly #maxRetryWaitSeconds: number;
  readonly #networkRetryDelayMs: number;
  readonly #fetch: typeof fetch;
  readonly #onRetry: TransportOptions["onRetry"];

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#maxRetries = options.maxRetries ?? 3;
    this.#maxRetryWaitSeconds = options.maxRetryWaitSeconds ?? 30;
    this.#networkRetryDelayMs = options.networkRetryDelayMs ?? 500;
    this.#fetch = options.fetch ?? fetch;
    this.#onRetry = options.onRetry;
  }

  /** The parsed 2xx body (JSON when it is JSON, else the text). */
  async request<T>(request: HttpRequest): Promise<T> {
    const { method, path } = request;
    const pairs = Object.entries(request.query ?? {})
      .filter(([, value]) => value !== undefined && value !== null)
      .map(([name, value]): [string, string] => [name, String(value)]);
    const url = `${this.baseUrl}${path}${pairs.length > 0 ? `?${new URLSearchParams(pairs)}` : ""}`;
    const label = `${method} ${path}`;
    const headers: Record<string, string> = { accept: "application/json", ...request.headers };
    if (request.idempotencyKey) headers["Idempotency-Key"] = request.idempotencyKey;
    if (request.body !== undefined) headers["content-type"] = "application/json";
    const safeToResend = method === "GET" || request.idempotencyKey !== undefined;
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.#fetch(url, {
          method,
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
        });
      } catch (cause) {
        if (safeToResend && attempt < this.#maxRetries) {
          const waitMs = this.#networkRetryDelayMs * 2 ** attempt;
          this.#onRetry?.({ attempt: attempt + 1, waitMs, reason: `no answer: ${(cause as Error).message}` });
          await sleep(waitMs);
          continue;
        }
        throw new NapNetworkError(
          `${label}: no answer from ${this.baseUrl}: ${(cause as Error).message}`,
          label,
          cause,
        );
      }
      const text = await response.text();
      let body: unknown = text;
      try {
        body = text === "" ? null : JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      if (response.ok) return body as T;
      const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
      const error = errorFor(response.status, body, retryAfter, label);
      const retryable = response.status === 429 || response.status === 503;
      if (
        retryable &&
        retryAfter !== undefined &&
        retryAfter <= this.#maxRetryWaitSeconds &&
        attempt < this.#maxRetries
      ) {
        this.#onRetry?.({ attempt: attempt + 1, waitMs: retryAfter * 1000, reason: error.message });
        await sleep(retryAfter * 1000);
        continue;
      }
      throw error;
    }
  }
}

/** Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110). */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
