import type { FastifyInstance } from 'fastify';
import {
  type CircuitOptions,
  type FallbackStats,
  memorySlidingWindowStore,
  type RateLimitPolicy,
  redisSlidingWindowStore,
  type SlidingWindowStore,
  storeWithFallback,
} from './sliding-window.js';

export type RateLimitStats = { store: 'memory' } | ({ store: 'redis' } & FallbackStats);

export interface LimiterStoreOptions {
  /** How the limiter is named in its log lines ("failed-credential limit"). */
  label: string;
  /** Prefix of its Redis keys after REDIS_KEY_PREFIX (`ratelimit:`); `keyPrefix` replaces both (tests). */
  keySuffix: string;
  keyPrefix?: string | undefined;
  /** Redis command timeout in ms before falling back to memory (default 250). */
  commandTimeoutMs?: number | undefined;
  /** When to stop asking a failing Redis, and for how long (default 3 failures in a row, 5 s). */
  circuit?: CircuitOptions | undefined;
}

/**
 * The sliding-window store of one limiter: this process's memory, or with REDIS_URL the window
 * every instance shares, falling back to memory while Redis is away (storeWithFallback). The app
 * does not start serving before the first Redis connection is up or has failed (an onReady wait,
 * bounded by the store), so a new instance's first requests are counted in the shared window.
 * The store is closed with the app. Every limiter opens its store here, so they all fail the same way.
 */
export function createLimiterStore(
  app: FastifyInstance,
  policy: RateLimitPolicy,
  options: LimiterStoreOptions,
): { store: SlidingWindowStore; stats(): RateLimitStats } {
  const memory = memorySlidingWindowStore(policy);
  const closedWithApp = (store: SlidingWindowStore) => app.addHook('onClose', async () => store.close());
  if (!app.config.REDIS_URL) {
    closedWithApp(memory);
    return { store: memory, stats: () => ({ store: 'memory' }) };
  }
  const redis = redisSlidingWindowStore(policy, {
    url: app.config.REDIS_URL,
    keyPrefix: options.keyPrefix ?? `${app.config.REDIS_KEY_PREFIX}${options.keySuffix}`,
    commandTimeoutMs: options.commandTimeoutMs ?? 250,
    onConnectionError: (err) => app.log.debug({ err }, `${options.label}: Redis connection error`),
  });
  const shared = storeWithFallback(redis, memory, app.log, options.circuit);
  app.addHook('onReady', () => redis.firstConnection());
  closedWithApp(shared);
  return { store: shared, stats: () => ({ store: 'redis', ...shared.stats }) };
}
