import { affectedRows, type Db, type RawSelect, typedRows, type webhookDeliveries } from '@lms/db';
import { sql } from 'drizzle-orm';
import { BlockedUrlError, type OutboundPolicy, postBounded } from './outbound.js';
import { type Claimed, dueDeliveries, type SendDeliveries } from './queue.js';
import { signatureHeader } from './signing.js';

// The delivery side of partner events (docs/architecture.md, "Partner events"): send a claimed
// delivery (queue.ts) signed, log the attempt, and decide what comes next: delivered, retry later
// (backoff with jitter, at least Retry-After: the next attempt's job is written with the record),
// stopped (410: the endpoint is disabled), failed (the schedule ran out), or blocked (our outbound
// rules refuse the URL: the endpoint is disabled at once and its deliveries wait).

export interface DeliverySettings {
  /** Waits before each retry, in ms (the first attempt is immediate); its length is the number of retries. */
  retryScheduleMs: number[];
  /** ± this fraction of each wait, at random (0.2: 80 % to 120 %). */
  jitter: number;
  timeoutMs: number;
  /** How long a claimed delivery is this worker's (must exceed timeoutMs). */
  leaseMs: number;
  /** An endpoint failing every attempt for this long is disabled. */
  disableAfterMs: number;
  /** How much of an answer is read (and kept in the log, cut to EXCERPT_CHARS). */
  maxResponseBytes: number;
  /** The longest Retry-After honoured. */
  maxRetryAfterMs: number;
  policy: OutboundPolicy;
  /** PUBLIC_URL: certificates' verification URLs. */
  publicUrl: string;
}

/** Retries over ≥ 24 h, as the Standard Webhooks guidance: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (≈ 27.6 h). */
export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
const EXCERPT_CHARS = 500;

export type AttemptResult = 'delivered' | 'retry' | 'gone' | 'failed' | 'blocked';

/** The body a receiver gets: Standard Webhooks' {type, timestamp, data}, plus how to order and deduplicate. */
export function eventBody(c: Pick<Claimed, 'eventId' | 'seq' | 'type' | 'data' | 'occurredAt'>, publicUrl: string): string {
  const data: Record<string, unknown> = { ...c.data, eventId: c.eventId, sequence: c.seq };
  const cert = data.certificate as { code?: string } | undefined;
  if (cert?.code) data.certificate = { ...cert, verificationUrl: `${publicUrl.replace(/\/$/, '')}/certificates/${cert.code}` };
  return JSON.stringify({
    type: c.type,
    timestamp: new Date(c.occurredAt).toISOString(),
    data,
    delivery: {
      ordered: false,
      note: 'At least once, in no guaranteed order: deduplicate by webhook-id (data.eventId); order by data.sequence (per partner) or timestamp.',
    },
  });
}

/** Retry-After as ms (seconds or an HTTP date), or null. */
export function retryAfterMs(value: string | string[] | undefined, now: Date): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

export interface AttemptOutcome {
  result: AttemptResult;
  statusCode: number | null;
  latencyMs: number;
}

