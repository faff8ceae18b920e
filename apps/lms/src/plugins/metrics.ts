import type { SsoErrorCode } from '@lms/contracts';
import { type AppMetrics, appMetrics } from '@lms/server-kit';
import fp from 'fastify-plugin';
import { Counter, Gauge } from 'prom-client';
import { ssoReasonLabel } from '../metrics/sso-reasons.js';
import { type QueueStats, queueStats } from '../domain/partner-events/delivery.js';
import { registerJobMetrics } from '../jobs/metrics.js';
import type { RateLimitStats } from './rate-limit.js';

export type Limiter = 'api_key' | 'session' | 'authoring' | 'documents' | 'address' | 'failed_credentials';
export type SsoResult = 'signed_in' | SsoErrorCode;

export interface LmsMetrics extends AppMetrics {
  /** A rate limiter's decision: the API-key, session or address window, or the per-IP limit of failed credentials. */
  rateLimitDecision(limiter: Limiter, allowed: boolean): void;
  /** How one SSO sign-in ended (the callback, or /sso/verify when it had no token). */
  ssoSignIn(result: SsoResult, reason?: string): void;
  /** Counts how a course creation with an Idempotency-Key ended; passes its result or error through. */
  countIdempotent<T extends { replayed: boolean; statusCode: number }>(work: Promise<T>): Promise<T>;
  /** How one partner-event delivery attempt ended (delivered, retry, gone, failed, blocked). */
  webhookDelivery(result: string): void;
  /** Deliveries dropped after waiting for a disabled endpoint longer than WEBHOOK_LOG_RETENTION_DAYS. */
  webhookDropped(count: number): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: LmsMetrics;
  }
}

/**
 * Prometheus metrics of the LMS (prom-client). Counters are incremented where an outcome is
 * decided (the plugins and routes call `app.metrics.*`); gauges and the counters other modules
 * already keep (the JWKS cache's, the limiter's circuit, the database pool's) are read at scrape
 * time. Label values are bounded: route patterns, never URLs; SSO reasons mapped to codes.
 * docs/operations.md, "Metrics", lists every metric.
 */
