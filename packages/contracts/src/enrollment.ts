import { z } from 'zod';
import { MAX_ID, text } from './text.js';

// Enrolment (docs/architecture.md, "Taking a course"): POST /api/learning/courses/{id}/enrollment
// and the approval requests of `approval` courses.

/** A numeric id in a path: 1 to 2^31 - 1 (a larger one cannot exist, and is a 400). */
export const LearningIdParams = z.object({
  id: z.coerce.number().int().min(1).max(MAX_ID).describe('A numeric id'),
});
export type LearningIdParams = z.infer<typeof LearningIdParams>;

export const EnrollBody = z
  .object({
    code: text().max(200).optional().describe("The course's enrolment code; needed for `code` courses only."),
  })
  .strict()
  .meta({ id: 'EnrollBody' });
export type EnrollBody = z.infer<typeof EnrollBody>;

export const Enrollment = z
  .object({
    courseId: z.number().int(),
    enrolledAt: z.iso.datetime(),
  })
  .meta({ id: 'Enrollment' });
export type Enrollment = z.infer<typeof Enrollment>;

export const EnrollmentRequest = z
  .object({
    id: z.number().int(),
    courseId: z.number().int(),
    status: z.enum(['pending', 'approved', 'rejected']),
    requestedAt: z.iso.datetime(),
    decidedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'EnrollmentRequest' });
export type EnrollmentRequest = z.infer<typeof EnrollmentRequest>;

export const EnrolledResponse = z.object({ success: z.literal(true), enrollment: Enrollment }).meta({ id: 'EnrolledResponse' });
export type EnrolledResponse = z.infer<typeof EnrolledResponse>;

export const EnrollmentRequestedResponse = z
  .object({ success: z.literal(true), request: EnrollmentRequest })
  .meta({ id: 'EnrollmentRequestedResponse' });
export type EnrollmentRequestedResponse = z.infer<typeof EnrollmentRequestedResponse>;

/** 402: the course must be bought first, at this price, this way. */
export const PaymentRequiredResponse = z
  .object({
    success: z.literal(false),
    error: z.string(),
    price: z.object({
      amount: z.string().describe('The price for the caller\'s tier, decimal text (e.g. "150000.00").'),
      currency: z.string(),
    }),
    purchase: z
      .object({
        method: z.literal('POST'),
        path: z.literal('/api/learning/purchases'),
        body: z.object({ courseId: z.number().int() }),
      })
      .describe('How to buy it: this request starts a purchase (then pay it; an admin confirms and you are enrolled).'),
  })
  .meta({ id: 'PaymentRequiredResponse' });
export type PaymentRequiredResponse = z.infer<typeof PaymentRequiredResponse>;

export const PendingEnrollmentRequest = EnrollmentRequest.extend({
  courseName: z.string(),
  learner: z.object({ id: z.string(), name: z.string(), email: z.string(), membershipId: z.string().nullable() }),
}).meta({ id: 'PendingEnrollmentRequest' });
export type PendingEnrollmentRequest = z.infer<typeof PendingEnrollmentRequest>;

export const PendingEnrollmentRequestsResponse = z
  .object({ success: z.literal(true), requests: z.array(PendingEnrollmentRequest) })
  .meta({ id: 'PendingEnrollmentRequestsResponse' });
export type PendingEnrollmentRequestsResponse = z.infer<typeof PendingEnrollmentRequestsResponse>;

export const EnrollmentDecisionResponse = z
  .object({
    success: z.literal(true),
    request: EnrollmentRequest,
    enrollment: Enrollment.nullable().describe("The learner's enrollment on approval; null on rejection."),
  })
  .meta({ id: 'EnrollmentDecisionResponse' });
export type EnrollmentDecisionResponse = z.infer<typeof EnrollmentDecisionResponse>;
