import { z } from 'zod';

/**
 * Definitions of the progress metrics (docs/architecture.md, "Progress metrics"). The trailing 30
 * days are the half-open window (now − 30 days, now]: an event exactly 30 days old is outside, one
 * a millisecond younger is inside. Shared by the schema descriptions below and the endpoint's
 * OpenAPI description.
 */
export const PROGRESS_METRIC_DEFINITIONS = {
  totalDaftar: 'Legacy. Number of enrollments (one per user and course).',
  totalBeli: 'Legacy. Number of paid purchases, all time (pending and refunded ones are not counted). A bundle purchase is one purchase.',
  totalSelesai:
    'Legacy. Number of enrollments whose progress is 100, i.e. the course has at least one chapter and the user completed every one of them.',
  totalSertifikat: 'Legacy. Number of certificates issued (same as certificatesCount).',
  totalClasses: 'Number of buyer-visible courses: published and with an event code.',
  totalCourses: 'Number of courses, whatever their state.',
  totalStudents: 'Number of distinct users with at least one enrollment.',
  completionRate:
    'Average over all enrollments of progress = distinct chapters of the course the user completed ÷ chapters of the course × 100 ' +
    '(0 when the course has no chapters); 0 when there are no enrollments. Computed exactly and rounded to 2 decimals (half up) at the end only.',
  buyers30Days: 'Number of distinct users with at least one paid purchase paid in the trailing 30 days.',
  revenue30Days:
    "Sum of the amounts of the paid purchases paid in the trailing 30 days in the platform's currency (PLATFORM_CURRENCY, IDR by " +
    'default): amounts in other currencies are not added in (see revenueByCurrency30Days). A bundle purchase counts with its own amount, once.',
  totalKum30Days:
    "Sum of the course's nilaiKum (KUM/SKPK points; a course without nilaiKum adds 0) over certificates issued in the trailing 30 days.",
  certificatesCount: 'Number of certificates issued.',
  peopleWithBadgeCount: 'Number of distinct users holding at least one certificate.',
  revenueByCurrency30Days:
    "Beyond the API specification: the trailing 30 days' paid amounts per currency, `[{currency, amount}]` (ISO 4217 codes in " +
    "code order), each summed on its own; revenue30Days is the platform currency's entry.",
} as const;

const metric = (name: Exclude<keyof typeof PROGRESS_METRIC_DEFINITIONS, 'revenueByCurrency30Days'>) =>
  z.number().describe(PROGRESS_METRIC_DEFINITIONS[name]);

/** The numeric fields shared by the overall and the per-category metrics. */
const metricFields = {
  totalDaftar: metric('totalDaftar'),
  totalBeli: metric('totalBeli'),
  totalSelesai: metric('totalSelesai'),
  totalSertifikat: metric('totalSertifikat'),
  totalClasses: metric('totalClasses'),
  totalCourses: metric('totalCourses'),
  totalStudents: metric('totalStudents'),
  completionRate: metric('completionRate'),
  buyers30Days: metric('buyers30Days'),
  revenue30Days: metric('revenue30Days'),
  totalKum30Days: metric('totalKum30Days'),
  certificatesCount: metric('certificatesCount'),
  peopleWithBadgeCount: metric('peopleWithBadgeCount'),
  revenueByCurrency30Days: z
    .array(z.object({ currency: z.string(), amount: z.number() }))
    .describe(PROGRESS_METRIC_DEFINITIONS.revenueByCurrency30Days),
};

export const ProgressMetrics = z
  .object(metricFields)
  .describe('Platform-wide metrics, over every course (including courses without a category).')
  .meta({ id: 'ProgressMetrics' });
export type ProgressMetrics = z.infer<typeof ProgressMetrics>;

export const CategoryProgressMetrics = z
  .object({
    categoryId: z.number().int(),
    categoryCode: z.string(),
    categoryName: z.string(),
    ...metricFields,
  })
  .describe(
    "The same metrics over one category's courses (enrollments, certificates and course purchases of those courses; " +
      'bundle purchases of bundles in that category). A category without courses has zeros.',
  )
  .meta({ id: 'CategoryProgressMetrics' });
export type CategoryProgressMetrics = z.infer<typeof CategoryProgressMetrics>;

export const ProgressResponse = z
  .object({
    success: z.literal(true),
    data: z.object({
      overall: ProgressMetrics,
      perCategory: z.array(CategoryProgressMetrics),
    }),
  })
  .meta({ id: 'ProgressResponse' });
export type ProgressResponse = z.infer<typeof ProgressResponse>;
