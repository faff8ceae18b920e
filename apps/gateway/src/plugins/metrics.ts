import { listenForMetrics, type MetricsExposition, type MetricsListener } from '@lms/server-kit';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PartnerAccess } from '../domain/partner-access.js';
import { type UpstreamAnswer, UpstreamTimeout } from '../upstream.js';

export type AccessRoute = 'sso_verify' | 'course_creation';
export type AccessDecision = 'allowed' | 'bad_token' | 'unknown_issuer' | 'ip_not_allowed';

/** The gateway's one decision (domain/partner-access.ts) as a label. */
export function accessDecision(access: PartnerAccess): AccessDecision {
  if (access.ok) return 'allowed';
  return access.statusCode === 403 ? 'ip_not_allowed' : access.statusCode === 401 ? 'unknown_issuer' : 'bad_token';
}

export interface GatewayMetrics {
  /** This app's metrics (one registry per app: tests build several apps in one process). */
  readonly registry: Registry;
  /** What a scrape gets: this app's metrics, then the process's (CPU, memory, event loop, GC). */
  render(): Promise<MetricsExposition>;
  /** Serves `GET /metrics` on a listener of its own (server.ts; tests with port 0), closed with the app. */
  listen(where: { host: string; port: number }): Promise<MetricsListener>;
  /** How the issuer and caller-IP check ended for a partner call. */
  partnerAccess(route: AccessRoute, decision: AccessDecision): void;
  /** Times a forwarded call to the LMS and counts how it ended; passes its answer or error through. */
  timeUpstream(call: Promise<UpstreamAnswer>): Promise<UpstreamAnswer>;
  /** An edit of PARTNERS_FILE was refused (the last good registry stays). */
  partnersFileRejected(): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Named apart from the LMS's `metrics`: both augment FastifyInstance in tests that run both. */
    gatewayMetrics: GatewayMetrics;
  }
}

/** The `route` label of a request that matched no route: one series, whatever the URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Seconds: the gateway's own work is sub-millisecond; forwarded calls wait for the LMS (up to UPSTREAM_TIMEOUT_MS, 10 s). */
export const REQUEST_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Process metrics describe the process, not an app: one registry for every app in it, started
 * with the first app (CPU time and event-loop lag are measured from then on).
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * Prometheus metrics of the gateway (prom-client): requests by route pattern and status, the
 * partner-access decisions, the calls forwarded to the LMS and how they ended, the partner
 * registry. The README's "Metrics" section lists every metric.
 */
export default fp(
  async (app) => {
    const registry = new Registry();
    const registers = [registry];
    const processWide = processMetrics();

    const requestDuration = new Histogram({
      name: 'gateway_http_request_duration_seconds',
      help: 'Time from the request arriving to the response sent, by method, route pattern and status; its _count is the number of requests',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: REQUEST_DURATION_BUCKETS,
      registers,
    });
    app.addHook('onResponse', (request, reply, done) => {
      requestDuration.observe(
        { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status_code: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
      done();
    });

    const access = new Counter({
      name: 'gateway_partner_access_total',
      help: 'Issuer and caller-IP checks of partner calls by route (sso_verify, course_creation) and decision (allowed, bad_token, unknown_issuer, ip_not_allowed)',
      labelNames: ['route', 'decision'] as const,
      registers,
    });

    const upstreamCalls = new Counter({
      name: 'gateway_upstream_requests_total',
      help: 'Course creations forwarded to the LMS by outcome (answered, with the LMS status; timeout: 504; unreachable: 502)',
      labelNames: ['outcome', 'status_code'] as const,
      registers,
    });
    const upstreamDuration = new Histogram({
      name: 'gateway_upstream_request_duration_seconds',
      help: 'Time the LMS took to answer a forwarded call (or to fail), by outcome',
      labelNames: ['outcome'] as const,
      buckets: REQUEST_DURATION_BUCKETS,
      registers,
    });

    new Gauge({
      name: 'gateway_partners',
      help: 'Partners in the registry in use (the last good PARTNERS_FILE)',
      registers,
      collect() {
        this.set(app.partners.issuers().length);
      },
    });
    const rejections = new Counter({
      name: 'gateway_partners_file_rejections_total',
      help: 'Edits of PARTNERS_FILE refused (unreadable or invalid); the last good registry stays in use',
      registers,
    });

    let listener: MetricsListener | undefined;
    const render = async (): Promise<MetricsExposition> => {
      const merged = Registry.merge([registry, processWide]);
      return { contentType: merged.contentType, body: await merged.metrics() };
    };
    const metrics: GatewayMetrics = {
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
      partnerAccess(route, decision) {
        access.inc({ route, decision });
      },
      async timeUpstream(call) {
        const stopTimer = upstreamDuration.startTimer();
        try {
          const answer = await call;
          stopTimer({ outcome: 'answered' });
          upstreamCalls.inc({ outcome: 'answered', status_code: String(answer.status) });
          return answer;
        } catch (err) {
          const outcome = err instanceof UpstreamTimeout ? 'timeout' : 'unreachable';
          stopTimer({ outcome });
          upstreamCalls.inc({ outcome, status_code: '' });
          throw err;
        }
      },
      partnersFileRejected() {
        rejections.inc();
      },
    };
    app.decorate('gatewayMetrics', metrics);

    app.addHook('onClose', async () => {
      await listener?.close();
    });
  },
  { name: 'metrics' },
);
