import { z } from 'zod';
import { Pagination } from './catalog.js';
import { idNumber, text } from './text.js';

// Purchases (docs/architecture.md, "Taking a course"): POST /api/learning/purchases, the buyer's
// list and cancellation, the admins' transfers to confirm, their confirmation and rejection.

export const PurchaseBody = z
  .union([
    z.object({ courseId: idNumber().describe('A purchasable course') }).strict(),
    z.object({ bundleId: idNumber().describe('A bundle whose two courses are both buyer-visible') }).strict(),
  ])
  .describe('Exactly one of `courseId` and `bundleId`.')
  .meta({ id: 'PurchaseBody' });
export type PurchaseBody = z.infer<typeof PurchaseBody>;

export const Purchase = z
  .object({
    id: z.number().int(),
    courseId: z.number().int().nullable(),
    bundleId: z.number().int().nullable(),
    itemName: z.string().describe("The course's or bundle's name; empty when it was deleted since."),
    amount: z.string().describe('Decimal text, e.g. "150000.00": the tier price when the purchase started.'),
    currency: z.string(),
    status: z
      .enum(['pending', 'paid', 'refunded', 'cancelled', 'rejected', 'expired'])
      .describe(
        'pending until its payment is confirmed (paid); closed unpaid when its buyer cancels it, an admin rejects it ' +
          '(closeReason says why), or it expires (expiresAt).',
      ),
    provider: z.string().describe('The payment provider: `bank_transfer`.'),
    reference: z.string().nullable().describe('What the buyer writes on the transfer.'),
    createdAt: z.iso.datetime(),
    paidAt: z.iso.datetime().nullable(),
    expiresAt: z.iso.datetime().nullable().describe('When a pending purchase expires unpaid (PURCHASE_PENDING_HOURS after it started).'),
    closedAt: z.iso.datetime().nullable().describe('When it was cancelled, rejected or expired.'),
    closeReason: z.string().nullable().describe("An admin's reason for a rejection."),
  })
  .meta({ id: 'Purchase' });
export type Purchase = z.infer<typeof Purchase>;

export const PaymentInstructions = z
  .object({
    method: z.literal('bank_transfer'),
    amount: z.string(),
    currency: z.string(),
    reference: z.string(),
    bankName: z.string().nullable(),
    accountNumber: z.string().nullable(),
    accountName: z.string().nullable(),
    text: z.string(),
  })
  .meta({ id: 'PaymentInstructions' });
export type PaymentInstructions = z.infer<typeof PaymentInstructions>;

export const StartedPurchaseResponse = z
  .object({ success: z.literal(true), purchase: Purchase, instructions: PaymentInstructions })
  .meta({ id: 'StartedPurchaseResponse' });
export type StartedPurchaseResponse = z.infer<typeof StartedPurchaseResponse>;

export const PurchaseListResponse = z
  .object({ success: z.literal(true), purchases: z.array(Purchase) })
  .meta({ id: 'PurchaseListResponse' });
export type PurchaseListResponse = z.infer<typeof PurchaseListResponse>;

export const PendingPurchase = Purchase.extend({
  buyer: z.object({ id: z.string(), name: z.string(), email: z.string(), membershipId: z.string().nullable() }),
}).meta({ id: 'PendingPurchase' });
export type PendingPurchase = z.infer<typeof PendingPurchase>;

export const PendingPurchasesQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1).describe('1-based'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  reference: text()
    .max(40)
    .optional()
    .describe('A transfer reference (case and spaces ignored): that purchase whatever its state, if the caller may decide on it.'),
});
export type PendingPurchasesQuery = z.infer<typeof PendingPurchasesQuery>;

export const PendingPurchasesResponse = z
  .object({ success: z.literal(true), purchases: z.array(PendingPurchase), pagination: Pagination })
  .meta({ id: 'PendingPurchasesResponse' });
export type PendingPurchasesResponse = z.infer<typeof PendingPurchasesResponse>;

export const RejectPurchaseBody = z
  .object({ reason: text().trim().min(1).max(500).describe('Why, for the buyer: e.g. "No transfer arrived with this reference".') })
  .strict()
  .meta({ id: 'RejectPurchaseBody' });
export type RejectPurchaseBody = z.infer<typeof RejectPurchaseBody>;

export const PurchaseResponse = z.object({ success: z.literal(true), purchase: Purchase }).meta({ id: 'PurchaseResponse' });

export const RefundPurchaseBody = z
  .object({
    reason: text().trim().min(1).max(500).describe('Why the money went back, for the buyer: e.g. "Course cancelled by the institution".'),
    keepCertificateReason: text()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe(
        'Keep the certificates earned through this purchase, and why (recorded on the purchase). Left out, they are ' +
          'revoked with the reason "Refund: <reason>".',
      ),
  })
  .strict()
  .meta({ id: 'RefundPurchaseBody' });
export type RefundPurchaseBody = z.infer<typeof RefundPurchaseBody>;

export const RefundedPurchaseResponse = z
  .object({
    success: z.literal(true),
    purchase: Purchase,
    unenrolledCourseIds: z
      .array(z.number().int())
      .describe('The courses whose enrolment the refund ended (a course another paid purchase of the buyer covers stays).'),
    revokedCertificateCodes: z.array(z.string()).describe('The certificates earned through the purchase, revoked with the refund.'),
    certificateKeptReason: z.string().nullable().describe('Why the admin kept those certificates (then none is revoked), or null.'),
  })
  .meta({ id: 'RefundedPurchaseResponse' });
export type RefundedPurchaseResponse = z.infer<typeof RefundedPurchaseResponse>;

export const ConfirmedPurchaseResponse = z
  .object({
    success: z.literal(true),
    purchase: Purchase,
    enrolledCourseIds: z.array(z.number().int()).describe("The course, or the bundle's two courses, the buyer is now enrolled in."),
  })
  .meta({ id: 'ConfirmedPurchaseResponse' });
export type ConfirmedPurchaseResponse = z.infer<typeof ConfirmedPurchaseResponse>;
