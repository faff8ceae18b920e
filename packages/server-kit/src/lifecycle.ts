import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** Where a stopping instance is: serving as usual while it drains, refusing once it closes. */
export interface Lifecycle {
  /** True from the shutdown signal on: /readyz answers 503 and responses carry `Connection: close`. */
  readonly draining: boolean;
  /** True once app.close() began: the listener is closed; requests still arriving get a 503. */
  readonly closing: boolean;
  /** Called on SIGTERM/SIGINT (stopOnSignals), before the drain's wait and app.close(). */
  startDraining(): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    lifecycle: Lifecycle;
  }
}

/** Seconds a client refused by a closing instance should wait before it retries (elsewhere). */
export const CLOSING_RETRY_AFTER_SECONDS = 1;

export interface LifecycleOptions {
  /**
   * The error thrown for a request that arrives once closing began: the app's error handler turns
   * it into its 503 in the app's error shape. The plugin puts `Retry-After:
   * CLOSING_RETRY_AFTER_SECONDS` on the reply itself.
   */
  closingError: () => Error;
}

/**
 * Graceful shutdown, the app's part (stopOnSignals below owns the signal and the timing), the same
 * in both apps:
 * - draining: /readyz says 503 at once, so a load balancer stops sending new requests, while
 *   every request still gets a full answer, with `Connection: close` so that keep-alive clients
 *   open their next connection elsewhere instead of reusing this one as it goes away;
 * - closing (app.close(), with Fastify's forceCloseConnections 'idle'): idle sockets are closed,
 *   in-flight requests finish; a request that still arrives on an open connection gets the app's
 *   own 503 (`closingError`, in the route's error shape) with Retry-After (Fastify's own 503 body
 *   is turned off with return503OnClosing: false in app.ts).
 * Registered before any plugin whose onRequest hook would touch the database.
 */
export const lifecyclePlugin = fp<LifecycleOptions>(
  async (app, options) => {
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
      throw options.closingError();
    });
    app.addHook('onSend', async (_request, reply) => {
      if (draining) reply.header('connection', 'close');
    });
  },
  { name: 'lifecycle' },
);

/** How long in-flight requests may take to finish once the listener is closed. */
export const CLOSE_TIMEOUT_MS = 10_000;

/**
 * Graceful shutdown on SIGTERM/SIGINT, called by both apps' server.ts: the app drains (/readyz
 * 503, `Connection: close` on every response, see lifecyclePlugin) for `drainMs`, then
 * app.close() closes the listener and the idle sockets and waits for the requests in flight;
 * then exit 0. A second signal skips the rest of the drain; close taking over `closeTimeoutMs`
 * exits 1.
 */
export function stopOnSignals(app: FastifyInstance, drainMs: number, closeTimeoutMs = CLOSE_TIMEOUT_MS): void {
  // Said at start, not discovered at the first SIGTERM as a crash that skips the drain.
  if (!app.hasDecorator('lifecycle')) throw new Error('stopOnSignals: register lifecyclePlugin on the app first');
  let phase: 'serving' | 'draining' | 'closing' = 'serving';
  let drainTimer: NodeJS.Timeout | undefined;
  const close = async () => {
    if (phase === 'closing') return;
    phase = 'closing';
    clearTimeout(drainTimer);
    app.log.info('shutdown: closing the listener, waiting for the requests in flight');
    setTimeout(() => {
      app.log.error(`shutdown: requests still in flight after ${closeTimeoutMs} ms; exiting`);
      process.exit(1);
    }, closeTimeoutMs).unref();
    try {
      await app.close();
      app.log.info('shutdown: done');
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error while shutting down');
      process.exit(1);
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (phase === 'draining') {
      app.log.info({ signal }, 'shutdown: second signal, closing without waiting for the rest of the drain');
      void close();
      return;
    }
    if (phase !== 'serving') return;
    phase = 'draining';
    app.lifecycle.startDraining();
    app.log.info({ signal, drainMs }, 'shutdown: draining (/readyz is 503, responses carry Connection: close)');
    drainTimer = setTimeout(() => void close(), drainMs);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
