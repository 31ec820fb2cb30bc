import type Redis from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { RateLimiterUnavailableError, RateLimitError } from "../../../errors";
import type { IssuanceGate } from "../../../usecases/dataKeys/issuance";

/**
 * How many data keys may be issued, per client IP and per owner (a wallet or a live API agent), so that free keys
 * cannot be farmed to multiply an IP's request budget: each key is an Authenticated budget of its own. Operators are
 * not counted (their keys are issued by whoever runs the deployment).
 *
 * Windows are fixed and aligned to the clock (the current UTC hour and day), counted by rate-limiter-flexible in
 * memory or, when a Redis client is given, in Redis so that every instance shares one count. A refused issuance gives
 * back what it counted, so that a client that waits for Retry-After gets its key.
 */

export type IssuanceWindow = "hour" | "day";
export type IssuanceSubject = "ip" | "owner";

const WINDOW_MS: Readonly<Record<IssuanceWindow, number>> = { hour: 3_600_000, day: 86_400_000 };

/** Keys issued per window. A client needs one key per deployment and rotates it now and then. */
export const ISSUANCE_LIMITS: Readonly<Record<IssuanceSubject, Readonly<Record<IssuanceWindow, number>>>> = {
  ip: { hour: 5, day: 20 },
  owner: { hour: 5, day: 10 },
};

/** Counts one issuance for `subject` (`ip:<address>` or the key owner); throws the 429 when a window is full. */
export type IssuanceLimiter = IssuanceGate;

export function createIssuanceLimiter(options: {
  redis?: Redis;
  prefix?: string;
  clock: () => Date;
  /** RATE_LIMITS_DISABLED: nothing is counted. */
  disabled?: boolean;
  limits?: typeof ISSUANCE_LIMITS;
}): IssuanceLimiter {
  if (options.disabled) return { admit: async () => undefined };
  const limits = options.limits ?? ISSUANCE_LIMITS;
  const limiters = new Map<string, RateLimiterAbstract>();

  function limiterFor(kind: IssuanceSubject, window: IssuanceWindow): RateLimiterAbstract {
    const name = `${kind}:${window}`;
    let limiter = limiters.get(name);
    if (!limiter) {
      const settings = {
        points: limits[kind][window],
        // How long a counter is kept; the window index in its key does the windowing.
        duration: (2 * WINDOW_MS[window]) / 1000,
        keyPrefix: `${options.prefix ?? "nap"}:data-key-issuance:${name}`,
      };
      limiter = options.redis
        ? new RateLimiterRedis({ ...settings, storeClient: options.redis, rejectIfRedisNotReady: true })
        : new RateLimiterMemory(settings);
      limiters.set(name, limiter);
    }
    return limiter;
  }

  return {
    async admit(kind, subject) {
      const nowMs = options.clock().getTime();
      const counted = await Promise.all(
        (["hour", "day"] as const).map(async (window) => {
          const index = Math.floor(nowMs / WINDOW_MS[window]);
          const key = `${subject}:${index}`;
          const limiter = limiterFor(kind, window);
          const reset = (index + 1) * WINDOW_MS[window];
          try {
            await limiter.consume(key, 1);
            return { window, key, limiter, reset, ok: true };
          } catch (rejection) {
            if (rejection instanceof RateLimiterRes) return { window, key, limiter, reset, ok: false };
            throw limiterUnavailable();
          }
        }),
      );
      const full = counted.filter((entry) => !entry.ok);
      if (full.length === 0) return;
      await Promise.all(counted.map((entry) => entry.limiter.reward(entry.key, 1))).catch(() => {
        throw limiterUnavailable();
      });
      const binding = full.reduce((latest, entry) => (entry.reset >= latest.reset ? entry : latest));
      const retryAfter = Math.max(1, Math.ceil((binding.reset - nowMs) / 1000));
      const limit = limits[kind][binding.window];
      const per = kind === "ip" ? "per IP address" : "per owner";
      throw new RateLimitError(
        `key issuance limit reached: ${limit} keys per ${binding.window} ${per}; retry in ${retryAfter} s`,
        retryAfter,
        { limited: "key_issuance", counted_by: kind, window: binding.window, limit, reset: binding.reset / 1000 },
      );
    },
  };
}

function limiterUnavailable(): RateLimiterUnavailableError {
  // The limiter's store failing is answered 503, never as "unlimited".
  return new RateLimiterUnavailableError();
}
