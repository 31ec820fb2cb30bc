import type { Context, Middleware, Next } from "koa";
import ratelimit from "koa-ratelimit";
import type Redis from "ioredis";
import { RateLimiterUnavailableError } from "../../errors";
import type { Principal } from "./auth";

/**
 * Rate limits (koa-ratelimit), documented in docs/api.md ("Rate limits"):
 * - public:  60 requests per minute per client IP, on every unauthenticated endpoint;
 * - agent:   60 per minute per API key, on keyed reads;
 * - write:   10 per minute per API key, on strategy submission, vault deposit and governance vote;
 * - faucet:   5 per minute per API key, on the faucet.
 * Every limited response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix seconds);
 * a 429 carries Retry-After (seconds) and `{ "error": ... }`.
 *
 * One backend for all limiters: a single shared Map in this process (koa-ratelimit's memory driver limits nothing
 * unless every limiter shares one Map; namespaces keep the limits apart), or Redis when REDIS_URL is set so that
 * several instances share one count. Client IPs come from Koa's ctx.ip, which honours X-Forwarded-For only for the
 * configured number of trusted proxies (app.proxy / app.maxIpsCount, set in app.ts).
 */

export type RateLimitClass = "public" | "agent" | "write" | "faucet";

export const RATE_LIMITS: Record<RateLimitClass, { max: number; durationMs: number; by: "ip" | "key" }> = {
  public: { max: 60, durationMs: 60_000, by: "ip" },
  agent: { max: 60, durationMs: 60_000, by: "key" },
  write: { max: 10, durationMs: 60_000, by: "key" },
  faucet: { max: 5, durationMs: 60_000, by: "key" },
};

export type RateLimitBackend = { driver: "memory"; db: Map<string, unknown> } | { driver: "redis"; db: Redis };

export interface RateLimiters {
  /** The limiter of one class; null when limits are disabled (RATE_LIMITS_DISABLED), so routes mount no layer. */
  middleware(kind: RateLimitClass): Middleware | null;
  /** Stops the memory sweeper. */
  close(): void;
}

interface MemoryEntry {
  reset: number;
}

/** Removes expired entries of the shared Map (koa-ratelimit's memory driver never does). */
function startSweeper(db: Map<string, unknown>): NodeJS.Timeout {
  const timer = setInterval(() => {
    const nowSeconds = Date.now() / 1000;
    for (const [key, entry] of db) {
      if ((entry as MemoryEntry).reset < nowSeconds) db.delete(key);
    }
  }, 30_000);
  timer.unref();
  return timer;
}

/** koa-ratelimit's drivers disagree on units (memory: fractional seconds); expose whole Unix seconds. */
function normaliseReset(ctx: Context): void {
  const reset = ctx.response.get("X-RateLimit-Reset");
  if (reset !== "") ctx.set("X-RateLimit-Reset", String(Math.ceil(Number(reset))));
}

export function createRateLimiters(
  backend: RateLimitBackend,
  options: { disabled: boolean; prefix?: string },
): RateLimiters {
  const sweeper = backend.driver === "memory" ? startSweeper(backend.db) : undefined;
  const prefix = options.prefix ?? "nap";
  const cache = new Map<RateLimitClass, Middleware>();

  function build(kind: RateLimitClass): Middleware {
    const rule = RATE_LIMITS[kind];
    const limiter = ratelimit({
      driver: backend.driver,
      // koa-ratelimit's types want a Map for memory and a Redis client for redis: both are given as configured.
      db: backend.db as never,
      duration: rule.durationMs,
      max: rule.max,
      namespace: `${prefix}:ratelimit:${kind}`,
      id: (ctx: Context) => {
        if (rule.by === "ip") return `ip:${ctx.ip}`;
        const principal = ctx.state.principal as Principal | undefined;
        return principal ? `key:${principal.keyId}` : `ip:${ctx.ip}`;
      },
      errorMessage: "rate limit exceeded",
      onLimited: (ctx: Context) => {
        const retryAfter = Math.max(1, Number(ctx.response.get("Retry-After")) || 1);
        ctx.set("Retry-After", String(retryAfter));
        ctx.body = { error: `rate limit exceeded: ${rule.max} requests per minute; retry in ${retryAfter} s` };
      },
    } as ratelimit.MiddlewareOptions);
    return async (ctx: Context, next: Next) => {
      let downstream = false;
      try {
        await limiter(ctx, async () => {
          downstream = true;
          normaliseReset(ctx);
          await next();
        });
      } catch (error) {
        // The limiter's own store failed (Redis unreachable): refuse with 503 rather than serve unlimited.
        if (!downstream) throw new RateLimiterUnavailableError();
        throw error;
      }
      if (ctx.status === 429 && ctx.state.rateLimit) {
        normaliseReset(ctx);
        const retryAfter = Math.max(1, Number(ctx.response.get("Retry-After")) || 1);
        ctx.set("Retry-After", String(retryAfter));
      }
    };
  }

  return {
    middleware(kind) {
      if (options.disabled) return null;
      let middleware = cache.get(kind);
      if (!middleware) {
        middleware = build(kind);
        cache.set(kind, middleware);
      }
      return middleware;
    },
    close() {
      if (sweeper) clearInterval(sweeper);
    },
  };
}
