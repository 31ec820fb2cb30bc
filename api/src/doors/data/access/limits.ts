import type Redis from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { DataAccessError } from "./errors";

/**
 * The data API's tiers and their limits, counted by rate-limiter-flexible in memory or, when a Redis client is given,
 * in Redis so that every instance shares one count.
 *
 * Windows are fixed and aligned to the clock: the minute window is the current UTC minute, the day window the current
 * UTC day. The count of a window is kept under a key that carries the window's index (`floor(now / length)`), so the
 * injected clock alone decides which window a request falls in and when it resets, and every instance and every
 * caller sees the same reset time. Counters outlive their window (twice its length) and are then dropped.
 *
 * A request is admitted only when every window of its tier has room. It counts in every window when admitted, and in
 * none when refused: every window gives its point back. So refused requests never eat the day's budget, and under
 * concurrency a caller can be refused early (while another request's point is being given back) but never admitted
 * beyond a budget.
 */

export const DATA_TIERS = ["public", "authenticated", "node_operator"] as const;
export type DataTier = (typeof DATA_TIERS)[number];

export type WindowName = "minute" | "day";

export const WINDOW_MS: Readonly<Record<WindowName, number>> = { minute: 60_000, day: 86_400_000 };

/** Requests per window; `day: null` is no daily cap. */
export interface TierLimit {
  minute: number;
  day: number | null;
}

export const TIER_LIMITS: Readonly<Record<DataTier, TierLimit>> = {
  public: { minute: 60, day: 10_000 },
  authenticated: { minute: 300, day: 100_000 },
  node_operator: { minute: 1_000, day: null },
};

export interface WindowState {
  window: WindowName;
  limit: number;
  /** Requests still admitted in this window after this one. */
  remaining: number;
  /** Unix seconds at which this window ends and its count starts again. */
  reset: number;
}

export interface LimitDecision {
  allowed: boolean;
  tier: DataTier;
  /** Minute first, then day when the tier has one. */
  windows: WindowState[];
  /**
   * The window the X-RateLimit-* headers describe: when admitted, the one with the fewest requests left (ties: the
   * longer one, since running it down blocks for longer); when refused, the refusing window that ends last.
   */
  binding: WindowState;
  /** Whole seconds until the binding window resets, at least 1 (Retry-After of a 429). */
  retryAfterSeconds: number;
}

export interface TierLimiter {
  /** Counts one request of `subject` (e.g. `ip:1.2.3.4`, `key:dk_...`) on `tier`'s windows. */
  consume(tier: DataTier, subject: string): Promise<LimitDecision>;
}

export interface TierLimiterOptions {
  /** Absent: counted in this process. */
  redis?: Redis;
  /** Key prefix in Redis (instances that share limits use the same one). */
  prefix?: string;
  clock: () => Date;
  limits?: Readonly<Record<DataTier, TierLimit>>;
}

export function createTierLimiter(options: TierLimiterOptions): TierLimiter {
  const limits = options.limits ?? TIER_LIMITS;
  const prefix = options.prefix ?? "nap";
  const limiters = new Map<string, RateLimiterAbstract>();

  function limiterFor(tier: DataTier, window: WindowName, points: number): RateLimiterAbstract {
    const name = `${tier}:${window}`;
    let limiter = limiters.get(name);
    if (!limiter) {
      const settings = {
        points,
        // Seconds; only how long a counter is kept, since the window index in the key does the windowing.
        duration: (2 * WINDOW_MS[window]) / 1000,
        keyPrefix: `${prefix}:data-limits:${name}`,
      };
      limiter = options.redis
        ? new RateLimiterRedis({ ...settings, storeClient: options.redis, rejectIfRedisNotReady: true })
        : new RateLimiterMemory(settings);
      limiters.set(name, limiter);
    }
    return limiter;
  }

  return {
    async consume(tier, subject) {
      const nowMs = options.clock().getTime();
      const rule = limits[tier];
      const windows: Array<{ window: WindowName; limit: number }> = [{ window: "minute", limit: rule.minute }];
      if (rule.day !== null) windows.push({ window: "day", limit: rule.day });

      const counted = await Promise.all(
        windows.map(async ({ window, limit }) => {
          const index = Math.floor(nowMs / WINDOW_MS[window]);
          const key = `${subject}:${index}`;
          const limiter = limiterFor(tier, window, limit);
          const reset = ((index + 1) * WINDOW_MS[window]) / 1000;
          try {
            const res = await limiter.consume(key, 1);
            return { window, limit, reset, key, limiter, consumed: res.consumedPoints, ok: true };
          } catch (rejection) {
            if (rejection instanceof RateLimiterRes) {
              return { window, limit, reset, key, limiter, consumed: rejection.consumedPoints, ok: false };
            }
            throw limiterUnavailable();
          }
        }),
      );

      const allowed = counted.every((entry) => entry.ok);
      if (!allowed) {
        // Every window gives its point back, so that a refused request is counted nowhere. Even a refusing window
        // does: under concurrency it may have been full only with requests that are themselves being given back.
        await Promise.all(
          counted.map((entry) =>
            entry.limiter.reward(entry.key, 1).then(
              () => undefined,
              () => {
                throw limiterUnavailable();
              },
            ),
          ),
        );
      }
      const states: WindowState[] = counted.map((entry) => ({
        window: entry.window,
        limit: entry.limit,
        remaining: !entry.ok ? 0 : allowed ? entry.limit - entry.consumed : entry.limit - (entry.consumed - 1),
        reset: entry.reset,
      }));
      const binding = allowed
        ? states.reduce((best, state) => (state.remaining <= best.remaining ? state : best))
        : states
            .filter((_, i) => !counted[i].ok)
            .reduce((latest, state) => (state.reset >= latest.reset ? state : latest));
      const retryAfterSeconds = Math.max(1, Math.ceil(binding.reset - nowMs / 1000));
      return { allowed, tier, windows: states, binding, retryAfterSeconds };
    },
  };
}

function limiterUnavailable(): DataAccessError {
  // The limiter's store failing (Redis unreachable) is answered 503, never as "unlimited".
  return new DataAccessError("UNAVAILABLE", "rate limiter unavailable: try again shortly", {}, { "Retry-After": "5" });
}
