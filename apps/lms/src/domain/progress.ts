import type { CategoryProgressMetrics, ProgressMetrics } from '@lms/contracts';
import type { Db } from '@lms/db';
import { sql } from 'drizzle-orm';

/** The trailing window of the "30 days" metrics: (now − 30 days, now]. */
export const TRAILING_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

export interface ProgressReport {
  overall: ProgressMetrics;
  perCategory: CategoryProgressMetrics[];
}

/** One row per (category, chapter count) of the enrolled courses: enough for an exact completion rate. */
interface EnrollmentGroup {
  category_id: number | null;
  chapter_count: number;
  enrollments: number;
  /** Sum of enrollments.completed_chapters, as text (bigint). */
  completed_sum: string;
  finished: number;
}
/** Rows grouped by GROUPING SETS ((category_id), ()): `is_total` marks the overall row. */
interface Grouped {
  is_total: boolean;
  category_id: number | null;
}
interface CourseRow extends Grouped {
  courses: number;
  classes: number;
}
interface StudentRow extends Grouped {
  students: number;
}
interface CertificateRow extends Grouped {
  certificates: number;
  kum: string;
}
interface HolderRow extends Grouped {
  holders: number;
}
interface PurchaseRow extends Grouped {
  paid: number;
  revenue: string;
}
interface BuyerRow extends Grouped {
  buyers: number;
}
interface CategoryRow {
  id: number;
  code: string;
  name: string;
}

/**
 * Computes the progress metrics (definitions in @lms/contracts PROGRESS_METRIC_DEFINITIONS) in
 * one SQL statement of a few GROUP BYs. It reads the counters the triggers of migration
 * 0002_counters maintain (courses.chapter_count, enrollments.completed_chapters), never the raw
 * chapter completions, so its cost grows with enrollments, not with completions.
 *
 * Purchases count toward the category of what was bought: a course purchase toward the course's
 * category, a bundle purchase (one purchase, its own amount) toward the bundle's category, not
 * toward its two courses'. Overall counts every purchase once.
 */
