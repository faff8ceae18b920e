import { ErrorResponse } from '@lms/contracts';
import { z } from 'zod';
import type { LmsApp } from '../../src/app.js';
import { NotFoundError } from '../../src/errors.js';

/**
 * Test-only routes shaped like the catalog's (`config: { auth: true, rateLimited: true }`), so the
 * limiter is tested without the catalog. Add them after buildApp, before `ready()`.
 */
export function addRateLimitedTestRoutes(app: LmsApp) {
  app.get(
    '/t',
    { config: { auth: true, rateLimited: true }, schema: { response: { 200: z.object({ ok: z.literal(true) }), 429: ErrorResponse } } },
    async () => ({ ok: true as const }),
  );
  app.get('/t/missing', { config: { auth: true, rateLimited: true } }, async () => {
    throw new NotFoundError('Course not found');
  });
  app.get('/t/unlimited', { config: { auth: true } }, async () => ({ ok: true }));
}
