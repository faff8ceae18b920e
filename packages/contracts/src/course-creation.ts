import { z } from 'zod';
import { OPEN_ENDED_END_DATE } from './catalog.js';
import { boundedDateTime, idNumber, text } from './text.js';

/** Decimal money as text: up to 12 digits, optionally 1–2 decimals, never negative. */
export const DecimalText = text().regex(
  /^\d{1,12}(\.\d{1,2})?$/,
  'must be a non-negative decimal amount as text, e.g. "150000" or "99.50"',
);

const DateTime = boundedDateTime();

/**
 * Body of `POST {gateway}/api/courses`, as the spec's table. Unknown fields are refused (400
 * naming them) so that a misspelt optional field is not silently dropped.
 */
export const CreateCourseBody = z
  .strictObject({
    institutionId: idNumber(),
    name: text().trim().min(1).max(255),
    teacherId: text().min(1).max(64),
    courseCode: text().max(64).optional(),
    coverPicture: text().max(2048).optional(),
    currency: text()
      .regex(/^[A-Z]{3}$/, 'must be a three-letter ISO 4217 code, e.g. IDR')
      .optional(),
    description: text().max(20_000).optional(),
    startDate: DateTime.optional(),
    endDate: DateTime.optional(),
    enrollmentType: z.enum(['code', 'open', 'approval']).default('code'),
    instructor: text().max(255).optional(),
    isPurchasable: z.boolean().optional(),
    previewMode: z.boolean().optional(),
    price: DecimalText.optional(),
    type: z.enum(['self_paced', 'scheduled']).default('self_paced'),
  })
  .refine((b) => !b.startDate || !b.endDate || Date.parse(b.endDate) >= Date.parse(b.startDate), {
    message: 'must not be before startDate',
    path: ['endDate'],
  })
  .meta({ id: 'CreateCourseBody' });
export type CreateCourseBody = z.output<typeof CreateCourseBody>;

/**
 * The created course record of the spec, with its types: `coverPicture`, `startDate` and
 * `endDate` are always strings, settled as the catalog list settles them.
 */
export const CreatedCourse = z
  .object({
    id: z.number().int(),
    institutionId: z.number().int(),
    name: z.string(),
    teacherId: z.string(),
    courseCode: z.string(),
    coverPicture: z.string().describe('The cover picture as given; an empty string when none was given.'),
    currency: z.string(),
    description: z.string(),
    startDate: z.iso.datetime().describe('The start as given; without one, the creation time (as the catalog list reports it).'),
    endDate: z.iso
      .datetime()
      .describe(`The end as given; without one, \`${OPEN_ENDED_END_DATE}\`: the course runs on (as the catalog list reports it).`),
    enrollmentType: z.string(),
    instructor: z.string(),
    isPurchasable: z.boolean(),
    previewMode: z.boolean(),
    price: z.string(),
    type: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'CreatedCourse' });
export type CreatedCourse = z.output<typeof CreatedCourse>;

export const CreateCourseResponse = z
  .object({
    success: z.literal(true),
    message: z.string(),
    course: CreatedCourse,
  })
  .meta({ id: 'CreateCourseResponse' });
