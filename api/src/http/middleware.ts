import { randomUUID } from "node:crypto";
import type { Context, Middleware, Next } from "koa";
import { AppError } from "../errors";
import { ServerWalletsNotConfiguredError } from "../chain/wallets";
import { TxError } from "../tx/errors";
import type { Logger } from "../logger";

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Request id: the caller's X-Request-Id when well-formed, otherwise a new UUID; echoed in the response. */
export function requestId(): Middleware {
  return async (ctx: Context, next: Next) => {
    const given = ctx.get("X-Request-Id");
    ctx.state.requestId = REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
    ctx.set("X-Request-Id", ctx.state.requestId as string);
    await next();
  };
}

interface HttpishError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  headers?: Record<string, string>;
}

/**
 * The one place that turns errors into responses: AppError subclasses by their status, Koa/http-errors with a
 * client status (4xx) by theirs, anything else 500 "internal server error" (logged with the stack, never sent).
 * Every error body is `{ "error": "..." }`.
 */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        // Statuses set without a body by the router (404 unknown route, 405 with Allow, 501).
        if (ctx.status === 404) {
          ctx.status = 404;
          ctx.body = { error: `no route for ${ctx.method} ${ctx.path}` };
        } else if (ctx.status === 405) {
          ctx.body = {
            error: `method ${ctx.method} not allowed on ${ctx.path}; allowed: ${ctx.response.get("Allow")}`,
          };
        } else if (ctx.status >= 400) {
          const status = ctx.status;
          ctx.body = { error: ctx.message || `HTTP ${status}` };
          ctx.status = status;
        }
      }
    } catch (raw) {
      const error = raw as HttpishError & Error;
      let status: number;
      let message: string;
      let headers: Record<string, string> = {};
      // Engine errors (api/src/tx) carry their status, headers and a message written for the agent.
      if (raw instanceof AppError || raw instanceof TxError || raw instanceof ServerWalletsNotConfiguredError) {
        status = raw.status;
        message = raw.message;
        headers = raw.headers;
      } else {
        const candidate = error.status ?? error.statusCode;
        if (typeof candidate === "number" && candidate >= 400 && candidate < 500) {
          status = candidate === 413 ? 400 : candidate;
          message = error.expose && error.message ? error.message : "bad request";
          headers = error.headers ?? {};
        } else {
          status = 500;
          message = "internal server error";
          logger.error({ err: raw, requestId: ctx.state.requestId }, "unhandled error");
        }
      }
      ctx.status = status;
      ctx.set(headers);
      ctx.body = { error: message };
    }
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
