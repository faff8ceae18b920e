import fp from 'fastify-plugin';
import { GatewayError } from './error-handler.js';

/** Where a stopping gateway is: serving as usual while it drains, refusing once it closes. */
export interface Lifecycle {
  /** True from the shutdown signal on: /readyz answers 503 and responses carry `Connection: close`. */
  readonly draining: boolean;
  /** True once app.close() began: requests still arriving get a 503. */
  readonly closing: boolean;
  /** Called by server.ts on SIGTERM/SIGINT, before it waits SHUTDOWN_DRAIN_MS and closes the app. */
  startDraining(): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    lifecycle: Lifecycle;
  }
}

const CLOSING_RETRY_AFTER_SECONDS = 1;

/**
 * Graceful shutdown, the app's part (server.ts owns the signal and the timing), as in the LMS:
 * while draining, /readyz is 503 and every response carries `Connection: close`; once closing,
 * a request still arriving on an open connection gets a 503 in the route's error shape with
 * Retry-After (Fastify's own body is turned off with return503OnClosing: false in app.ts).
 */
export default fp(
  async (app) => {
    let draining = false;
    let closing = false;
    app.decorate('lifecycle', {
      get draining() {
        return draining;
      },
      get closing() {
        return closing;
      },
      startDraining() {
        draining = true;
      },
    });

    app.addHook('preClose', async () => {
      draining = true;
      closing = true;
    });
    app.addHook('onRequest', async (_request, reply) => {
      if (!closing) return;
      // The error shape, whatever the route's own response schemas say about a 503 (/readyz's).
      reply.header('connection', 'close').header('retry-after', String(CLOSING_RETRY_AFTER_SECONDS)).serializer(JSON.stringify);
      throw new GatewayError(503, 'The gateway is shutting down; retry the request');
    });
    app.addHook('onSend', async (_request, reply) => {
      if (draining) reply.header('connection', 'close');
    });
  },
  { name: 'lifecycle' },
);
