import { z } from 'zod';
import { MAX_ID, queryWholeNumber } from './text.js';

// GET /api/partner/teachers: what a partner needs before it creates a course (the `institutionId`
// and `teacherId` of POST /api/courses and of a course document), read with its own bearer token
// through the gateway, rather than asked of an operator.

export const PARTNER_TEACHERS_PAGE_MAX = 100_000;
export const PARTNER_TEACHERS_LIMIT_MAX = 100;
export const PARTNER_TEACHERS_LIMIT_DEFAULT = 50;

export const PartnerTeachersQuery = z.object({
  institutionId: queryWholeNumber(1, MAX_ID)
    .optional()
    .describe('One institution; an institution not bound to the calling partner gives an empty page'),
  page: queryWholeNumber(1, PARTNER_TEACHERS_PAGE_MAX).optional().describe(`1 to ${PARTNER_TEACHERS_PAGE_MAX}; default 1`),
  limit: queryWholeNumber(1, PARTNER_TEACHERS_LIMIT_MAX)
    .optional()
    .describe(`Teachers per page, 1 to ${PARTNER_TEACHERS_LIMIT_MAX}; default ${PARTNER_TEACHERS_LIMIT_DEFAULT}`),
});
export type PartnerTeachersQuery = z.output<typeof PartnerTeachersQuery>;

export const PartnerInstitution = z
  .object({ id: z.number().int(), name: z.string() })
  .describe('An institution an operator bound to the calling partner: its courses are the ones the partner may create and author')
  .meta({ id: 'PartnerInstitution' });

export const PartnerTeacher = z
  .object({
    id: z.string().describe('The `teacherId` of POST /api/courses and of a course document'),
    name: z.string(),
    email: z.string().describe('To match the teacher with your own records'),
    institutionId: z.number().int(),
  })
  .meta({ id: 'PartnerTeacher' });

export const PartnerTeachersResponse = z
  .object({
    success: z.literal(true),
    institutions: z
      .array(PartnerInstitution)
      .describe('Every institution bound to the calling partner (or the one asked for, if bound), by id; not paged'),
    teachers: z
      .array(PartnerTeacher)
      .describe('The active teachers of those institutions, ordered by institution, name and id (stable across pages)'),
    pagination: z.object({
      page: z.number().int(),
      limit: z.number().int(),
      total: z.number().int().describe('Active teachers of the institutions listed'),
      totalPages: z.number().int(),
    }),
  })
  .meta({ id: 'PartnerTeachersResponse' });
export type PartnerTeachersResponse = z.infer<typeof PartnerTeachersResponse>;
