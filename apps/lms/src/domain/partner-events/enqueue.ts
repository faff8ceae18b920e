import type { PartnerEventPayload, PartnerEventType } from '@lms/contracts';
import type { Db } from '@lms/db';
import { sql } from 'drizzle-orm';
import { dueDeliveries, type SendDeliveries } from './queue.js';

// The outbox side of partner events (docs/architecture.md, "Partner events"). Every write path
// that changes what a partner may hear about calls enqueuePartnerEvent inside its own transaction,
// so an event exists exactly when the change committed.

// The event types and the schema of each one's data are packages/contracts' (partner-events.ts):
// a `data` that does not match its type's schema is a type error here.
export { PARTNER_EVENT_TYPES, type PartnerEventType } from '@lms/contracts';
/** What an endpoint subscribes to: types, or `all` (stored as such, so types added later are included). */
export type EventSubscription = PartnerEventType | 'all';

interface EventOf<T extends PartnerEventType> {
  type: T;
  /** The member the event is about: only partners of whom they hold an identity hear of it. */
  userId: string;
  occurredAt: Date;
  /** What the event says (course, certificate, purchase); the member reference is added per partner. */
  data: PartnerEventPayload<T>;
  /** The course it concerns: `data.course` becomes {id, name} (read in the same statement). */
  courseId?: number | null;
}

/** One event to write: its `data` is its type's (PartnerEventPayloads in packages/contracts). */
export type PartnerEventInput = { [T in PartnerEventType]: EventOf<T> }[PartnerEventType];

/**
 * Writes the event to the outbox, in the caller's transaction (`tx`): one partner_events row per
 * partner of whom the member holds an identity and that has an endpoint wanting this type
 * (carrying that partner's iss and membershipId, never another's), and one pending delivery per
 * such endpoint, active or disabled: a disabled endpoint's deliveries wait until it is enabled
 * (docs/architecture.md, "Events wait for a disabled endpoint"). An endpoint stored with `all`
 * wants every type, those added later too. One statement; nothing at all when no endpoint wants
 * it, so the write that causes an event costs one indexed lookup more when nobody listens. The
 * deliveries of active endpoints get their job through `send`, in the same transaction (queue.ts).
 * Returns how many deliveries it queued.
 */
export async function enqueuePartnerEvent(tx: Db, send: SendDeliveries, event: PartnerEventInput): Promise<number> {
  const at = event.occurredAt.toISOString();
  const wants = sql`array[${event.type}, 'all']::text[]`;
  const { rows } = await tx.execute(sql`
    with wanted as (
      select p.id as partner_id, i.issuer, i.membership_id
      from identities i join partners p on p.issuer = i.issuer
      where i.user_id = ${event.userId}
        and exists (select 1 from webhook_endpoints w where w.partner_id = p.id and w.event_types && ${wants})
    ), ev as (
      insert into partner_events (id, partner_id, type, user_id, data, occurred_at)
      select 'msg_' || replace(gen_random_uuid()::text, '-', ''), partner_id, ${event.type}, ${event.userId},
        ${JSON.stringify(event.data)}::jsonb
          || coalesce((select jsonb_build_object('course', jsonb_build_object('id', c.id, 'name', c.name)) from courses c
                       where c.id = ${event.courseId ?? null}::int), '{}'::jsonb)
          || jsonb_build_object('member', jsonb_build_object('iss', issuer, 'membershipId', membership_id)),
        ${at}::timestamptz
      from wanted
      returning id, partner_id
    ), queued as (
      insert into webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
      select ev.id, w.id, ${at}::timestamptz, ${at}::timestamptz
      from ev join webhook_endpoints w on w.partner_id = ev.partner_id and w.event_types && ${wants}
      returning id, endpoint_id
    )
    select q.id, q.endpoint_id as "endpointId", 0 as attempts, ${at}::timestamptz as "nextAttemptAt", w.status = 'active' as active
    from queued q join webhook_endpoints w on w.id = q.endpoint_id`);
  const queued = rows as Array<{ id: number; endpointId: number; attempts: number; nextAttemptAt: string; active: boolean }>;
  if (queued.length > 0) await send(tx, dueDeliveries(queued.filter((r) => r.active)));
  return queued.length;
}
