import Redis, { type RedisOptions } from "ioredis";

/**
 * The service's Redis client (shared rate limits, the data API's limits, feed notices), set up so that a Redis that
 * is away costs a request a fast 503, never a wait: commands are not queued while the connection is down (they fail
 * at once and the limiters answer UNAVAILABLE), a command to a Redis that hangs gives up after a second, and the
 * client keeps reconnecting by itself so that the limits serve again as soon as Redis is back.
 */
export const REDIS_OUTAGE_SETTINGS: Readonly<
  Pick<RedisOptions, "enableOfflineQueue" | "maxRetriesPerRequest" | "commandTimeout" | "connectTimeout">
> = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 1_000,
  connectTimeout: 1_000,
};

/** A client of `url` with REDIS_OUTAGE_SETTINGS, not yet connected (`connect()` it; it reconnects by itself). */
export function createRedisClient(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { lazyConnect: true, ...REDIS_OUTAGE_SETTINGS, ...options });
}
