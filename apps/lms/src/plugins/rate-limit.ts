import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { TooManyRequestsError } from '../errors.js';
import { createLimiterStore, type RateLimitStats } from '../rate-limit/limiter-store.js';
import type { CircuitOptions, RateLimitDecision, RateLimitPolicy } from '../rate-limit/sliding-window.js';
import type { Limiter } from './metrics.js';

export type { RateLimitStats };

export interface RateLimitOptions {
  /** Prefix of the Redis keys (default REDIS_KEY_PREFIX + `ratelimit:`, the session and address windows adding their own part); tests use a unique one. */
  redisKeyPrefix?: string;
  /** Redis command timeout in ms before falling back to memory (default 250). */
  redisCommandTimeoutMs?: number;
  /** When to stop asking a failing Redis, and for how long (default 3 failures in a row, 5 s). */
  redisCircuit?: CircuitOptions;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Count this route against the caller's session budget (per person, SESSION_RATE_LIMIT_PER_MINUTE):
     * the reads that cost most (lists, bundles, metrics, the pages built on them).
     */
    sessionLimited?: boolean;
    /**
     * Count this route against the author's budget (AUTHORING_RATE_LIMIT_PER_MINUTE): per person for
     * a session, per partner (its issuer) for a partner's token. The authoring API, the studio's
     * form posts, course creation.
     */
    authoringLimited?: boolean;
    /** Count this route against the person's documents budget (DOCUMENT_RATE_LIMIT_PER_MINUTE): PDFs and CSV exports. */
    documentLimited?: boolean;
  }
  interface FastifyInstance {
    /** What the API-key limiter did so far: with Redis, the circuit's state and how many requests waited on Redis. */
    rateLimitStats(): RateLimitStats;
    /** An onRequest hook limiting a scope's requests per client IP (DOCS_RATE_LIMIT_PER_MINUTE): the API documents. */
    limitPerAddress(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  }
}

/** Every window is a minute: the limits are per minute (config), which the docs quote. */
const WINDOW_MS = 60_000;

/**
 * The rate limits of requests that carry a credential, or of anonymous reads that cost:
 *
 * - **API keys** (`config: { rateLimited: true }`, the spec's limit): RATE_LIMIT_PER_MINUTE (100)
 *   requests per key in any sliding minute, keyed by the first 16 hex characters of the key's
 *   SHA-256, as the spec says. Policy name `default`.
 * - **Sessions** (`config: { sessionLimited: true }`): SESSION_RATE_LIMIT_PER_MINUTE (60) requests
 *   per person in any sliding minute on the reads that cost most (unpaginated lists of up to 200
 *   courses with their trees, bundles, metrics, and the pages built on them). Without it, 16
 *   concurrent unpaginated lists from one member took a bystander's p50 from 8 ms to 555 ms. A
 *   person reading pages never comes near it. Policy name `session`.
 * - **Addresses** (`app.limitPerAddress`, the API documents): DOCS_RATE_LIMIT_PER_MINUTE (30)
 *   requests per client IP; the document is public and costs milliseconds to write. Policy `address`.
 * - **Authors** (`config: { authoringLimited: true }`): AUTHORING_RATE_LIMIT_PER_MINUTE (60)
 *   authoring requests per person (session) or per partner (token issuer). Each write may rewrite a
 *   whole course and refresh the shared catalog answers; unlimited, one teacher's loop of writes
 *   raised integrators' p50 from 6 to 42 ms. Policy `authoring`.
 * - **Documents** (`config: { documentLimited: true }`): DOCUMENT_RATE_LIMIT_PER_MINUTE (10) PDFs and
 *   CSV exports per person: 90 credit PDFs from one member used 7.3 s of CPU and raised others'
 *   p95 to 594 ms. Policy `documents`.
 *
 * For each: a true sliding window (rate-limit/sliding-window.ts; refused requests do not count);
 * over the limit 429 `{success:false, error:"Rate limit exceeded"}` with `Retry-After`, the whole
 * seconds (rounded up) until the oldest counted request leaves the window; every counted response
 * carries the fields of draft-ietf-httpapi-ratelimit-headers-11, `RateLimit-Policy: "<name>";q=<limit>;w=60`
 * and `RateLimit: "<name>";r=<remaining>;t=<seconds until the oldest counted request leaves the
 * window>` (in those t seconds no quota comes back, the draft's "effective window"); on a 429,
 * Retry-After equals t. The hooks run after the auth plugin's, so `request.caller` is resolved.
 *
 * In memory by default; with REDIS_URL, shared by every instance through a Redis sorted set per
 * key (one atomic Lua script per request), failing open to each instance's memory while Redis is
 * away or stalled (rate-limit/window-store.ts, storeWithFallback).
 */
