import { randomUUID } from "node:crypto";
import type { Context, Middleware, Next } from "koa";
import type { Logger } from "../logger";

/** Middleware every HTTP door shares: request ids and security headers, access log. */

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

export function responseHeaders(): Middleware {
  return (ctx: Context, next: Next) => {
    const given = ctx.get("X-Request-Id");
    const id = REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    const res = ctx.res;
    res.setHeader("X-Request-Id", id);
    for (const [name, value] of SECURITY_HEADER_LIST) res.setHeader(name, value);
    return next();
  };
}

/** One log line per request (method, path, status, duration, request id); no bodies, no headers. */
export function accessLog(logger: Logger): Middleware {
  if (!logger.isLevelEnabled("info")) return (_ctx, next) => next();
  return async (ctx: Context, next: Next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(ms * 10) / 10,
        },
        "request",
      );
    }
  };
}
