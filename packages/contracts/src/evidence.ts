import { z } from 'zod';

// Credit evidence as a partner reads it through the gateway (GET /api/partner/evidence): per
// member (as the partner knows them) and course, what the LMS measured and issued (DESIGN 5g).

const isoDate = z.string().describe('ISO 8601, UTC');

export const PartnerEvidenceCredit = z
  .object({
    scheme: z.string(),
    amount: z.number(),
    accreditationReference: z
      .string()
      .nullable()
      .describe('The accreditation the credit was earned under (decree or accreditation number)'),
  })
  .meta({ id: 'PartnerEvidenceCredit' });

export const PartnerCourseEvidence = z
  .object({
    courseId: z.number().int(),
    courseName: z.string(),
    enrolledAt: isoDate,
    minutes: z.number().int().describe('Active minutes on the course, measured by the LMS from page heartbeats'),
    attendancePercent: z.number().nullable().describe('Attendance of live sessions; null until live sessions exist'),
    preTestScore: z.number().nullable().describe('The pre-test score (percent), or null: not taken or not part of the course'),
    postTestScore: z.number().nullable().describe('The best post-test score (percent), or null'),
    evaluationDone: z.boolean(),
    certificateCode: z.string().nullable().describe('The certificate in force (not revoked), or null'),
    certificateIssuedAt: isoDate.nullable(),
    certificateExpiresAt: isoDate.nullable(),
    credits: z.array(PartnerEvidenceCredit).describe('Counted credit of that certificate, per scheme'),
  })
  .meta({ id: 'PartnerCourseEvidence' });

export const PartnerMemberEvidence = z
  .object({
    membershipId: z.string().describe("The member's id at this partner"),
    name: z.string(),
    courses: z.array(PartnerCourseEvidence).describe('Every course the member is enrolled in, by course id'),
  })
  .meta({ id: 'PartnerMemberEvidence' });

export const PartnerEvidenceResponse = z
  .object({
    success: z.literal(true),
    members: z.array(PartnerMemberEvidence).describe('Ordered by membershipId (then account), stable across pages'),
    pagination: z.object({
      page: z.number().int(),
      limit: z.number().int(),
      total: z.number().int().describe('Members holding an identity of this partner (matching membershipId if given)'),
      totalPages: z.number().int(),
    }),
  })
  .meta({ id: 'PartnerEvidenceResponse' });
export type PartnerEvidenceResponse = z.infer<typeof PartnerEvidenceResponse>;
