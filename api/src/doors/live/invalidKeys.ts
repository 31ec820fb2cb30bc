import type Redis from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from "rate-limiter-flexible";
import { RateLimiterUnavailableError, RateLimitError } from "../../errors";

/**
 * Invalid API keys, limited per client IP before authentication (rate-limiter-flexible): a client that sent
 * INVALID_KEYS.max unknown keys within INVALID_KEYS.durationSeconds gets 429 for every keyed request until the window
 * ends, before its key is even looked up. Guessing keys is then as slow as this limit, and cannot be spread over the
 * per-key budgets (which count only known keys). Counted in Redis when the rate limits are, so instances share it.
 */

export const INVALID_KEYS = { max: 20, durationSeconds: 60 } as const;

export interface InvalidKeyLimiter {
  /** Throws RATE_LIMITED when `ip` is over the limit. */
  check(ip: string): Promise<void>;
  /** Counts one invalid key from `ip`. */
  record(ip: string): Promise<void>;
}

export function createInvalidKeyLimiter(
  backend: { driver: "memory" } | { driver: "redis"; db: Redis },
  options: { disabled: boolean; prefix?: string },
): InvalidKeyLimiter {
  if (options.disabled) return { check: async () => undefined, record: async () => undefined };
  const settings = {
    points: INVALID_KEYS.max,
    duration: INVALID_KEYS.durationSeconds,
    keyPrefix: `${options.prefix ?? "nap"}:invalid-keys`,
  };
  const limiter: RateLimiterAbstract =
    backend.driver === "redis"
      ? new RateLimiterRedis({ ...settings, storeClient: backend.db })
      : new RateLimiterMemory(settings);
  // The limiter's own store failing (Redis unreachable) is answered 503, never as "unlimited".
  const guarded = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch {
      throw new RateLimiterUnavailableError();
    }
  };
  return {
    async check(ip) {
      const state = await guarded(() => limiter.get(ip));
      if (state && state.consumedPoints >= INVALID_KEYS.max) {
        const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
        throw new RateLimitError(
          `too many invalid API keys from this address: ${INVALID_KEYS.max} per minute; retry in ${seconds} s`,
          seconds,
        );
      }
    },
    async record(ip) {
      await guarded(() => limiter.penalty(ip, 1));
    },
  };
}
