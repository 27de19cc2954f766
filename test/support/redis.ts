import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** Why Redis cannot be used (for a skip message), or false. */
export async function redisProblem(url = TEST_REDIS_URL): Promise<string | false> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return false;
  } catch (error) {
    return `Redis not reachable at ${url} (${(error as Error).message})`;
  } finally {
    redis.disconnect();
  }
}

/** Deletes the per-IP counter of `ip` (key `baas:rl:ip:<ip>` in src/platform/http/rate-limit.ts). */
export async function clearIpCounter(ip: string, url = TEST_REDIS_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    await redis.del(`baas:rl:ip:${ip}`);
  } finally {
    redis.disconnect();
  }
}
