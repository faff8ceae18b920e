// What both apps' Prometheus metrics share: one registry per app with its requests by route
// pattern and status, the process's own metrics next to it, and the listener that serves them.
// Each app's metrics plugin adds its own metrics to `registry` and decorates the app.

import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { listenForMetrics, type MetricsExposition, type MetricsListener } from './metrics-listener.js';

/** The `route` label of a request that matched no route: one series, whatever the URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Seconds. The apps answer in milliseconds (shared catalog answers in well under one), pages and
 * SSO in tens of them; a database outage turns into 503s after the connect timeout (3 s) or the
 * statement timeout (5 s + 1 s), and the gateway's forwarded calls wait up to
 * UPSTREAM_TIMEOUT_MS (10 s): the top buckets catch those.
 */
export const REQUEST_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Process metrics describe the process, not an app: one registry for every app in it (tests run
 * both apps in one process), started with the first app (CPU time and event-loop lag are
 * measured from then on).
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export interface AppMetrics {
  /** This app's metrics (one registry per app: tests build several apps in one process). */
  readonly registry: Registry;
  /** What a scrape gets: this app's metrics, then the process's (CPU, memory, event loop, GC). */
  render(): Promise<MetricsExposition>;
  /**
   * Serves `GET /metrics` on a listener of its own (server.ts calls it with METRICS_HOST and
   * METRICS_PORT; tests with port 0), closed with the app. Rejects when the port cannot be bound.
   */
  listen(where: { host: string; port: number }): Promise<MetricsListener>;
}

/**
 * The app's registry with `<prefix>_http_request_duration_seconds` (method, route pattern, status;
 * counted in an onResponse hook), rendering with the process's metrics, and the listener, which
 * closes with the app. Called first by each app's metrics plugin.
 */
export function appMetrics(app: FastifyInstance, prefix: string): AppMetrics {
  const registry = new Registry();
  const processWide = processMetrics();

  const requestDuration = new Histogram({
    name: `${prefix}_http_request_duration_seconds`,
    help: 'Time from the request arriving to the response sent, by method, route pattern and status; its _count is the number of requests',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: REQUEST_DURATION_BUCKETS,
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    requestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });

  let listener: MetricsListener | undefined;
  const render = async (): Promise<MetricsExposition> => {
    const merged = Registry.merge([registry, processWide]);
    return { contentType: merged.contentType, body: await merged.metrics() };
  };
  app.addHook('onClose', async () => {
    await listener?.close();
  });
  return {
    registry,
    render,
    async listen(where) {
      if (listener) throw new Error(`the metrics listener is already open at ${listener.url}`);
      listener = await listenForMetrics({
        ...where,
        render,
        onRenderError: (err) => app.log.error({ err }, 'metrics: a scrape could not be rendered'),
      });
      return listener;
    },
  };
}
