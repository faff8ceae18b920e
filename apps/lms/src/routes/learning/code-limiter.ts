import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { CODE_ATTEMPTS, CODE_WINDOW_MS, type CodeAttemptLimiter } from '../../domain/learning/enrollment.js';
import { createLimiterStore } from '../../rate-limit/limiter-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The enrolment-code limiter for a request: per (user, course) and per (client address, course). */
    enrolmentCodeAttempts(request: FastifyRequest): CodeAttemptLimiter;
  }
}

/**
 * Enrolment codes are short secrets a person types, so guessing them is limited, in sliding
 * windows of 15 minutes: at most CODE_ATTEMPTS (5) code attempts per user and course, and at most
 * ENROLMENT_CODE_ATTEMPTS_PER_ADDRESS (50) per client address and course, whatever the accounts
 * (one address with ten accounts had fifty guesses when only the person counted). Every attempt
 * counts, right or wrong, before the code is compared, so a refused guess cannot be told from a
 * wrong one. The address limit is generous because a lecture hall or a workshop enrols from one
 * NAT address; raise it for bigger rooms. Shared through Redis when REDIS_URL is set. One limiter
 * for the JSON route and the page form, so both count together.
 */
export default fp(
  async (app) => {
    const windowMs = CODE_WINDOW_MS;
    const label = 'enrolment-code limit';
    const people = createLimiterStore(app, { limit: CODE_ATTEMPTS, windowMs }, { label, keySuffix: 'enrolment-code:' });
    const addresses = createLimiterStore(
      app,
      { limit: app.config.ENROLMENT_CODE_ATTEMPTS_PER_ADDRESS, windowMs },
      { label, keySuffix: 'enrolment-code-address:' },
    );
    app.decorate('enrolmentCodeAttempts', (request: FastifyRequest): CodeAttemptLimiter => {
      return async ({ userId, courseId }) => {
        const now = app.clock().getTime();
        for (const [store, key] of [
          [people.store, `${userId}:${courseId}`],
          [addresses.store, `${request.ip}:${courseId}`],
        ] as const) {
          const result = await store.hit(key, now);
          if (!result.allowed) return { allowed: false, retryAfterMs: result.resetMs };
        }
        return { allowed: true, retryAfterMs: 0 };
      };
    });
  },
  { name: 'enrolment-code-limiter' },
);
