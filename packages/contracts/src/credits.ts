import { z } from 'zod';
import { queryWholeNumber } from './text.js';

// A member's credit record (docs/architecture.md, "Credits"): every KUM/SKP a certificate earned,
// in the course's scheme, with totals per calendar year (in the deployment's time zone) and per
// rolling window, and the progress against the targets of the partners the member belongs to.

const dateTime = z.iso.datetime();

/** The largest credit target (numeric(8,2) in the database, bounded lower on purpose). */
export const CREDIT_TARGET_MAX = 9999.99;
export const PARTNER_CREDITS_PAGE_MAX = 100_000;
export const PARTNER_CREDITS_LIMIT_MAX = 100;
export const PARTNER_CREDITS_LIMIT_DEFAULT = 20;

export const CreditRecord = z
  .object({
    id: z.number().int(),
    courseId: z.number().int(),
    courseName: z.string(),
    scheme: z.string().describe('The credit scheme of the course when the certificate was issued (KUM, SKP, ...)'),
    amount: z.number().describe('Points this certificate earned'),
    earnedAt: dateTime.describe('When the certificate was first issued (a reissue keeps this date)'),
    certificateCode: z.string().describe('Verification code: `/certificates/{code}`'),
    certificateStatus: z.enum(['valid', 'revoked', 'expired']),
    voided: z.boolean().describe('A revoked certificate voids its credit: shown, never counted'),
    voidedAt: dateTime.nullable(),
    accreditation: z
      .object({ scheme: z.string(), reference: z.string().describe("The accrediting body's decree or accreditation number") })
      .nullable()
      .describe('The accreditation in force when the credit was earned; null: none (an unaccredited credit is shown, never counted)'),
    counted: z.boolean().describe('Counted in the totals: accredited and not voided'),
  })
  .meta({ id: 'CreditRecord' });
export type CreditRecord = z.infer<typeof CreditRecord>;

export const CreditYearTotal = z
  .object({
    scheme: z.string(),
    year: z.number().int().describe('Calendar year in the deployment time zone (PAGES_TIME_ZONE)'),
    amount: z.number(),
  })
  .meta({ id: 'CreditYearTotal' });

export const CreditRollingTotal = z
  .object({
    scheme: z.string(),
    years: z.number().int().min(1).max(10),
    from: dateTime.describe('Start of the window: the start of the same day `years` years ago (time zone of the deployment)'),
    amount: z.number(),
  })
  .meta({ id: 'CreditRollingTotal' });

export const CreditTargetProgress = z
  .object({
    partner: z.string().describe("The partner's name"),
    issuer: z.string(),
    scheme: z.string(),
    period: z.enum(['calendar_year', 'rolling']),
    years: z.number().int(),
    target: z.number(),
    earned: z.number().describe('Counted credits of the scheme in the period (this calendar year, or the rolling window)'),
    from: dateTime,
  })
  .meta({ id: 'CreditTargetProgress' });

export const MemberCreditsResponse = z
  .object({
    success: z.literal(true),
    timeZone: z.string(),
    records: z.array(CreditRecord).describe('Newest first; voided ones included (voided: true)'),
    yearTotals: z
      .array(CreditYearTotal)
      .describe('Counted credits (accredited, not voided) per scheme per calendar year, newest year first'),
    rollingTotals: z.array(CreditRollingTotal).describe('Per scheme: the rolling windows of the targets, and 3 years by default'),
    targets: z.array(CreditTargetProgress),
  })
  .meta({ id: 'MemberCreditsResponse' });
export type MemberCreditsResponse = z.infer<typeof MemberCreditsResponse>;

export const PartnerCreditsQuery = z.object({
  page: queryWholeNumber(1, PARTNER_CREDITS_PAGE_MAX).optional().describe(`1 to ${PARTNER_CREDITS_PAGE_MAX}; default 1`),
  limit: queryWholeNumber(1, PARTNER_CREDITS_LIMIT_MAX)
    .optional()
    .describe(`Members per page, 1 to ${PARTNER_CREDITS_LIMIT_MAX}; default ${PARTNER_CREDITS_LIMIT_DEFAULT}`),
  membershipId: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe("One member, by the membershipId the partner's tokens carry for them; none of its members: an empty page"),
});
export type PartnerCreditsQuery = z.output<typeof PartnerCreditsQuery>;

export const PartnerMemberCredits = z
  .object({
    membershipId: z.string().describe("The member's id at this partner"),
    name: z.string(),
    records: z.array(CreditRecord),
    yearTotals: z.array(CreditYearTotal).describe('Accredited credit only: records with an accreditation, not voided'),
  })
  .meta({ id: 'PartnerMemberCredits' });

export const PartnerCreditsResponse = z
  .object({
    success: z.literal(true),
    timeZone: z.string(),
    members: z.array(PartnerMemberCredits).describe('Ordered by membershipId (then account), stable across pages'),
    pagination: z.object({
      page: z.number().int(),
      limit: z.number().int(),
      total: z.number().int().describe('Members holding an identity of this partner (matching membershipId if given)'),
      totalPages: z.number().int(),
    }),
  })
  .meta({ id: 'PartnerCreditsResponse' });
export type PartnerCreditsResponse = z.infer<typeof PartnerCreditsResponse>;
