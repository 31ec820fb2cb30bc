import type Redis from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { RateLimiterUnavailableError } from "../../../errors";
import type { DataKeyRecord } from "../../../usecases/dataKeys/keys";

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
 *
 * Keys that anyone can issue to themselves (Authenticated keys of wallets and agents) would each bring a budget of their
 * own, so a request made with one also counts on its IP's keyed budget: one Authenticated budget shared by every such
 * key used from that IP (windows as above, counted and given back together with the key's own).
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
  /** The subject's windows: minute first, then day when the tier has one. */
  windows: WindowState[];
  /** The IP's keyed budget (the Authenticated tier's windows), when the request counted on it. */
  ipWindows?: WindowState[];
  /** Whose count the binding window is: the subject's, or the keyed budget its IP shares among self-issued keys. */
  boundBy: CountedBy;
  /**
   * The window the X-RateLimit-* headers describe: when admitted, the one with the fewest requests left (ties: the
   * longer one, since running it down blocks for longer); when refused, the refusing window that ends last.
   */
  binding: WindowState;
  /** Whole seconds until the binding window resets, at least 1 (Retry-After of a 429). */
  retryAfterSeconds: number;
}

export type CountedBy = "subject" | "keys_of_ip";

/** Where a request comes from, which decides whether it also counts on its IP's keyed budget. */
export interface RequestOrigin {
  ip: string;
  key?: Pick<DataKeyRecord, "tier" | "issuedBy">;
}

export interface TierLimiter {
  /**
   * Counts one request of `subject` (e.g. `ip:1.2.3.4`, `key:dk_...`) on `tier`'s windows and, when `origin` holds a
   * self-issued Authenticated key, on the keyed budget of `origin.ip` too.
   */
  consume(tier: DataTier, subject: string, origin?: RequestOrigin): Promise<LimitDecision>;
}

/** Keys whose requests share their IP's keyed budget: Authenticated keys a wallet or an agent issued itself. */
export function sharesIpBudget(tier: DataTier, key: RequestOrigin["key"]): boolean {
  return tier === "authenticated" && key?.tier === "authenticated" && !key.issuedBy.startsWith("operator:");
}

/** The 429 message of a refused decision, naming the budget that refused and how to get more. */
export function refusalMessage(decision: LimitDecision): string {
  const { binding, retryAfterSeconds } = decision;
  const per = binding.window === "minute" ? "per minute" : "per day";
  if (decision.boundBy === "keys_of_ip") {
    return (
      `rate limit exceeded: the keys used from this IP address share one Authenticated budget of ${binding.limit} ` +
      `requests ${per}; retry in ${retryAfterSeconds} s, or ask an operator for a Node Operator key for more`
    );
  }
  return `rate limit exceeded: ${binding.limit} requests ${per} on the ${decision.tier} tier; retry in ${retryAfterSeconds} s`;
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
    async consume(tier, subject, origin) {
      const nowMs = options.clock().getTime();
      type Counted = { countedBy: CountedBy; tier: DataTier; subject: string; window: WindowName };
      const windowsOf = (countedBy: Counted["countedBy"], counting: DataTier, who: string): Counted[] => {
        const list: Counted[] = [{ countedBy, tier: counting, subject: who, window: "minute" }];
        if (limits[counting].day !== null) list.push({ countedBy, tier: counting, subject: who, window: "day" });
        return list;
      };
      const windows = windowsOf("subject", tier, subject);
      if (origin && sharesIpBudget(tier, origin.key)) {
        // The Authenticated tier's own counters, under a subject no key or IP caller uses.
        windows.push(...windowsOf("keys_of_ip", "authenticated", `keys-of-ip:${origin.ip}`));
      }

      const counted = await Promise.all(
        windows.map(async ({ countedBy, tier: counting, subject: who, window }) => {
          const limit = limits[counting][window] as number;
          const index = Math.floor(nowMs / WINDOW_MS[window]);
          const key = `${who}:${index}`;
          const limiter = limiterFor(counting, window, limit);
          const reset = ((index + 1) * WINDOW_MS[window]) / 1000;
          try {
            const res = await limiter.consume(key, 1);
            return { countedBy, window, limit, reset, key, limiter, consumed: res.consumedPoints, ok: true };
          } catch (rejection) {
            if (rejection instanceof RateLimiterRes) {
              return { countedBy, window, limit, reset, key, limiter, consumed: rejection.consumedPoints, ok: false };
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
      // Ties go to the longer window, then to the IP's keyed budget (the one more keys draw on).
      const tighter = (state: WindowState, best: WindowState) =>
        state.remaining < best.remaining ||
        (state.remaining === best.remaining && WINDOW_MS[state.window] >= WINDOW_MS[best.window]);
      const candidates = states.map((_, i) => i).filter((i) => allowed || !counted[i].ok);
      const bound = allowed
        ? candidates.reduce((best, i) => (tighter(states[i], states[best]) ? i : best))
        : candidates.reduce((latest, i) => (states[i].reset >= states[latest].reset ? i : latest));
      const binding = states[bound];
      const retryAfterSeconds = Math.max(1, Math.ceil(binding.reset - nowMs / 1000));
      const own = states.filter((_, i) => counted[i].countedBy === "subject");
      const ip = states.filter((_, i) => counted[i].countedBy === "keys_of_ip");
      return {
        allowed,
        tier,
        windows: own,
        ...(ip.length > 0 && { ipWindows: ip }),
        binding,
        boundBy: counted[bound].countedBy,
        retryAfterSeconds,
      };
    },
  };
}

function limiterUnavailable(): RateLimiterUnavailableError {
  // The limiter's store failing (Redis unreachable) is answered 503, never as "unlimited".
  return new RateLimiterUnavailableError();
}
