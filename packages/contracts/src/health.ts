import { z } from 'zod';

export const HealthResponse = z.object({ status: z.literal('ok') });
/**
 * `/readyz`: 200 ready, 503 unavailable. `database` (the LMS) says whether it answers;
 * `shuttingDown` is set from the shutdown signal on, while the instance drains.
 */
export const ReadyResponse = z.object({
  status: z.enum(['ready', 'unavailable']),
  database: z.enum(['up', 'down']).optional(),
  shuttingDown: z.literal(true).optional(),
});