export default fp<RateLimitOptions>(
  async (app, opts) => {
    const window = (limit: number, name: string, metric: Limiter, part: string) => {
      const policy: RateLimitPolicy = { limit, windowMs: WINDOW_MS };
      const { store, stats } = createLimiterStore(app, policy, {
        label: 'rate limit',
        keySuffix: `ratelimit:${part}`,
        keyPrefix: opts.redisKeyPrefix === undefined ? undefined : `${opts.redisKeyPrefix}${part}`,
        commandTimeoutMs: opts.redisCommandTimeoutMs,
        circuit: opts.redisCircuit,
      });
      const policyField = `"${name}";q=${limit};w=${Math.ceil(WINDOW_MS / 1000)}`;
      /** Counts one request of `key`; the headers on the reply, 429 past the limit. */
      async function count(key: string, reply: FastifyReply): Promise<RateLimitDecision> {
        const result = await store.hit(key, app.clock().getTime());
        app.metrics.rateLimitDecision(metric, result.allowed);
        const resetSeconds = Math.ceil(result.resetMs / 1000);
        reply.header('RateLimit-Policy', policyField);
        reply.header('RateLimit', `"${name}";r=${result.remaining};t=${resetSeconds}`);
        if (!result.allowed) throw new TooManyRequestsError(Math.max(1, resetSeconds));
        return result;
      }
      return { count, stats };
    };
    // API keys keep the keys they always had (their windows survive an upgrade).
    const apiKeys = window(app.config.RATE_LIMIT_PER_MINUTE, 'default', 'api_key', '');
    const sessions = window(app.config.SESSION_RATE_LIMIT_PER_MINUTE, 'session', 'session', 'session:');
    const addresses = window(app.config.DOCS_RATE_LIMIT_PER_MINUTE, 'address', 'address', 'address:');
    const authors = window(app.config.AUTHORING_RATE_LIMIT_PER_MINUTE, 'authoring', 'authoring', 'authoring:');
    const documents = window(app.config.DOCUMENT_RATE_LIMIT_PER_MINUTE, 'documents', 'documents', 'documents:');

    app.decorate('rateLimitStats', () => apiKeys.stats());
    app.decorate('limitPerAddress', async (request: FastifyRequest, reply: FastifyReply) => {
      await addresses.count(request.ip, reply);
    });

    app.addHook('onRequest', async (request, reply) => {
      const config = request.routeOptions.config;
      const caller = request.caller;
      if (config?.rateLimited && caller?.kind === 'api-key') await apiKeys.count(caller.keyHash.slice(0, 16), reply);
      else if (config?.sessionLimited && caller?.kind === 'session') await sessions.count(caller.userId, reply);
      else if (config?.documentLimited && caller?.kind === 'session') await documents.count(caller.userId, reply);
      else if (config?.authoringLimited) {
        const partner = request.partnerToken?.issuer;
        if (partner !== undefined) await authors.count(`partner:${partner}`, reply);
        else if (caller?.kind === 'session') await authors.count(`user:${caller.userId}`, reply);
      }
    });
  },
  { name: 'rate-limit', dependencies: ['auth', 'metrics'] },
);