export default fp(
  async (app) => {
    const base = appMetrics(app, 'lms');
    const registers = [base.registry];

    const rateLimitDecisions = new Counter({
      name: 'lms_rate_limit_decisions_total',
      help: 'Rate-limit decisions: limiter="api_key" per API key, "session" per signed-in person on the costly reads, "authoring" per person or partner on authoring requests, "documents" per person on PDFs and CSV exports, "address" per client IP on the API documents (refused = 429); limiter="failed_credentials" per client IP (allowed = a failed credential counted under the limit, refused = 429)',
      labelNames: ['limiter', 'decision'] as const,
      registers,
    });

    const ssoSignIns = new Counter({
      name: 'lms_sso_sign_ins_total',
      help: 'SSO sign-ins by result (signed_in, missing_token, invalid_token, sso_failed) and a bounded reason code',
      labelNames: ['result', 'reason'] as const,
      registers,
    });

    const idempotent = new Counter({
      name: 'lms_idempotent_course_creations_total',
      help: 'Course creations with an Idempotency-Key: created, replayed (an earlier answer sent again), refused (the work answered 4xx), in_progress (409), key_reused (422), failed (5xx, nothing kept)',
      labelNames: ['outcome'] as const,
      registers,
    });

    // Read at scrape time: what the JWKS cache counted (packages/partner-auth JwksCache.stats).
    const jwksStat = (name: string, help: string, read: (stats: typeof app.partnerKeys.jwks.stats) => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read(app.partnerKeys.jwks.stats));
        },
      });
    jwksStat('lms_jwks_fetches_total', "Fetches of partners' JWKS URLs (first contact, refresh, unknown kid)", (s) => s.fetches);
    jwksStat(
      'lms_jwks_fetch_failures_total',
      'JWKS fetches that failed (timeout, HTTP error, not a JWKS); known keys stay in use',
      (s) => s.failures,
    );
    jwksStat(
      'lms_jwks_stale_keys_served_total',
      "Tokens verified with keys older than the 1 h max age (refresh running, or the partner's URL failing)",
      (s) => s.staleServed,
    );
    jwksStat(
      'lms_jwks_unknown_kid_refetches_skipped_total',
      'Tokens with an unknown kid refused without a refetch (cooldown not over)',
      (s) => s.kidMissesWithoutRefetch,
    );

    new Gauge({
      name: 'lms_db_available',
      help: '1 while the database answers, 0 from the connection or statement that failed for lack of it until one succeeds',
      registers,
      collect() {
        this.set(app.dbHandle.stats().available ? 1 : 0);
      },
    });
    new Counter({
      name: 'lms_db_outages_total',
      help: 'Times the database stopped answering (PostgreSQL)',
      registers,
      collect() {
        this.reset();
        this.inc(app.dbHandle.stats().outages);
      },
    });
    // PostgreSQL only: PGlite is one in-process connection, no pool, no network to lose.
    if (app.dbHandle.kind === 'postgres') {
      const dbStats = () => app.dbHandle.stats();
      const poolGauge = (name: string, help: string, read: (pool: NonNullable<ReturnType<typeof dbStats>['pool']>) => number) =>
        new Gauge({
          name,
          help,
          registers,
          collect() {
            const pool = dbStats().pool;
            if (pool) this.set(read(pool));
          },
        });
      poolGauge('lms_db_pool_connections', 'PostgreSQL connections open in the pool (busy and idle)', (p) => p.total);
      poolGauge('lms_db_pool_idle_connections', 'PostgreSQL connections open and idle', (p) => p.idle);
      poolGauge('lms_db_pool_waiting_requests', 'Database calls waiting for a connection of the full pool', (p) => p.waiting);
      poolGauge('lms_db_pool_max_connections', 'The pool size (DB_POOL_MAX)', (p) => p.max);
      new Counter({
        name: 'lms_db_errors_total',
        help:
          'PostgreSQL failures by kind: connect (a new connection failed), pool_timeout (no free connection within ' +
          'DB_CONNECT_TIMEOUT_MS), unavailable (a statement cut, stalled or timed out), statement (refused by the server), ' +
          'conflict (a transaction rolled back for a concurrent one: deadlock or serialization failure), idle_connection (a pooled connection broke while idle)',
        labelNames: ['kind'] as const,
        registers,
        collect() {
          this.reset();
          const errors = dbStats().errors;
          if (!errors) return;
          this.inc({ kind: 'connect' }, errors.connect);
          this.inc({ kind: 'pool_timeout' }, errors.poolTimeout);
          this.inc({ kind: 'unavailable' }, errors.unavailable);
          this.inc({ kind: 'statement' }, errors.statement);
          this.inc({ kind: 'conflict' }, errors.conflict);
          this.inc({ kind: 'idle_connection' }, errors.idleConnection);
        },
      });
    }

    // The limiters' Redis store (storeWithFallback's stats): only with REDIS_URL.
    const limiterStats = (): Array<[Limiter, RateLimitStats]> => [
      ['api_key', app.rateLimitStats()],
      ['failed_credentials', app.failedCredentials.stats()],
    ];
    new Gauge({
      name: 'lms_rate_limit_circuit_state',
      help: 'The Redis circuit of each limiter (REDIS_URL set): 1 for its current state (closed: Redis in use; open: memory, Redis not asked; half-open: one probe)',
      labelNames: ['limiter', 'state'] as const,
      registers,
      collect() {
        this.reset();
        for (const [limiter, stats] of limiterStats()) {
          if (stats.store !== 'redis') continue;
          for (const state of ['closed', 'open', 'half-open'] as const) this.set({ limiter, state }, stats.circuit === state ? 1 : 0);
        }
      },
    });
    const limiterCounter = (name: string, help: string, read: (stats: RateLimitStats & { store: 'redis' }) => number) =>
      new Counter({
        name,
        help,
        labelNames: ['limiter'] as const,
        registers,
        collect() {
          this.reset();
          for (const [limiter, stats] of limiterStats()) if (stats.store === 'redis') this.inc({ limiter }, read(stats));
        },
      });
    limiterCounter(
      'lms_rate_limit_redis_calls_total',
      'Limiter requests that asked Redis and waited for its answer or its timeout',
      (s) => s.redisCalls,
    );
    limiterCounter(
      'lms_rate_limit_redis_failures_total',
      'Of those, the ones that failed or timed out (answered from memory)',
      (s) => s.redisFailures,
    );
    limiterCounter(
      'lms_rate_limit_memory_answers_total',
      'Limiter requests answered from memory without asking Redis (connection down, circuit open)',
      (s) => s.memoryAnswers,
    );
    limiterCounter('lms_rate_limit_circuit_openings_total', 'Times the Redis circuit opened', (s) => s.circuitOpenings);

    // Partner events (docs/operations.md, "Partner events").
    const webhookDeliveries = new Counter({
      name: 'lms_webhook_deliveries_total',
      help: 'Partner-event delivery attempts by result: delivered (2xx), retry (error, timeout, non-2xx; tried again later), gone (410: endpoint disabled), failed (schedule ran out), blocked (URL refused by our outbound rules: endpoint disabled, deliveries wait)',
      labelNames: ['result'] as const,
      registers,
    });
    const webhookDropped = new Counter({
      name: 'lms_webhook_dropped_total',
      help: 'Partner-event deliveries dropped after waiting for a disabled endpoint longer than WEBHOOK_LOG_RETENTION_DAYS',
      registers,
    });
    let queue: Promise<QueueStats> | null = null;
    // One query per scrape for both gauges (whichever collects first starts it).
    const readQueue = () => {
      queue ??= queueStats(app.db, new Date()).finally(() => setTimeout(() => (queue = null), 0));
      return queue;
    };
    new Gauge({
      name: 'lms_webhook_queue_depth',
      help: 'Partner-event deliveries waiting to be sent (pending, active endpoints)',
      registers,
      async collect() {
        this.set((await readQueue().catch(() => ({ depth: 0 }))).depth);
      },
    });
    new Gauge({
      name: 'lms_webhook_waiting_for_disabled',
      help: 'Partner-event deliveries waiting for a disabled endpoint (sent when it is enabled; dropped after WEBHOOK_LOG_RETENTION_DAYS)',
      registers,
      async collect() {
        this.set((await readQueue().catch(() => ({ waitingForDisabled: 0 }))).waitingForDisabled);
      },
    });
    new Gauge({
      name: 'lms_webhook_oldest_pending_age_seconds',
      help: 'Age of the oldest partner-event delivery not yet delivered (0 when none)',
      registers,
      async collect() {
        this.set((await readQueue().catch(() => ({ oldestAgeSeconds: 0 }))).oldestAgeSeconds);
      },
    });

    // The job queue (jobs/): waiting, oldest waiting age, failed.
    registerJobMetrics(app, registers);

    // Chapters' Markdown (lib/markdown/renderer.ts), read at scrape time.
    new Counter({
      name: 'lms_markdown_renders_total',
      help: "Chapter texts rendered (not from the cache) by outcome: rendered, too_deep (HTML nested deeper than the limit: shown with the author's HTML as text), timed_out and failed (shown as plain text)",
      labelNames: ['outcome'] as const,
      registers,
      collect() {
        this.reset();
        for (const [outcome, n] of Object.entries(app.markdown.stats().renders)) this.inc({ outcome }, n);
      },
    });
    new Counter({
      name: 'lms_markdown_cache_hits_total',
      help: 'Chapter texts shown from the cache of rendered Markdown (or sharing a render in progress)',
      registers,
      collect() {
        this.reset();
        this.inc(app.markdown.stats().cacheHits);
      },
    });
    new Counter({
      name: 'lms_markdown_busy_refusals_total',
      help: 'Pages answered 503 because too many chapter texts were waiting for the Markdown worker',
      registers,
      collect() {
        this.reset();
        this.inc(app.markdown.stats().busyRefusals);
      },
    });

    const metrics: LmsMetrics = {
      ...base,
      webhookDelivery(result) {
        webhookDeliveries.inc({ result });
      },
      webhookDropped(count) {
        webhookDropped.inc(count);
      },
      rateLimitDecision(limiter, allowed) {
        rateLimitDecisions.inc({ limiter, decision: allowed ? 'allowed' : 'refused' });
      },
      ssoSignIn(result, reason) {
        ssoSignIns.inc({ result, reason: result === 'signed_in' ? '' : ssoReasonLabel(result, reason) });
      },
      async countIdempotent(work) {
        try {
          const result = await work;
          idempotent.inc({ outcome: result.replayed ? 'replayed' : result.statusCode < 300 ? 'created' : 'refused' });
          return result;
        } catch (err) {
          const status = (err as { statusCode?: unknown } | null)?.statusCode;
          idempotent.inc({ outcome: status === 409 ? 'in_progress' : status === 422 ? 'key_reused' : 'failed' });
          throw err;
        }
      },
    };
    app.decorate('metrics', metrics);
  },
  { name: 'metrics', dependencies: ['database', 'markdown'] },
);
