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

/** Where a limiter counts: this process's memory, or Redis with its circuit's state. */
export type RateLimitStats = { store: 'memory' } | ({ store: 'redis' } & FallbackStats);

export interface WindowStoreOptions {
  /** Prefix of its Redis keys (`lms:<limiter>:`); tests give a unique one. */
  keyPrefix: string;
  /** The limiter's name in log lines (`rate limit`, `enrolment-code limit`...). */
  name: string;
  /** Redis command timeout in ms before falling back to memory (default 250). */
  commandTimeoutMs?: number;
  /** When to stop asking a failing Redis (default 3 failures in a row, 5 s). */
  circuit?: CircuitOptions;
}

/**
 * The sliding-window store of one limiter of the app: shared by every instance through Redis when
 * REDIS_URL is set (falling back to this process's memory while Redis is away: storeWithFallback),
 * this process's memory otherwise. Closed with the app. Every limiter opens its store here, so they
 * all fail the same way.
 */
export function openWindowStore(
  app: FastifyInstance,
  policy: RateLimitPolicy,
  options: WindowStoreOptions,
): { store: SlidingWindowStore; stats(): RateLimitStats } {
  const memory = memorySlidingWindowStore(policy);
  let opened: { store: SlidingWindowStore; stats(): RateLimitStats } = { store: memory, stats: () => ({ store: 'memory' }) };
  if (app.config.REDIS_URL) {
    const redis = redisSlidingWindowStore(policy, {
      url: app.config.REDIS_URL,
      keyPrefix: options.keyPrefix,
      commandTimeoutMs: options.commandTimeoutMs ?? 250,
      onConnectionError: (err) => app.log.debug({ err }, `${options.name}: Redis connection error`),
    });
    const shared = storeWithFallback(redis, memory, app.log, options.circuit);
    opened = { store: shared, stats: () => ({ store: 'redis', ...shared.stats }) };
  }
  app.addHook('onClose', async () => {
    await opened.store.close();
  });
  return opened;
}
