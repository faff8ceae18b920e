import {
  type Db,
  inTransaction,
  partners,
  type partnerEvents,
  type RawSelect,
  typedRows,
  type webhookAttempts,
  webhookEndpoints,
} from '@lms/db';
import { and, eq, sql } from 'drizzle-orm';
import { BlockedUrlError, checkUrl, type OutboundPolicy } from './outbound.js';
import { type EventSubscription, PARTNER_EVENT_TYPES, type PartnerEventType } from './enqueue.js';
import { dueDeliveries, type SendDeliveries } from './queue.js';
import { newWebhookSecret } from './signing.js';

// Operators' side of partner events: endpoints (add, list, rotate, disable, enable), the delivery
// log. Used by `lms-admin webhook ...` and the super_admin page; nothing here knows HTTP.

export class EndpointInputError extends Error {}

export interface EndpointView {
  id: number;
  issuer: string;
  url: string;
  eventTypes: string[];
  status: string;
  disabledAt: Date | null;
  disabledReason: string | null;
  failingSince: Date | null;
  previousSecretUntil: Date | null;
  pending: number;
  createdAt: Date;
}

/**
 * Event types from a list; `all` or nothing is `['all']`, stored as such so that types added later
 * reach the endpoint too. Unknown ones are refused by name.
 */
export function eventTypesOf(list: string[]): EventSubscription[] {
  const wanted = list
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (wanted.length === 0 || wanted.includes('all')) return ['all'];
  const unknown = wanted.filter((v) => !(PARTNER_EVENT_TYPES as readonly string[]).includes(v));
  if (unknown.length > 0)
    throw new EndpointInputError(`unknown event type ${unknown.join(', ')}; known: ${PARTNER_EVENT_TYPES.join(', ')}`);
  return [...new Set(wanted)] as PartnerEventType[] as EventSubscription[];
}

/** Registers an endpoint; returns it with its secret (shown once). */
export async function addEndpoint(
  db: Db,
  input: { issuer: string; url: string; eventTypes: EventSubscription[] },
  policy: OutboundPolicy,
): Promise<{ id: number; secret: string }> {
  try {
    checkUrl(input.url, policy);
  } catch (err) {
    if (err instanceof BlockedUrlError) throw new EndpointInputError(`${input.url}: ${err.message}`);
    throw err;
  }
  const [partner] = await db.select({ id: partners.id }).from(partners).where(eq(partners.issuer, input.issuer));
  if (!partner) throw new EndpointInputError(`no partner with issuer ${input.issuer}`);
  const secret = newWebhookSecret();
  const [row] = await db
    .insert(webhookEndpoints)
    .values({ partnerId: partner.id, url: input.url, eventTypes: input.eventTypes, secret })
    .returning({ id: webhookEndpoints.id });
  return { id: row.id, secret };
}

/** An endpoint row as listEndpoints reads it (raw: a per-endpoint count of pending deliveries beside the columns). */
type EndpointRow = Pick<
  RawSelect<typeof webhookEndpoints>,
  'id' | 'url' | 'eventTypes' | 'status' | 'disabledAt' | 'disabledReason' | 'failingSince' | 'previousSecretUntil' | 'createdAt'
> &
  Pick<RawSelect<typeof partners>, 'issuer'> & { pending: number };

export async function listEndpoints(db: Db, issuer?: string, id?: number): Promise<EndpointView[]> {
  const rows = await typedRows<EndpointRow>(
    db,
    sql`
    select w.id, p.issuer, w.url, w.event_types as "eventTypes", w.status, w.disabled_at as "disabledAt",
      w.disabled_reason as "disabledReason", w.failing_since as "failingSince", w.previous_secret_until as "previousSecretUntil",
      w.created_at as "createdAt",
      (select count(*)::int from webhook_deliveries d where d.endpoint_id = w.id and d.status = 'pending') as pending
    from webhook_endpoints w join partners p on p.id = w.partner_id
    where ${issuer === undefined ? sql`true` : sql`p.issuer = ${issuer}`} and ${id === undefined ? sql`true` : sql`w.id = ${id}`}
    order by p.issuer, w.id`,
  );
  const date = (v: string | null) => (v === null ? null : new Date(v));
  return rows.map((r) => ({
    ...r,
    disabledAt: date(r.disabledAt),
    failingSince: date(r.failingSince),
    previousSecretUntil: date(r.previousSecretUntil),
    createdAt: new Date(r.createdAt),
  }));
}

