import { type AppMetrics, appMetrics, REQUEST_DURATION_BUCKETS } from '@lms/server-kit';
import fp from 'fastify-plugin';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { PartnerAccess } from '../domain/partner-access.js';
import { type UpstreamAnswer, UpstreamTimeout } from '../upstream.js';

export type AccessRoute = 'sso_verify' | 'course_creation' | 'authoring' | 'partner_credits' | 'partner_evidence' | 'partner_teachers';
export type AccessDecision = 'allowed' | 'bad_token' | 'unknown_issuer' | 'ip_not_allowed';

/** The gateway's one decision (domain/partner-access.ts) as a label. */
export function accessDecision(access: PartnerAccess): AccessDecision {
  if (access.ok) return 'allowed';
  return access.statusCode === 403 ? 'ip_not_allowed' : access.statusCode === 401 ? 'unknown_issuer' : 'bad_token';
}

export interface GatewayMetrics extends AppMetrics {
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

/**
 * Prometheus metrics of the gateway (prom-client): requests by route pattern and status, the
 * partner-access decisions, the calls forwarded to the LMS and how they ended, the partner
 * registry. docs/operations.md, "Metrics", lists every metric.
 */
export default fp(
  async (app) => {
    const base = appMetrics(app, 'gateway');
    const registers = [base.registry];

    const access = new Counter({
      name: 'gateway_partner_access_total',
      help: 'Issuer and caller-IP checks of partner calls by route (sso_verify, course_creation, authoring, partner_credits, partner_evidence, partner_teachers) and decision (allowed, bad_token, unknown_issuer, ip_not_allowed)',
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

    const metrics: GatewayMetrics = {
      ...base,
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
  },
  { name: 'metrics' },
);
