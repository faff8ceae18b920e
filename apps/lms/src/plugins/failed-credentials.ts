import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { TooManyRequestsError } from '../errors.js';
import { createLimiterStore, type RateLimitStats } from '../rate-limit/limiter-store.js';
import type { RateLimitPolicy } from '../rate-limit/sliding-window.js';

export interface FailedCredentialsOptions {
  /** Prefix of the Redis keys (default REDIS_KEY_PREFIX + `failed-auth:`); tests use a unique one. */
  redisKeyPrefix?: string;
  /** Redis command timeout in ms before falling back to memory (default 250). */
  redisCommandTimeoutMs?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Failed credentials per client IP (see below). */
    failedCredentials: {
      /** 429 at once, before any lookup, when the request's IP is over its limit. */
      refuseIfOver(request: FastifyRequest): void;
      /** Counts a failed credential of the request's IP; 429 if this one went over the limit. */
      record(request: FastifyRequest): Promise<void>;
      /** Where the failures are counted (for metrics): memory, or Redis with its circuit. */
      stats(): RateLimitStats;
    };
  }
}

const WINDOW_MS = 60_000;
const MAX_BLOCKED_IPS = 100_000;

/** 429 `{success:false, error}` with Retry-After: too many failed credentials from this address. */
export class TooManyFailuresError extends TooManyRequestsError {
  constructor(retryAfterSeconds: number) {
    super(retryAfterSeconds, 'Too many failed authentication attempts from this address; try again later');
  }
}

/**
 * Failed credentials are limited per client IP (`request.ip`, so behind TRUST_PROXY the client
 * our proxy names): unknown, malformed or revoked API keys, session cookies that match no session,
 * and SSO tokens the verifier refuses (unknown issuer, unknown key, bad signature...). At most
 * FAILED_AUTH_PER_MINUTE of them in any sliding minute (the window of rate-limit/sliding-window.ts,
 * shared through Redis when REDIS_URL is set); the one past it gets 429, and from then on every
 * request of that IP that carries a credential is refused with 429 and `Retry-After` before
 * anything is looked up, until the oldest counted failure leaves the window. So nobody can make
 * the LMS look up keys, sessions or partners without limit. Successful requests never count.
 *
 * The "over" state is kept in each process: with several instances each learns it from the shared
 * count at its own next failure, so an IP gets at most the limit plus one lookup per instance.
 */
export default fp<FailedCredentialsOptions>(
  async (app, opts) => {
    const policy: RateLimitPolicy = { limit: app.config.FAILED_AUTH_PER_MINUTE, windowMs: WINDOW_MS };
    const { store, stats } = createLimiterStore(app, policy, {
      label: 'failed-credential limit',
      keySuffix: 'failed-auth:',
      keyPrefix: opts.redisKeyPrefix,
      commandTimeoutMs: opts.redisCommandTimeoutMs,
    });
    /** IP → time (ms) until which its credentials are refused unseen. */
    const blockedUntil = new Map<string, number>();

    function refuseIfOver(request: FastifyRequest): void {
      const until = blockedUntil.get(request.ip);
      if (until === undefined) return;
      const now = app.clock().getTime();
      if (until <= now) return;
      app.metrics.rateLimitDecision('failed_credentials', false);
      throw new TooManyFailuresError(Math.max(1, Math.ceil((until - now) / 1000)));
    }

    async function record(request: FastifyRequest): Promise<void> {
      const now = app.clock().getTime();
      const result = await store.hit(request.ip, now);
      app.metrics.rateLimitDecision('failed_credentials', result.allowed);
      if (result.allowed) return;
      if (blockedUntil.size >= MAX_BLOCKED_IPS) {
        for (const [ip, until] of blockedUntil) if (until <= now) blockedUntil.delete(ip);
        if (blockedUntil.size >= MAX_BLOCKED_IPS) blockedUntil.clear();
      }
      const previous = blockedUntil.get(request.ip);
      blockedUntil.set(request.ip, now + result.resetMs);
      // Once per flood, not once per refused request: a flood keeps re-blocking as its oldest failures leave the window.
      if (previous === undefined || previous <= now - WINDOW_MS)
        request.log.warn({ ip: request.ip }, 'too many failed credentials from this address: refusing its credentials for a while');
      throw new TooManyFailuresError(Math.max(1, Math.ceil(result.resetMs / 1000)));
    }

    app.decorate('failedCredentials', { refuseIfOver, record, stats });
  },
  { name: 'failed-credentials', dependencies: ['metrics'] },
);
