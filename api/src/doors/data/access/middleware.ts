import type { Context, Middleware, Next } from "koa";
import { AppError, RateLimiterUnavailableError, RateLimitError } from "../../../errors";
import type { DataKeyService } from "../../../usecases/dataKeys/issuance";
import type { DataKeyRecord } from "../../../usecases/dataKeys/keys";
import type { Scope } from "../../../usecases/dataKeys/scopes";
import { insufficientScope as scopeRefusal, isCredentialRefusal, unauthorized, writeDataError } from "../errors";
import { refusalMessage, type DataTier, type LimitDecision, type TierLimiter } from "./limits";
import type { RouteScopes } from "./routeScopes";

/**
 * The access middleware, in front of every /v1 route: who is calling (a data key, or an IP on the Public tier),
 * whether the key may call this route, and whether the caller's tier has room. It answers 401 and 429 itself, sets
 * X-RateLimit-* on every /v1 response (errors of the routes behind it included), and leaves the caller in
 * `ctx.state.dataCaller` for the routes.
 *
 * The scope a key needs is the one the answering route declares (routeScopes.ts), never read from the path as written.
 *
 * Order: the credential is read and the key looked up; then the request is counted on the caller's tier (a request
 * with a bad key is counted on its IP's Public budget, so that guessing keys is as slow as that budget); a full
 * budget answers 429; then a bad credential answers 401. A self-issued Authenticated key is also counted on its IP's
 * keyed budget (limits.ts), so that keys farmed from one IP share one key's budget.
 */

export interface DataCaller {
  tier: DataTier;
  /** What the limits count by: `ip:<address>` or `key:<key id>`. */
  subject: string;
  key?: DataKeyRecord;
  /** Absent when rate limits are disabled. */
  limit?: LimitDecision;
}

export function dataCallerOf(ctx: Context): DataCaller {
  const caller = ctx.state.dataCaller as DataCaller | undefined;
  if (!caller) throw new Error("dataCallerOf: the access middleware did not run for this request");
  return caller;
}

/** Paths where `X-API-Key` carries a live API key (agent or operator) that proves who asks for data keys. */
export function acceptsLiveKey(path: string): boolean {
  return path === "/v1/auth/keys" || path.startsWith("/v1/auth/keys/");
}

/** The paths the access layer guards: the REST door under /v1, and the GraphQL door's path outside it. */
export function isDataApiPath(path: string): boolean {
  return path === "/v1" || path.startsWith("/v1/") || path.replace(/\/$/, "") === "/graphql";
}

const BEARER = /^Bearer +(\S+)$/i;

/** The Bearer token, undefined without credentials, or the 401 a malformed credential gets. */
export function readBearer(ctx: Context): string | undefined | AppError {
  // Read from Node's header object directly: every /v1 request passes here, most without credentials.
  const headers = ctx.req.headers;
  const authorization = headers.authorization?.trim() ?? "";
  if (authorization === "") {
    if ((headers["x-api-key"] ?? "") !== "" && !acceptsLiveKey(ctx.path)) {
      return unauthorized(
        "the data API does not read X-API-KEY: send the key as `Authorization: Bearer <key>` " +
          "(X-API-Key is only for live API agent and operator keys on /v1/auth/keys)",
      );
    }
    return undefined;
  }
  const bearer = BEARER.exec(authorization);
  if (bearer) return bearer[1];
  if (!/\s/.test(authorization)) {
    return unauthorized("a bare Authorization value is not accepted: send `Authorization: Bearer <key>`");
  }
  return unauthorized("unsupported Authorization scheme: send `Authorization: Bearer <key>`");
}

/** The 401 of a key used outside its scopes (RFC 6750's insufficient_scope). */
export function insufficientScope(key: DataKeyRecord, scope: Scope, what: string): AppError {
  return scopeRefusal(`this key lacks the scope ${scope} that ${what} needs; its scopes: ${key.scopes.join(", ")}`, {
    required_scope: scope,
    key_scopes: key.scopes,
    key_id: key.keyId,
  });
}

export function setLimitHeaders(ctx: Context, decision: LimitDecision): void {
  ctx.set("X-RateLimit-Limit", String(decision.binding.limit));
  ctx.set("X-RateLimit-Remaining", String(decision.binding.remaining));
  ctx.set("X-RateLimit-Reset", String(decision.binding.reset));
}

export function accessMiddleware(options: {
  keys: DataKeyService;
  /** Absent: rate limits disabled (RATE_LIMITS_DISABLED), no X-RateLimit-* headers. */
  limiter?: TierLimiter;
  /** The scopes the answering routes declare. */
  scopes: RouteScopes;
}): Middleware {
  const { keys, limiter, scopes } = options;
  const guard = async (ctx: Context, next: Next, token: string | undefined | AppError) => {
    const caller: DataCaller = { tier: "public", subject: `ip:${ctx.ip}` };
    let refusal: AppError | undefined;
    try {
      if (token instanceof AppError) refusal = token;
      else if (token !== undefined) {
        const key = await keys.authenticate(token).catch((error: unknown) => {
          if (isCredentialRefusal(error)) return error;
          throw error;
        });
        if (key instanceof AppError) refusal = key;
        else {
          Object.assign(caller, { tier: key.tier, subject: `key:${key.keyId}`, key });
          const scope = scopes.of(ctx.method, ctx.path);
          if (scope && !key.scopes.includes(scope))
            refusal = insufficientScope(key, scope, `${ctx.method} ${ctx.path}`);
        }
      }
      if (limiter) {
        caller.limit = await limiter.consume(caller.tier, caller.subject, { ip: ctx.ip, key: caller.key });
        setLimitHeaders(ctx, caller.limit);
        if (!caller.limit.allowed) {
          const { binding, retryAfterSeconds } = caller.limit;
          const details = { tier: caller.tier, window: binding.window, limit: binding.limit, reset: binding.reset };
          refusal = new RateLimitError(
            refusalMessage(caller.limit),
            retryAfterSeconds,
            caller.limit.boundBy === "keys_of_ip" ? { ...details, counted_by: "keys_of_ip" } : details,
          );
        }
      }
    } catch (error) {
      // The limiter's store away: 503 UNAVAILABLE here, on every guarded path (the key store's failures go on).
      if (error instanceof RateLimiterUnavailableError) return void writeDataError(ctx, error);
      throw error;
    }
    if (refusal) return void writeDataError(ctx, refusal);

    ctx.state.dataCaller = caller;
    try {
      await next();
    } catch (error) {
      // An error that reaches Koa's own handler loses the headers set so far unless it carries them.
      if (caller.limit && error !== null && typeof error === "object") {
        const carried = (error as { headers?: Record<string, string> }).headers;
        (error as { headers?: Record<string, string> }).headers = {
          ...carried,
          "X-RateLimit-Limit": String(caller.limit.binding.limit),
          "X-RateLimit-Remaining": String(caller.limit.binding.remaining),
          "X-RateLimit-Reset": String(caller.limit.binding.reset),
        };
      }
      throw error;
    }
  };
  return (ctx: Context, next: Next) => {
    if (!isDataApiPath(ctx.path)) return next();
    const token = readBearer(ctx);
    // An anonymous request with limits disabled has nothing to look up, count or refuse: it goes on at once.
    if (token === undefined && !limiter) {
      ctx.state.dataCaller = { tier: "public", subject: `ip:${ctx.ip}` } satisfies DataCaller;
      return next();
    }
    return guard(ctx, next, token);
  };
}