/** A new secret; the old one is still signed with (second signature) until `overlapMs` from now. */
export async function rotateSecret(db: Db, endpointId: number, overlapMs: number, now: Date): Promise<string | null> {
  const secret = newWebhookSecret();
  const [row] = await db
    .update(webhookEndpoints)
    .set({ previousSecret: sql`${webhookEndpoints.secret}`, previousSecretUntil: new Date(now.getTime() + overlapMs), secret })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning({ id: webhookEndpoints.id });
  return row ? secret : null;
}

/**
 * Disables or enables an endpoint. While disabled its deliveries wait (new events too); enabling
 * makes every waiting one due now on a fresh retry schedule (docs/architecture.md, "Events wait
 * for a disabled endpoint"). Returns whether the endpoint exists.
 */
export async function setEndpointStatus(
  db: Db,
  send: SendDeliveries,
  endpointId: number,
  active: boolean,
  reason: string,
  now: Date,
): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    const [row] = await tx
      .update(webhookEndpoints)
      .set(
        active
          ? { status: 'active', disabledAt: null, disabledReason: null, failingSince: null }
          : { status: 'disabled', disabledAt: now, disabledReason: reason },
      )
      .where(eq(webhookEndpoints.id, endpointId))
      .returning({ id: webhookEndpoints.id });
    if (row && active) {
      const due = await typedRows<{ id: number; endpointId: number; attempts: number; nextAttemptAt: string }>(
        tx,
        sql`update webhook_deliveries set attempts = 0, next_attempt_at = ${now.toISOString()}::timestamptz
          where endpoint_id = ${endpointId} and status = 'pending'
          returning id, endpoint_id as "endpointId", attempts, next_attempt_at as "nextAttemptAt"`,
      );
      await send(tx, dueDeliveries(due));
    }
    return row !== undefined;
  });
}

/** An attempt of the delivery log as its statement reads it (raw: three tables joined, for the CLI). */
type AttemptLogRaw = Pick<RawSelect<typeof webhookAttempts>, 'attemptedAt' | 'result' | 'statusCode' | 'latencyMs' | 'excerpt'> & {
  eventId: RawSelect<typeof partnerEvents>['id'];
  type: RawSelect<typeof partnerEvents>['type'];
};
export type AttemptLogRow = Omit<AttemptLogRaw, 'attemptedAt'> & { attemptedAt: Date };

/** The endpoint's latest attempts, newest first. */
export async function deliveryLog(db: Db, endpointId: number, limit: number): Promise<AttemptLogRow[]> {
  const rows = await typedRows<AttemptLogRaw>(
    db,
    sql`
    select a.attempted_at as "attemptedAt", e.id as "eventId", e.type, a.result, a.status_code as "statusCode",
      a.latency_ms as "latencyMs", a.excerpt
    from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id join partner_events e on e.id = d.event_id
    where a.endpoint_id = ${endpointId}
    order by a.attempted_at desc, a.id desc limit ${limit}`,
  );
  return rows.map((r) => ({ ...r, attemptedAt: new Date(r.attemptedAt) }));
}

/**
 * The one-command start: the demo partner's endpoint at `url` with `secret` (created, or updated
 * to this secret), and its member check (policy allow: the demo never locks anybody out when the
 * partner is not up yet). Nothing when the demo partner is not registered.
 */
export async function pointDemoPartnerEvents(
  db: Db,
  issuer: string,
  demo: { webhookUrl?: string; secret?: string; memberCheckUrl?: string },
): Promise<boolean> {
  const [partner] = await db.select({ id: partners.id }).from(partners).where(eq(partners.issuer, issuer));
  if (!partner) return false;
  if (demo.webhookUrl && demo.secret) {
    const updated = await db
      .update(webhookEndpoints)
      .set({
        secret: demo.secret,
        status: 'active',
        disabledAt: null,
        disabledReason: null,
        previousSecret: null,
        previousSecretUntil: null,
      })
      .where(and(eq(webhookEndpoints.partnerId, partner.id), eq(webhookEndpoints.url, demo.webhookUrl)))
      .returning({ id: webhookEndpoints.id });
    if (updated.length === 0) {
      await db.insert(webhookEndpoints).values({ partnerId: partner.id, url: demo.webhookUrl, eventTypes: ['all'], secret: demo.secret });
    }
  }
  if (demo.memberCheckUrl) {
    await db
      .update(partners)
      .set({ memberCheckUrl: demo.memberCheckUrl, memberCheckOnFailure: 'allow' })
      .where(eq(partners.id, partner.id));
  }
  return true;
}
