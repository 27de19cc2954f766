import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { rateLimited } from '../errors/errors.js';

export interface WindowCount {
  count: number;
  resetAt: number;
}

/** Fixed-window counters: in process memory, or in Redis so several instances share one budget. */
export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}

export function memoryRateLimitStore(clock: Clock): RateLimitStore {
  const windows = new Map<string, WindowCount>();
  const sweep = setInterval(() => {
    const now = clock.now();
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
  }, 60_000);
  sweep.unref();
  return {
    async hit(key, windowMs) {
      const now = clock.now();
      let window = windows.get(key);
      if (!window || window.resetAt <= now) {
        window = { count: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { ...window };
    },
    async close() {
      clearInterval(sweep);
    },
  };
}

const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}`;

export function redisRateLimitStore(url: string, clock: Clock): RateLimitStore {
  // Loaded only when REDIS_URL is set: an instance without it does not carry the client in memory.
  const { Redis: Client } = createRequire(import.meta.url)('ioredis') as { Redis: typeof Redis };
  const redis = new Client(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
  redis.on('error', () => {
    // Connection errors surface on the commands; the hook fails open so Redis trouble is not an outage.
  });
  return {
    async hit(key, windowMs) {
      const [count, ttl] = (await redis.eval(HIT_SCRIPT, 1, `baas:rl:${key}`, windowMs)) as [number, number];
      return { count, resetAt: clock.now() + (ttl > 0 ? ttl : windowMs) };
    },
    async close() {
      redis.disconnect();
    },
  };
}

export interface IpRateLimitOptions {
  perMinute: number;
  store: RateLimitStore;
  clock: Clock;
  /** Told of each request let through unchecked (the `baas_rate_limit_unchecked_total` metric). */
  onUnchecked?: () => void;
}

/** How often a rate limit store that stays down is logged: once a minute, not once a request. */
const STORE_DOWN_WARN_EVERY_MS = 60_000;

/**
 * Per-IP request budget (RATE_LIMIT_IP_PER_MINUTE; 0 turns it off). Health checks are exempt. A store
 * that fails (Redis down) lets requests through: the limit guards against floods, and refusing every
 * request while Redis is away would turn its outage into ours (docs/decisions.md). It is logged at
 * `warn` at most once a minute, with how many requests went through unchecked since the last line,
 * and each such request is counted in the metrics.
 */
export function registerIpRateLimit(app: FastifyInstance, options: IpRateLimitOptions): void {
  if (options.perMinute === 0) return;
  let warnedAt = Number.NEGATIVE_INFINITY;
  let unchecked = 0;
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.rateLimit === false) return;
    let window: WindowCount;
    try {
      window = await options.store.hit(`ip:${request.ip}`, 60_000);
    } catch (error) {
      unchecked++;
      options.onUnchecked?.();
      const now = options.clock.now();
      if (now - warnedAt >= STORE_DOWN_WARN_EVERY_MS) {
        request.log.warn(
          { err: error, unchecked_requests: unchecked },
          'rate limit store unavailable; request allowed',
        );
        warnedAt = now;
        unchecked = 0;
      }
      return;
    }
    const resetSeconds = Math.max(1, Math.ceil((window.resetAt - options.clock.now()) / 1000));
    reply.header('x-ratelimit-limit', options.perMinute);
    reply.header('x-ratelimit-remaining', Math.max(0, options.perMinute - window.count));
    reply.header('x-ratelimit-reset', resetSeconds);
    if (window.count > options.perMinute) throw rateLimited(window.resetAt - options.clock.now());
  });
}
