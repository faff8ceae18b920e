import { HealthResponse, ReadyResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', { schema: { hide: true, response: { 200: HealthResponse } } }, async () => ({ status: 'ok' as const }));
  // The gateway has no database; it is ready once its partner registry has loaded (it has, if it
  // started), until a shutdown signal: then 503 at once, so the load balancer takes it out.
  app.get('/readyz', { schema: { hide: true, response: { 200: ReadyResponse, 503: ReadyResponse } } }, async (_request, reply) => {
    if (app.lifecycle.draining) return reply.code(503).send({ status: 'unavailable', shuttingDown: true });
    return { status: 'ready' as const };
  });
};

export default healthRoutes;
