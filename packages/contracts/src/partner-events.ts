import { z } from 'zod';

// Partner events (Standard Webhooks; docs/api.md, "Calls from the LMS to a partner"): the one list
// of their types, what the LMS writes for each (PartnerEventPayloads, the `data` that
// apps/lms/src/domain/partner-events/enqueue.ts's enqueuePartnerEvent takes, typed from these
// schemas), and the body a partner's endpoint receives (PartnerEventBody, published under
// `webhooks` in the LMS's OpenAPI document). Strict, so that a field added to an event without
// being documented here fails apps/lms/test/partner-events/payload-schema.test.ts. The enqueue
// statement adds `course` and `member`; delivery.ts adds eventId, sequence, a certificate's
// verificationUrl and the envelope.

const at = z.iso.datetime();

const Certificate = {
  code: z.string().regex(/^[0-9a-f]{32}$/),
  /** The course's points at issue (nilaiKum), or null. */
  kum: z.number().nullable(),
};

const Purchase = {
  id: z.number().int(),
  /** One of courseId and bundleId is set. */
  courseId: z.number().int().nullable(),
  bundleId: z.number().int().nullable(),
  /** Decimal text, e.g. "150000.00". */
  amount: z.string(),
  currency: z.string(),
  /** The transfer reference the buyer was given. */
  reference: z.string().nullable(),
  paidAt: at.nullable(),
};

/**
 * Every event type, and what the LMS writes as its `data` (before the course, the member, the
 * event id, the sequence and a certificate's verification URL are added). The keys are the one
 * list of event types: the CLI's help, the endpoints' subscriptions, the operators' page and the
 * OpenAPI document's `webhooks` are derived from them.
 */
export const PartnerEventPayloads = {
  'enrollment.created': z.strictObject({ enrolledAt: at }),
  'enrollment.completed': z.strictObject({ completedAt: at }),
  'certificate.issued': z.strictObject({ certificate: z.strictObject({ ...Certificate, issuedAt: at }) }),
  'certificate.revoked': z.strictObject({
    certificate: z.strictObject({ ...Certificate, revokedAt: at, reason: z.string() }),
  }),
  'purchase.paid': z.strictObject({ purchase: z.strictObject(Purchase) }),
  'purchase.refunded': z.strictObject({
    purchase: z.strictObject({
      ...Purchase,
      refundedAt: at,
      reason: z.string().nullable(),
      unenrolledCourseIds: z.array(z.number().int()),
      revokedCertificateCodes: z.array(z.string()),
      certificateKeptReason: z.string().nullable(),
    }),
  }),
  'purchase.unconfirmed': z.strictObject({
    purchase: z.strictObject({ ...Purchase, unconfirmedAt: at, unenrolledCourseIds: z.array(z.number().int()) }),
  }),
} as const;

export type PartnerEventType = keyof typeof PartnerEventPayloads;
/** What enqueuePartnerEvent takes as `data` for an event of type T. */
export type PartnerEventPayload<T extends PartnerEventType> = z.input<(typeof PartnerEventPayloads)[T]>;

/** Every event type a partner may receive (and subscribe to with `lms-admin webhook add --events`). */
export const PARTNER_EVENT_TYPES = Object.keys(PartnerEventPayloads) as readonly PartnerEventType[];

// ---------------------------------------------------------------------------------------------
// The body as delivered

/** The member as the receiving partner knows them: its own issuer and its membershipId for them. */
const Member = z.strictObject({ iss: z.string(), membershipId: z.string() });
/** The course the event is about, as it was named when the event was written. */
const Course = z.strictObject({ id: z.number().int(), name: z.string() });

const common = {
  member: Member,
  /** The same as the `webhook-id` header: deduplicate by it. */
  eventId: z.string().regex(/^msg_[0-9a-f]{32}$/),
  /** Increasing in the order events were written (shared with other partners: gaps are normal). */
  sequence: z.number().int().positive(),
};

const Delivery = z.strictObject({ ordered: z.literal(false), note: z.string() });

/** A certificate as delivered: with PUBLIC_URL/certificates/<code>, the public verification page. */
const verifiable = <S extends z.core.$ZodLooseShape>(certificate: z.ZodObject<S, z.core.$strict>) =>
  certificate.extend({ verificationUrl: z.url() });

const payload = PartnerEventPayloads;

/** The component name of an event's body in the OpenAPI document: `enrollment.created` → `EnrollmentCreatedEvent`. */
export function partnerEventSchemaId(type: PartnerEventType): string {
  return `${type.replace(/(?:^|\.)([a-z])/g, (_m, c: string) => c.toUpperCase())}Event`;
}

const event = <T extends PartnerEventType, D extends z.ZodRawShape>(type: T, data: D) =>
  z
    .strictObject({ type: z.literal(type), timestamp: at, data: z.strictObject({ ...common, ...data }), delivery: Delivery })
    .meta({ id: partnerEventSchemaId(type) });

export const PartnerEventBody = z
  .discriminatedUnion('type', [
    event('enrollment.created', { course: Course, ...payload['enrollment.created'].shape }),
    event('enrollment.completed', { course: Course, ...payload['enrollment.completed'].shape }),
    event('certificate.issued', { course: Course, certificate: verifiable(payload['certificate.issued'].shape.certificate) }),
    event('certificate.revoked', { course: Course, certificate: verifiable(payload['certificate.revoked'].shape.certificate) }),
    // A purchase of a bundle has no `course`.
    event('purchase.paid', { course: Course.optional(), ...payload['purchase.paid'].shape }),
    event('purchase.refunded', { course: Course.optional(), ...payload['purchase.refunded'].shape }),
    event('purchase.unconfirmed', { course: Course.optional(), ...payload['purchase.unconfirmed'].shape }),
  ])
  .meta({ id: 'PartnerEventBody' });
export type PartnerEventBody = z.infer<typeof PartnerEventBody>;

// The body covers every type, and no other (a compile error otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const everyTypeHasItsBody: Same<PartnerEventBody['type'], PartnerEventType> = true;
void everyTypeHasItsBody;

/** Every body type, from the union itself (the test compares it with PARTNER_EVENT_TYPES). */
export const PARTNER_EVENT_BODY_TYPES = PartnerEventBody.options.map((o) => o.shape.type.value);
