import fp from 'fastify-plugin';
import { CODE_ATTEMPTS, CODE_WINDOW_MS, type CodeAttemptLimiter } from '../../domain/learning/enrollment.js';
import { createLimiterStore } from '../../rate-limit/limiter-store.js';
import type { RateLimitPolicy } from '../../rate-limit/sliding-window.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Enrolment-code attempts per (user, course): CODE_ATTEMPTS in any CODE_WINDOW_MS. */
    enrolmentCodeAttempt: CodeAttemptLimiter;
  }
}

/**
 * Enrolment codes are short secrets a person types, so guessing them is limited: at most
 * CODE_ATTEMPTS (5) code attempts per user and course in any sliding 15 minutes, through the
 * app's sliding-window store (shared through Redis when REDIS_URL is set, memory when it is
 * unset or failing). One store for the JSON route and the page form, so both count together.
 */
export default fp(
  async (app) => {
    const policy: RateLimitPolicy = { limit: CODE_ATTEMPTS, windowMs: CODE_WINDOW_MS };
    const { store } = createLimiterStore(app, policy, { label: 'enrolment-code limit', keySuffix: 'enrolment-code:' });
    app.decorate('enrolmentCodeAttempt', async (key: string) => {
      const result = await store.hit(key, app.clock().getTime());
      return { allowed: result.allowed, retryAfterMs: result.resetMs };
    });
    app.addHook('onClose', async () => {
      await store.close();
    });
  },
  { name: 'enrolment-code-limiter' },
);
