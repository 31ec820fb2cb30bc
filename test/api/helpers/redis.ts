import { ensureRedis } from "../../helpers/services";

/** A Redis for the tests: REDIS_URL, else a redis-server on a free loopback port (test/helpers/services.ts). */
export async function testRedisUrl(): Promise<string> {
  return ensureRedis();
}
