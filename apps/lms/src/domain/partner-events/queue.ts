import { createHash } from 'node:crypto';
import {
  type Db,
  JOBS_SCHEMA,
  type partnerEvents,
  type RawSelect,
  typedRows,
  type webhookDeliveries,
  type webhookEndpoints,
} from '@lms/db';
import { type SQL, sql } from 'drizzle-orm';
import type { Jobs } from '../../jobs/index.js';

// Partner-event deliveries on the job queue (docs/architecture.md, "Partner events"). The outbox
// (webhook_deliveries) says what is owed and when; each attempt is a pg-boss job
// `partner-events.deliver` written in the same transaction as what made the delivery due: the
// event (enqueue.ts), the previous attempt's retry (delivery.ts), an endpoint enabled or a replay.
// The job's id is derived from the delivery's (id, attempts, next attempt): writing it twice
// writes it once. A job that finds its delivery not due, taken, or its endpoint disabled ends
// without sending; the delivery row's short lease (locked_until) keeps two runs of one delivery
// (a job and a test's round, a job handed to another instance after its run was lost) apart.
// The sweep gives a job to a due delivery that has none: written before this queue (an upgrade
// with events in flight), or whose job ended for good.

/** A delivery due at `nextAttemptAt`: what its job is made from. */
export interface DueDelivery {
  id: number;
  endpointId: number;
  attempts: number;
  nextAttemptAt: Date;
}

/** Writes the jobs of deliveries made due, in the caller's transaction (the app's: plugins/partner-events.ts). */
export type SendDeliveries = (tx: Db, deliveries: DueDelivery[]) => Promise<void>;

/** The app's SendDeliveries: one `partner-events.deliver` job per attempt, due at its time, grouped by endpoint. */
export function deliveryJobs(jobs: () => Pick<Jobs, 'insertInTransaction'>): SendDeliveries {
  return (tx, deliveries) =>
    jobs().insertInTransaction(
      tx,
      'partner-events.deliver',
      // One job per attempt: its id is written once (a batch may not name it twice).
      [...new Map(deliveries.map((d) => [deliveryJobId(d), d])).values()].map((d) => ({
        id: deliveryJobId(d),
        data: { deliveryId: d.id },
        startAfter: d.nextAttemptAt,
        group: String(d.endpointId),
      })),
    );
}

/** For domain calls made outside an app (tests, the bench, tools): the rows alone; a round (or the sweep) sends them. */
export const outboxOnly: SendDeliveries = async () => {};