/** Sends one claimed delivery and records the attempt and what follows (a retry: its job, through `send`). */
export async function attemptDelivery(
  db: Db,
  c: Claimed,
  settings: DeliverySettings,
  clock: () => Date,
  send: SendDeliveries,
): Promise<AttemptOutcome> {
  const started = clock();
  const body = eventBody(c, settings.publicUrl);
  const secrets = [c.secret];
  if (c.previousSecret && c.previousSecretUntil && new Date(c.previousSecretUntil).getTime() > started.getTime()) {
    secrets.push(c.previousSecret);
  }
  const ts = Math.floor(started.getTime() / 1000);
  const headers = {
    'webhook-id': c.eventId,
    'webhook-timestamp': String(ts),
    'webhook-signature': signatureHeader(secrets, c.eventId, ts, body),
    'user-agent': 'lms-webhooks/1.0',
  };
  let statusCode: number | null = null;
  let excerpt: string;
  let wait: number | null = null;
  let result: AttemptResult;
  const t0 = performance.now();
  try {
    const res = await postBounded(c.url, body, headers, {
      policy: settings.policy,
      timeoutMs: settings.timeoutMs,
      maxBytes: settings.maxResponseBytes,
    });
    statusCode = res.status;
    excerpt = res.body.slice(0, EXCERPT_CHARS);
    if (res.status >= 200 && res.status < 300) result = 'delivered';
    else if (res.status === 410) result = 'gone';
    else {
      result = 'retry';
      wait = retryAfterMs(res.headers['retry-after'], started);
    }
  } catch (err) {
    result = err instanceof BlockedUrlError ? 'blocked' : 'retry';
    excerpt = (err as Error).message.slice(0, EXCERPT_CHARS);
  }
  const latencyMs = Math.round(performance.now() - t0);
  const now = clock();
  const attempts = c.attempts + 1;
  if (result === 'retry' && attempts > settings.retryScheduleMs.length) result = 'failed';

  const nowIso = now.toISOString();
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      insert into webhook_attempts (delivery_id, endpoint_id, attempted_at, status_code, result, latency_ms, excerpt)
      values (${c.deliveryId}, ${c.endpointId}, ${started.toISOString()}::timestamptz, ${statusCode}, ${result}, ${latencyMs}, ${excerpt})`);
    if (result === 'delivered') {
      await tx.execute(sql`update webhook_deliveries set status = 'delivered', attempts = ${attempts}, delivered_at = ${nowIso}::timestamptz,
        last_status_code = ${statusCode}, locked_until = null where id = ${c.deliveryId}`);
      await tx.execute(sql`update webhook_endpoints set failing_since = null where id = ${c.endpointId} and failing_since is not null`);
      return;
    }
    if (result === 'blocked') {
      // Our own rules refuse the URL (not https, credentials in it, an address that is not public):
      // no retry can change that, so the endpoint is disabled at once with the reason and this
      // delivery, like every other, waits for it (not an attempt of the schedule). An operator
      // fixes the cause (the partner's DNS, WEBHOOK_ALLOW_*), then enables it: nothing is lost.
      await tx.execute(sql`update webhook_deliveries set locked_until = null where id = ${c.deliveryId}`);
      await tx.execute(sql`update webhook_endpoints set status = 'disabled', disabled_at = ${nowIso}::timestamptz,
        disabled_reason = ${`our outbound rules refuse its URL: ${excerpt}`.slice(0, EXCERPT_CHARS)}
        where id = ${c.endpointId} and status = 'active'`);
      return;
    }
    if (result === 'gone') {
      await tx.execute(sql`update webhook_deliveries set status = 'stopped', attempts = ${attempts}, last_status_code = 410,
        locked_until = null where id = ${c.deliveryId}`);
      await tx.execute(sql`update webhook_endpoints set status = 'disabled', disabled_at = ${nowIso}::timestamptz,
        disabled_reason = 'the endpoint answered 410 Gone' where id = ${c.endpointId} and status = 'active'`);
      return;
    }
    if (result === 'failed') {
      await tx.execute(sql`update webhook_deliveries set status = 'failed', attempts = ${attempts}, last_status_code = ${statusCode},
        locked_until = null where id = ${c.deliveryId}`);
    } else {
      const base = settings.retryScheduleMs[attempts - 1];
      const jittered = base * (1 - settings.jitter + Math.random() * 2 * settings.jitter);
      const delay = Math.max(jittered, Math.min(wait ?? 0, settings.maxRetryAfterMs));
      const next = new Date(Math.ceil(now.getTime() + delay));
      await tx.execute(sql`update webhook_deliveries set attempts = ${attempts}, last_status_code = ${statusCode},
        next_attempt_at = ${next.toISOString()}::timestamptz, locked_until = null where id = ${c.deliveryId}`);
      await send(tx, [{ id: c.deliveryId, endpointId: c.endpointId, attempts, nextAttemptAt: next }]);
    }
    // Failing since the first failure after a success; disabled once that is older than disableAfterMs.
    const failingSince = c.failingSince ? new Date(c.failingSince) : started;
    await tx.execute(sql`update webhook_endpoints set failing_since = coalesce(failing_since, ${failingSince.toISOString()}::timestamptz)
      where id = ${c.endpointId}`);
    if (now.getTime() - failingSince.getTime() >= settings.disableAfterMs) {
      await tx.execute(sql`update webhook_endpoints set status = 'disabled', disabled_at = ${nowIso}::timestamptz,
        disabled_reason = ${`every delivery failed since ${failingSince.toISOString()}`} where id = ${c.endpointId} and status = 'active'`);
    }
  });
  return { result, statusCode, latencyMs };
}

/** Deletes the log, and the finished deliveries and their events, older than the retention. Returns rows deleted. */
export async function purgeDeliveryLog(db: Db, before: Date, limit: number): Promise<number> {
  const at = before.toISOString();
  const a = await db.execute(sql`delete from webhook_attempts where id in
    (select id from webhook_attempts where attempted_at < ${at}::timestamptz limit ${limit})`);
  const e = await db.execute(sql`delete from partner_events where id in
    (select e.id from partner_events e where e.occurred_at < ${at}::timestamptz
       and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'pending') limit ${limit})`);
  return affectedRows(a) + affectedRows(e);
}

/**
 * Drops up to `limit` deliveries still waiting for a disabled endpoint whose event is older than
 * `before` (the retention, WEBHOOK_LOG_RETENTION_DAYS): what waits for a disabled endpoint is
 * bounded (docs/architecture.md, "Events wait for a disabled endpoint"). Returns how many were
 * dropped, by endpoint id, for the log and the metric.
 */
export async function dropExpiredWaiting(db: Db, before: Date, limit: number): Promise<Map<number, number>> {
  // Raw: a bounded DELETE ... RETURNING counted in the same statement.
  const rows = await typedRows<Pick<RawSelect<typeof webhookDeliveries>, 'endpointId'> & { n: number }>(
    db,
    sql`
    with gone as (
      delete from webhook_deliveries where id in
        (select d.id from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
         where d.status = 'pending' and w.status = 'disabled' and d.created_at < ${before.toISOString()}::timestamptz limit ${limit})
      returning endpoint_id
    )
    select endpoint_id as "endpointId", count(*)::int as n from gone group by endpoint_id`,
  );
  return new Map(rows.map((r) => [Number(r.endpointId), Number(r.n)]));
}

export interface QueueStats {
  /** Pending deliveries of active endpoints. */
  depth: number;
  /** Age of the oldest of them (0 when none). */
  oldestAgeSeconds: number;
  /** Pending deliveries waiting for a disabled endpoint. */
  waitingForDisabled: number;
}

/** Queue figures for metrics, in one statement. */
export async function queueStats(db: Db, now: Date): Promise<QueueStats> {
  const { rows } = await db.execute(sql`
    select count(*) filter (where w.status = 'active')::int as depth,
      min(d.created_at) filter (where w.status = 'active') as oldest,
      count(*) filter (where w.status <> 'active')::int as waiting
    from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id where d.status = 'pending'`);
  const r = rows[0] as { depth: number; oldest: string | Date | null; waiting: number };
  return {
    depth: r.depth,
    oldestAgeSeconds: r.oldest ? Math.max(0, (now.getTime() - new Date(r.oldest).getTime()) / 1000) : 0,
    waitingForDisabled: r.waiting,
  };
}

/**
 * Replays: one event, or every event of an endpoint's partner since a time, due again now to the
 * endpoints that want it. A delivery that was never made (the event came before the endpoint was
 * added, or while an older version queued nothing for a disabled endpoint) is made now, from the
 * event kept in the outbox; one in flight keeps its lease. Deliveries of a disabled endpoint wait
 * for it to be enabled. Returns how many deliveries are due (or waiting) again.
 */
export async function replay(
  db: Db,
  send: SendDeliveries,
  target: { eventId: string } | { endpointId: number; since: Date },
  now: Date,
): Promise<number> {
  const nowIso = now.toISOString();
  const which =
    'eventId' in target
      ? sql`e.id = ${target.eventId}`
      : sql`w.id = ${target.endpointId} and e.occurred_at >= ${target.since.toISOString()}::timestamptz`;
  return db.transaction(async (tx) => {
    const rows = await typedRows<{ id: number; endpointId: number; attempts: number; nextAttemptAt: string; active: boolean }>(
      tx,
      sql`
    with targets as (
      select e.id as event_id, w.id as endpoint_id, e.occurred_at from partner_events e
      join webhook_endpoints w on w.partner_id = e.partner_id
      where ${which}
    ), again as (
      update webhook_deliveries d set status = 'pending', attempts = 0, next_attempt_at = ${nowIso}::timestamptz, delivered_at = null
      from targets t where d.event_id = t.event_id and d.endpoint_id = t.endpoint_id
      returning d.id, d.endpoint_id, d.attempts, d.next_attempt_at
    ), made as (
      insert into webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
      select t.event_id, t.endpoint_id, ${nowIso}::timestamptz, t.occurred_at from targets t
      join partner_events e on e.id = t.event_id join webhook_endpoints w on w.id = t.endpoint_id
      where w.event_types && array[e.type, 'all']::text[]
      on conflict (event_id, endpoint_id) do nothing
      returning id, endpoint_id, attempts, next_attempt_at
    ), due as (select * from again union all select * from made)
    select due.id, due.endpoint_id as "endpointId", due.attempts, due.next_attempt_at as "nextAttemptAt", w.status = 'active' as active
    from due join webhook_endpoints w on w.id = due.endpoint_id`,
    );
    // A disabled endpoint's deliveries wait: their jobs are written when it is enabled.
    await send(tx, dueDeliveries(rows.filter((r) => r.active)));
    return rows.length;
  });
}
