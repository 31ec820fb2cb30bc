import { errorFor, NapNetworkError, NapRedirectError, NapResponseTooLargeError, NapTimeoutError } from "./errors";

/**
 * The HTTP transport both clients share (the live API's and the data API's): one request with retries.
 *
 * - A 429 or 503 with Retry-After is retried after that many seconds (at most `maxRetries` times, and only when the
 *   wait is at most `maxRetryWaitSeconds`; a faucet cooldown of a day is thrown at once, with retryAfterSeconds).
 * - A request that never reached an answer (connection refused or reset) is retried only when it is safe: reads,
 *   and writes that carry an Idempotency-Key.
 * - Every other non-2xx answer rejects with a NapApiError carrying the API's message, code and status.
 *
 * Against a hostile or broken server: a request (its redirects and its whole body included) that takes longer than
 * `timeoutMs` is aborted (NapTimeoutError); an answer longer than `maxResponseBytes` is read as a stream and
 * abandoned at the cap, never buffered whole (NapResponseTooLargeError); redirects are followed by hand and only
 * within the API's origin, so a key is never sent to another one (NapRedirectError). None of these is resent.
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
  /** Longest wait for a whole answer (connection, redirects, headers and body), in milliseconds (default 30,000). */
  timeoutMs?: number;
  /** Longest answer read, in bytes (default 10 MiB); a longer one is abandoned at that size. */
  maxResponseBytes?: number;
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

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

interface Sent {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export class HttpTransport {
  readonly baseUrl: string;
  readonly #maxRetries: number;
  readonly #maxRetryWaitSeconds: number;
  readonly #networkRetryDelayMs: number;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  readonly #fetch: typeof fetch;
  readonly #onRetry: TransportOptions["onRetry"];

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#maxRetries = options.maxRetries ?? 3;
    this.#maxRetryWaitSeconds = options.maxRetryWaitSeconds ?? 30;
    this.#networkRetryDelayMs = options.networkRetryDelayMs ?? 500;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
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
      let text: string;
      try {
        ({ response, text } = await this.#exchange(url, label, {
          method,
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
        }));
      } catch (cause) {
        if (cause instanceof NapNetworkError) throw cause;
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

  /**
   * One attempt: the request, the redirects it is given within the API's origin, and the answer's body read up to
   * the size cap, all under one timeout.
   */
  async #exchange(url: string, label: string, sent: Sent): Promise<{ response: Response; text: string }> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#timeoutMs);
    try {
      let target = url;
      let current = sent;
      for (let redirects = 0; ; redirects++) {
        const response = await this.#fetch(target, { ...current, redirect: "manual", signal: controller.signal });
        const location = response.headers.get("location");
        if (!REDIRECT_STATUSES.has(response.status) || location === null) {
          return { response, text: await readCapped(response, this.#maxResponseBytes, label) };
        }
        void response.body?.cancel().catch(() => undefined);
        const next = new URL(location, target);
        const origin = new URL(this.baseUrl).origin;
        if (next.origin !== origin) {
          throw new NapRedirectError(
            `${label}: the server redirected to another origin (${next.origin}); nothing was sent there`,
            label,
            next.href,
          );
        }
        if (redirects === MAX_REDIRECTS) {
          throw new NapRedirectError(`${label}: more than ${MAX_REDIRECTS} redirects`, label, next.href);
        }
        target = next.href;
        current = afterRedirect(response.status, current);
      }
    } catch (error) {
      // Whatever went wrong, the connection is not left open to a server that may still be sending.
      controller.abort();
      if (timedOut) {
        throw new NapTimeoutError(
          `${label}: no complete answer within ${this.#timeoutMs} ms (timeoutMs)`,
          label,
          error,
          this.#timeoutMs,
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The request a redirect asks for (RFC 9110, as fetch does it): 303, and 301/302 of a POST, become a bodiless GET. */
function afterRedirect(status: number, sent: Sent): Sent {
  const toGet =
    (status === 303 && sent.method !== "HEAD") || ((status === 301 || status === 302) && sent.method === "POST");
  if (!toGet) return sent;
  const { "content-type": _type, ...headers } = sent.headers;
  void _type;
  return { method: "GET", headers, body: undefined };
}

/** The body as text, read chunk by chunk and abandoned past `maxBytes` (a declared Content-Length is checked first). */
async function readCapped(response: Response, maxBytes: number, label: string): Promise<string> {
  const tooLarge = () =>
    new NapResponseTooLargeError(
      `${label}: the answer is larger than ${maxBytes} bytes (maxResponseBytes); reading stopped there`,
      label,
      maxBytes,
    );
  if (Number(response.headers.get("content-length")) > maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      void reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  // TextDecoder drops a leading BOM and replaces invalid UTF-8, as response.text() does.
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110). */
function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