/** The job id of one attempt of one delivery (a uuid made of its id, attempts and due time). */
export function deliveryJobId(d: Pick<DueDelivery, 'id' | 'attempts' | 'nextAttemptAt'>): string {
  const h = createHash('md5').update(`${d.id}:${d.attempts}:${d.nextAttemptAt.getTime()}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** deliveryJobId in SQL, over a webhook_deliveries row aliased `d` (the sweep's lookup of pg-boss's job). */
const jobIdOfRow: SQL = sql`md5(d.id::text || ':' || d.attempts::text || ':' || (extract(epoch from d.next_attempt_at) * 1000)::bigint::text)::uuid`;

/** A claimed delivery as the claim statements read it (raw: a lateral, SKIP LOCKED claim in one round trip). */
type ClaimedRow = Pick<RawSelect<typeof webhookDeliveries>, 'attempts'> & {
  deliveryId: RawSelect<typeof webhookDeliveries>['id'];
  eventId: RawSelect<typeof partnerEvents>['id'];
  endpointId: RawSelect<typeof webhookEndpoints>['id'];
  /** The payload's `data` (the column is jsonb of any shape; enqueue writes an object). */
  data: Record<string, unknown>;
} & Pick<RawSelect<typeof partnerEvents>, 'seq' | 'type' | 'occurredAt'> &
  Pick<RawSelect<typeof webhookEndpoints>, 'url' | 'secret' | 'previousSecret' | 'previousSecretUntil' | 'failingSince'>;
export type Claimed = Omit<ClaimedRow, 'deliveryId' | 'seq'> & { deliveryId: number; seq: number };

/** The claimed deliveries joined with their event and endpoint. */
async function readClaimed(db: Db, claim: SQL): Promise<Claimed[]> {
  const rows = await typedRows<ClaimedRow>(
    db,
    sql`
    with ${claim}
    select c.id as "deliveryId", c.attempts, e.id as "eventId", e.seq, e.type, e.data, e.occurred_at as "occurredAt",
      w.id as "endpointId", w.url, w.secret, w.previous_secret as "previousSecret",
      w.previous_secret_until as "previousSecretUntil", w.failing_since as "failingSince"
    from claimed c join partner_events e on e.id = c.event_id join webhook_endpoints w on w.id = c.endpoint_id`,
  );
  return rows.map((r) => ({ ...r, deliveryId: Number(r.deliveryId), seq: Number(r.seq), attempts: Number(r.attempts) }));
}

/**
 * A job's claim of its delivery for `leaseMs`: only when it is pending, due, not held by another
 * run, and its endpoint active. Null otherwise: the job ends (a disabled endpoint's deliveries get
 * jobs again when it is enabled; one not due yet has the job of its due time).
 */
export async function claimOne(db: Db, deliveryId: number, now: Date, leaseMs: number): Promise<Claimed | null> {
  const nowIso = now.toISOString();
  const until = new Date(now.getTime() + leaseMs).toISOString();
  const [claimed] = await readClaimed(
    db,
    sql`claimed as (
      update webhook_deliveries d set locked_until = ${until}::timestamptz
      from webhook_endpoints w
      where d.id = ${deliveryId} and w.id = d.endpoint_id and w.status = 'active' and d.status = 'pending'
        and d.next_attempt_at <= ${nowIso}::timestamptz and (d.locked_until is null or d.locked_until <= ${nowIso}::timestamptz)
      returning d.id, d.attempts, d.event_id, d.endpoint_id
    )`,
  );
  return claimed ?? null;
}

export interface EndpointShare {
  /** Deliveries of one endpoint a claimer sends at once, at most. */
  max: number;
}

/**
 * Claims up to `limit` due deliveries of active endpoints for `leaseMs`, at most `share.max` per
 * endpoint, oldest due first across endpoints (SKIP LOCKED, then the lease). What a round takes
 * (app.deliverDueEvents: tests, tools and the bench drive deliveries by hand with it); the
 * running service's deliveries are jobs (claimOne).
 */
export async function claimDue(db: Db, now: Date, limit: number, leaseMs: number, share?: EndpointShare): Promise<Claimed[]> {
  const nowIso = now.toISOString();
  const until = new Date(now.getTime() + leaseMs).toISOString();
  return readClaimed(
    db,
    sql`due as (
      select d.id, d.next_attempt_at from webhook_endpoints w
      cross join lateral (
        select d.id, d.next_attempt_at from webhook_deliveries d
        where d.endpoint_id = w.id and d.status = 'pending' and d.next_attempt_at <= ${nowIso}::timestamptz
          and (d.locked_until is null or d.locked_until <= ${nowIso}::timestamptz)
        order by d.next_attempt_at, d.id
        limit ${share?.max ?? limit}
        for update of d skip locked
      ) d
      where w.status = 'active'
      order by d.next_attempt_at, d.id
      limit ${limit}
    ), claimed as (
      update webhook_deliveries d set locked_until = ${until}::timestamptz from due where d.id = due.id
      returning d.id, d.attempts, d.event_id, d.endpoint_id
    )`,
  );
}

/** Rows of webhook_deliveries as DueDelivery (raw statements' answers). */
export function dueDeliveries(rows: Array<{ id: unknown; endpointId: unknown; attempts: unknown; nextAttemptAt: unknown }>): DueDelivery[] {
  return rows.map((r) => ({
    id: Number(r.id),
    endpointId: Number(r.endpointId),
    attempts: Number(r.attempts),
    nextAttemptAt: new Date(r.nextAttemptAt as string | Date),
  }));
}

/**
 * Gives a job to up to `limit` deliveries of active endpoints due for longer than `graceMs` that
 * have none waiting or running (no job of their id in pg-boss's table): each is made due now (a
 * new id) and sent. Returns how many. Run every minute (plugins/partner-events.ts).
 */
export async function sweepDeliveries(db: Db, send: SendDeliveries, now: Date, graceMs: number, limit: number): Promise<number> {
  const before = new Date(now.getTime() - graceMs).toISOString();
  const nowIso = now.toISOString();
  return db.transaction(async (tx) => {
    const rows = await typedRows<{ id: number; endpointId: number; attempts: number; nextAttemptAt: string }>(
      tx,
      sql`
      with stranded as (
        select d.id from webhook_endpoints w
        cross join lateral (
          select d.id from webhook_deliveries d
          where d.endpoint_id = w.id and d.status = 'pending' and d.next_attempt_at <= ${before}::timestamptz
            and (d.locked_until is null or d.locked_until <= ${nowIso}::timestamptz)
            and not exists (select 1 from ${sql.identifier(JOBS_SCHEMA)}.job j
                            where j.name = 'partner-events.deliver' and j.id = ${jobIdOfRow} and j.state < 'completed')
          order by d.next_attempt_at, d.id
          limit ${limit}
          for update of d skip locked
        ) d
        where w.status = 'active'
        limit ${limit}
      )
      update webhook_deliveries d set next_attempt_at = ${nowIso}::timestamptz from stranded where d.id = stranded.id
      returning d.id, d.endpoint_id as "endpointId", d.attempts, d.next_attempt_at as "nextAttemptAt"`,
    );
    await send(tx, dueDeliveries(rows));
    return rows.length;
  });
}
