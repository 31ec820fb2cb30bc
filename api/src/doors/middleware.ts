import { randomUUID } from "node:crypto";
import type { Context, Middleware, Next } from "koa";
import type { Logger } from "../logger";

/**
 * What every HTTP door shares, in one middleware layer (each layer is a promise and a few microtask turns on the
 * hottest reads): the count of running handlers, the request id and security headers, and the access log.
 */

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Headers on every response, errors included: the request id (the caller's X-Request-Id when well-formed, otherwise
 * a new UUID; also in `ctx.state.requestId` for the logs), no MIME sniffing, no referrer, no framing, and a content
 * security policy that lets a JSON answer load nothing (the docs page sets its own, doors/live/routes/docs.ts).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
};

const SECURITY_HEADER_LIST = Object.entries(SECURITY_HEADERS);

/** Handlers running now, so that shutdown can wait for them even when their clients have gone. */
export class RunningRequests {
  #count = 0;
  #idle: (() => void) | undefined;

  start(): void {
    this.#count += 1;
  }

  end(): void {
    this.#count -= 1;
    if (this.#count === 0) this.#idle?.();
  }

  /** Resolves when no handler is running, or after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#idle = resolve;
      setTimeout(resolve, timeoutMs).unref();
    });
  }
}

/**
 * The first middleware of every request, which runs the doors (`handle`) itself: counts the request as running, sets
 * the request id and the security headers, and writes one access log line when info is enabled (method, path,
 * status, duration, request id; no bodies, no headers). Calling `handle` directly rather than through Koa's `next`
 * spares the hot reads a middleware layer: a door that answers without a promise (a cached read) ends here without
 * one, and the request then takes no promise turns beyond Koa's own.
 */
export function requestScope(logger: Logger, running: RunningRequests, handle: Middleware): Middleware {
  const logAccess = logger.isLevelEnabled("info");
  // Without the access log, the end of a request needs nothing of it: two functions made once, not per request.
  const ended = () => running.end();
  const failed = (error: unknown) => {
    running.end();
    throw error;
  };
  return (ctx: Context, next) => {
    running.start();
    const given = ctx.req.headers["x-request-id"];
    const id = typeof given === "string" && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    const res = ctx.res;
    res.setHeader("X-Request-Id", id);
    for (const [name, value] of SECURITY_HEADER_LIST) res.setHeader(name, value);
    if (logAccess) return logged(ctx, next, handle, running, logger, id);
    let answered: Promise<unknown> | unknown;
    try {
      answered = handle(ctx, next);
    } catch (error) {
      running.end();
      throw error;
    }
    if (answered instanceof Promise) return answered.then(ended, failed);
    running.end();
  };
}

/** `handle` with the access log line written when it has answered (or failed), and the request counted until then. */
async function logged(
  ctx: Context,
  next: Next,
  handle: Middleware,
  running: RunningRequests,
  logger: Logger,
  requestId: string,
): Promise<void> {
  const started = process.hrtime.bigint();
  try {
    await handle(ctx, next);
  } finally {
    running.end();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    logger.info(
      { requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 },
      "request",
    );
  }
}
