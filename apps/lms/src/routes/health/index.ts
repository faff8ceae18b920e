import { HealthResponse, ReadyResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/**
 * Liveness (the process answers) and readiness (the database answers, and the instance is not
 * stopping). A stalled database makes `/readyz` wait at most DB_CONNECT_TIMEOUT_MS +
 * DB_STATEMENT_TIMEOUT_MS + 1 s, then 503.
 */
const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', { schema: { hide: true, response: { 200: HealthResponse } } }, async () => ({ status: 'ok' as const }));

  app.get('/readyz', { schema: { hide: true, response: { 200: ReadyResponse, 503: ReadyResponse } } }, async (request, reply) => {
    // A stopping instance says so at once, so the load balancer takes it out before it closes.
    if (app.lifecycle.draining) return reply.code(503).send({ status: 'unavailable', shuttingDown: true });
    try {
      await app.dbHandle.ping();
      return { status: 'ready' as const, database: 'up' as const };
    } catch (err) {
      // Probed every few seconds: the outage is logged once by the database plugin.
      request.log.debug({ err }, 'readiness: database unreachable');
      return reply.code(503).send({ status: 'unavailable', database: 'down' });
    }
  });
};

export default healthRoutes;
