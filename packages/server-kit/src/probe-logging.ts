import type { FastifyInstance } from 'fastify';

const PROBES = new Set(['/healthz', '/readyz']);

/**
 * For Fastify's log controller (`disableRequestLogging`): no info request lines for health probes. Load balancers,
 * compose and the one-command start poll them every few seconds; at info they drowned the
 * requests an operator looks for.
 */
export function isHealthProbe(request: { url?: string }): boolean {
  return PROBES.has((request.url ?? '').split('?')[0]);
}

/**
 * The probes' own line instead: at debug when answered 2xx, at info otherwise (a readiness
 * probe answering 503 is what an operator wants to see when an instance is taken out).
 */
export function logHealthProbes(app: FastifyInstance) {
  app.addHook('onResponse', async (request, reply) => {
    if (!isHealthProbe(request)) return;
    const line = { url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime };
    if (reply.statusCode < 300) request.log.debug(line, 'health probe');
    else request.log.info(line, 'health probe');
  });
}
