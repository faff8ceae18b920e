import { HealthResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', { schema: { hide: true, response: { 200: HealthResponse } } }, async () => ({ status: 'ok' as const }));
  // The gateway has no database; it is ready once its partner registry has loaded (it has, if it started).
  app.get(
    '/readyz',
    { schema: { hide: true, response: { 200: z.object({ status: z.literal('ready') }) } } },
    async () => ({ status: 'ready' as const }),
  );
};

export default healthRoutes;
