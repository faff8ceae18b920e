import fp from 'fastify-plugin';
import { TooManyRequestsError } from '../errors.js';
import { createLimiterStore, type RateLimitStats } from '../rate-limit/limiter-store.js';
import type { CircuitOptions, RateLimitPolicy } from '../rate-limit/sliding-window.js';

export interface RateLimitOptions {
  /** Prefix of the Redis keys (default REDIS_KEY_PREFIX + `ratelimit:`); tests use a unique one. */
  redisKeyPrefix?: string;
  /** Redis command timeout in ms before falling back to memory (default 250). */
  redisCommandTimeoutMs?: number;
  /** When to stop asking a failing Redis, and for how long (default 3 failures in a row, 5 s). */
  redisCircuit?: CircuitOptions;
}

export type { RateLimitStats };

declare module 'fastify' {
  interface FastifyInstance {
    /** What the limiter did so far: with Redis, the circuit's state and how many requests waited on Redis. */
    rateLimitStats(): RateLimitStats;
  }
}

/** The policy's name in the RateLimit-Policy and RateLimit fields. */
const POLICY_NAME = 'default';

/** The window is a minute: the limit is RATE_LIMIT_PER_MINUTE (config), which the docs quote. */
const WINDOW_MS = 60_000;

/**
 * Per-API-key sliding-window rate limit on the routes that set `config: { rateLimited: true }`.
 *
 * - Only callers identified by an API key count; session callers are not limited (the spec limits
 *   "requests for which the service identifies the caller by API key"). It runs in an onRequest
 *   hook registered after the auth plugin's, so `request.caller` is already resolved.
 * - RATE_LIMIT_PER_MINUTE requests (the spec's 100 by default) in any sliding minute.
 * - Keyed by the first 16 hex characters of the key's SHA-256, as the spec says.
 * - A true sliding window (see rate-limit/sliding-window.ts): refused requests do not count.
 * - Over the limit: 429 `{success:false, error:"Rate limit exceeded"}` with `Retry-After`, the
 *   whole seconds (rounded up) until the oldest counted request leaves the window.
 * - Every API-key response of these routes carries the fields of
 *   draft-ietf-httpapi-ratelimit-headers-11: `RateLimit-Policy: "default";q=<RATE_LIMIT_PER_MINUTE>;w=60` and
 *   `RateLimit: "default";r=<remaining>;t=<seconds until the oldest counted request leaves the
 *   window>`: in those t seconds no quota comes back, which is the draft's "effective window"
 *   (within it the client can use no more than r). On a 429, Retry-After equals t.
 * - In memory by default; with REDIS_URL, shared by every instance through a Redis sorted set per
 *   key (one atomic Lua script per request). If Redis is unreachable the limiter fails open to the
 *   in-memory window of each instance (a warning is logged; the client reconnects in the
 *   background, at most every 2 s): the catalog keeps answering and each instance still enforces
 *   the limit on its own. A Redis that is connected but stalled costs a few timeouts, then a
 *   circuit breaker answers from memory without asking it for a cooldown and probes it again
 *   with one request. See storeWithFallback.
 */
export default fp<RateLimitOptions>(
  async (app, opts) => {
    const policy: RateLimitPolicy = { limit: app.config.RATE_LIMIT_PER_MINUTE, windowMs: WINDOW_MS };
    const { store, stats } = createLimiterStore(app, policy, {
      label: 'rate limit',
      keySuffix: 'ratelimit:',
      keyPrefix: opts.redisKeyPrefix,
      commandTimeoutMs: opts.redisCommandTimeoutMs,
      circuit: opts.redisCircuit,
    });
    app.decorate('rateLimitStats', () => stats());
    const policyField = `"${POLICY_NAME}";q=${policy.limit};w=${Math.ceil(policy.windowMs / 1000)}`;

    app.addHook('onRequest', async (request, reply) => {
      if (!request.routeOptions.config?.rateLimited) return;
      const caller = request.caller;
      if (caller?.kind !== 'api-key') return;
      const result = await store.hit(caller.keyHash.slice(0, 16), app.clock().getTime());
      app.metrics.rateLimitDecision('api_key', result.allowed);
      const resetSeconds = Math.ceil(result.resetMs / 1000);
      reply.header('RateLimit-Policy', policyField);
      reply.header('RateLimit', `"${POLICY_NAME}";r=${result.remaining};t=${resetSeconds}`);
      if (!result.allowed) throw new TooManyRequestsError(Math.max(1, resetSeconds));
    });

    app.addHook('onClose', async () => {
      await store.close();
    });
  },
  { name: 'rate-limit', dependencies: ['auth', 'metrics'] },
);