export async function computeProgressMetrics(db: Db, now: Date): Promise<ProgressReport> {
  const windowStart = new Date(now.getTime() - TRAILING_WINDOW_MS).toISOString();
  const windowEnd = now.toISOString();
  const inWindow = (column: string) =>
    sql`${sql.raw(column)} > ${windowStart}::timestamptz AND ${sql.raw(column)} <= ${windowEnd}::timestamptz`;

  const { rows } = await db.execute(sql`
    WITH enrollment_groups AS (
      SELECT c.category_id, c.chapter_count,
             count(*)::int AS enrollments,
             sum(e.completed_chapters)::text AS completed_sum,
             (count(*) FILTER (WHERE c.chapter_count > 0 AND e.completed_chapters >= c.chapter_count))::int AS finished
      FROM enrollments e JOIN courses c ON c.id = e.course_id
      GROUP BY c.category_id, c.chapter_count
    ), categories_per_user AS (
      -- One group per enrolled user, read in the order of the (user_id, course_id) index, so
      -- distinct users per category need no big sort or hash of (user, category) pairs.
      SELECT e.user_id, array_agg(DISTINCT c.category_id) AS category_ids
      FROM enrollments e JOIN courses c ON c.id = e.course_id
      GROUP BY e.user_id
    ), students AS (
      SELECT true AS is_total, NULL::int AS category_id, count(*)::int AS students FROM categories_per_user
      UNION ALL
      SELECT false, category_id, count(*)::int
      FROM categories_per_user, unnest(category_ids) AS category_id
      WHERE category_id IS NOT NULL
      GROUP BY category_id
    ), course_counts AS (
      SELECT grouping(category_id) = 1 AS is_total, category_id,
             count(*)::int AS courses,
             (count(*) FILTER (WHERE is_published AND event_code IS NOT NULL))::int AS classes
      FROM courses
      GROUP BY GROUPING SETS ((category_id), ())
    ), certificate_counts AS (
      SELECT grouping(c.category_id) = 1 AS is_total, c.category_id,
             count(*)::int AS certificates,
             coalesce(sum(c.nilai_kum) FILTER (WHERE ${inWindow('k.issued_at')}), 0)::text AS kum
      FROM certificates k JOIN courses c ON c.id = k.course_id
      GROUP BY GROUPING SETS ((c.category_id), ())
    ), categories_per_holder AS (
      -- As categories_per_user, over the (user_id, course_id) index of certificates.
      SELECT k.user_id, array_agg(DISTINCT c.category_id) AS category_ids
      FROM certificates k JOIN courses c ON c.id = k.course_id
      GROUP BY k.user_id
    ), holders AS (
      SELECT true AS is_total, NULL::int AS category_id, count(*)::int AS holders FROM categories_per_holder
      UNION ALL
      SELECT false, category_id, count(*)::int
      FROM categories_per_holder, unnest(category_ids) AS category_id
      WHERE category_id IS NOT NULL
      GROUP BY category_id
    ), paid_purchases AS NOT MATERIALIZED (
      SELECT p.user_id, p.amount, p.paid_at,
             CASE WHEN p.bundle_id IS NOT NULL THEN b.category_id ELSE c.category_id END AS category_id
      FROM purchases p
      LEFT JOIN courses c ON c.id = p.course_id
      LEFT JOIN bundles b ON b.id = p.bundle_id
      WHERE p.status = 'paid'
    ), purchase_counts AS (
      SELECT grouping(category_id) = 1 AS is_total, category_id,
             count(*)::int AS paid,
             coalesce(sum(amount) FILTER (WHERE ${inWindow('paid_at')}), 0)::text AS revenue
      FROM paid_purchases
      GROUP BY GROUPING SETS ((category_id), ())
    ), buyer_counts AS (
      -- DISTINCT only over the window's purchases (the planner can use purchases_paid_at_idx).
      SELECT grouping(category_id) = 1 AS is_total, category_id, count(DISTINCT user_id)::int AS buyers
      FROM paid_purchases
      WHERE ${inWindow('paid_at')}
      GROUP BY GROUPING SETS ((category_id), ())
    )
    SELECT
      (SELECT coalesce(json_agg(t), '[]'::json) FROM enrollment_groups t) AS enrollment_groups,
      (SELECT coalesce(json_agg(t), '[]'::json) FROM students t) AS students,
      (SELECT coalesce(json_agg(t), '[]'::json) FROM course_counts t) AS course_counts,
      (SELECT coalesce(json_agg(t), '[]'::json) FROM certificate_counts t) AS certificate_counts,
      (SELECT coalesce(json_agg(t), '[]'::json) FROM holders t) AS holders,
      (SELECT coalesce(json_agg(t), '[]'::json) FROM purchase_counts t) AS purchase_counts,
      (SELECT coalesce(json_agg(t), '[]'::json) FROM buyer_counts t) AS buyer_counts,
      (SELECT coalesce(json_agg(t ORDER BY t.id), '[]'::json) FROM (SELECT id, code, name FROM categories) t) AS categories
  `);
  const row = rows[0] as Record<string, unknown>;
  const json = <T>(value: unknown): T[] => (typeof value === 'string' ? JSON.parse(value) : value) as T[];
  const enrollmentGroups = json<EnrollmentGroup>(row.enrollment_groups);
  const students = json<StudentRow>(row.students);
  const courseCounts = json<CourseRow>(row.course_counts);
  const certificateCounts = json<CertificateRow>(row.certificate_counts);
  const holders = json<HolderRow>(row.holders);
  const purchaseCounts = json<PurchaseRow>(row.purchase_counts);
  const buyerCounts = json<BuyerRow>(row.buyer_counts);
  const categories = json<CategoryRow>(row.categories);

  // scope: undefined = overall, a number = that category.
  const metricsFor = (categoryId: number | undefined): ProgressMetrics => {
    const pick = <T extends Grouped>(list: T[]): T | undefined =>
      list.find((r) => (categoryId === undefined ? r.is_total : !r.is_total && r.category_id === categoryId));
    const groups = enrollmentGroups.filter((g) => categoryId === undefined || g.category_id === categoryId);
    const courses = pick(courseCounts);
    const certs = pick(certificateCounts);
    const purchases = pick(purchaseCounts);
    const enrollments = groups.reduce((n, g) => n + g.enrollments, 0);
    return {
      totalDaftar: enrollments,
      totalBeli: purchases?.paid ?? 0,
      totalSelesai: groups.reduce((n, g) => n + g.finished, 0),
      totalSertifikat: certs?.certificates ?? 0,
      totalClasses: courses?.classes ?? 0,
      totalCourses: courses?.courses ?? 0,
      totalStudents: pick(students)?.students ?? 0,
      completionRate: completionRate(groups),
      buyers30Days: pick(buyerCounts)?.buyers ?? 0,
      revenue30Days: Number(purchases?.revenue ?? 0),
      totalKum30Days: Number(certs?.kum ?? 0),
      certificatesCount: certs?.certificates ?? 0,
      peopleWithBadgeCount: pick(holders)?.holders ?? 0,
    };
  };

  return {
    overall: metricsFor(undefined),
    perCategory: categories.map((c) => ({
      categoryId: c.id,
      categoryCode: c.code,
      categoryName: c.name,
      ...metricsFor(c.id),
    })),
  };
}

/**
 * The spec's completion rate, exactly: the mean over enrollments of completed ÷ chapters × 100,
 * summed as a fraction (grouped by chapter count, so the denominators stay few) and rounded half
 * up to 2 decimals only at the end. Floating point would misround values like 12.345.
 */
export function completionRate(groups: Pick<EnrollmentGroup, 'chapter_count' | 'enrollments' | 'completed_sum'>[]): number {
  let enrollments = 0n;
  // Σ completed/chapters as num/den.
  let num = 0n;
  let den = 1n;
  for (const g of groups) {
    enrollments += BigInt(g.enrollments);
    if (g.chapter_count <= 0) continue; // progress 0 for a course without chapters
    const k = BigInt(g.chapter_count);
    num = num * k + BigInt(g.completed_sum) * den;
    den *= k;
    const d = gcd(num, den);
    num /= d;
    den /= d;
  }
  if (enrollments === 0n) return 0;
  // Hundredths of a percent: 100 (percent) × 100 (two decimals) × Σ / enrollments, rounded half up.
  const scaledNum = 10_000n * num;
  const scaledDen = den * enrollments;
  const hundredths = (2n * scaledNum + scaledDen) / (2n * scaledDen);
  return Number(hundredths) / 100;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}
