import { z } from 'zod';

// The body of a partner event as the partner's endpoint receives it (Standard Webhooks; docs/api.md,
// "Calls from the LMS to a partner"): one schema per type, strict, so that a field added to an
// event without being documented here fails apps/lms/test/partner-events/payload-schema.test.ts.
// The LMS writes these in apps/lms/src/domain/partner-events/enqueue.ts (data) and delivery.ts
// (eventId, sequence, verificationUrl, the envelope).

const at = z.iso.datetime();

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

const Certificate = {
  code: z.string().regex(/^[0-9a-f]{32}$/),
  /** The course's points at issue (nilaiKum), or null. */
  kum: z.number().nullable(),
  /** PUBLIC_URL/certificates/<code>: the public verification page. */
  verificationUrl: z.url(),
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

const event = <T extends string, D extends z.ZodRawShape>(type: T, data: D) =>
  z.strictObject({ type: z.literal(type), timestamp: at, data: z.strictObject({ ...common, ...data }), delivery: Delivery });

export const PartnerEventBody = z
  .discriminatedUnion('type', [
    event('enrollment.created', { course: Course, enrolledAt: at }),
    event('enrollment.completed', { course: Course, completedAt: at }),
    event('certificate.issued', { course: Course, certificate: z.strictObject({ ...Certificate, issuedAt: at }) }),
    event('certificate.revoked', {
      course: Course,
      certificate: z.strictObject({ ...Certificate, revokedAt: at, reason: z.string() }),
    }),
    event('purchase.paid', { course: Course.optional(), purchase: z.strictObject(Purchase) }),
    event('purchase.refunded', {
      course: Course.optional(),
      purchase: z.strictObject({
        ...Purchase,
        refundedAt: at,
        reason: z.string().nullable(),
        unenrolledCourseIds: z.array(z.number().int()),
        revokedCertificateCodes: z.array(z.string()),
        certificateKeptReason: z.string().nullable(),
      }),
    }),
    event('purchase.unconfirmed', {
      course: Course.optional(),
      purchase: z.strictObject({ ...Purchase, unconfirmedAt: at, unenrolledCourseIds: z.array(z.number().int()) }),
    }),
  ])
  .meta({ id: 'PartnerEventBody' });
export type PartnerEventBody = z.infer<typeof PartnerEventBody>;

/** Every event type a partner may receive (and subscribe to with `lms-admin webhook add --events`). */
export const PARTNER_EVENT_BODY_TYPES = PartnerEventBody.options.map((o) => o.shape.type.value);
