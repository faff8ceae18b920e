import {
  type CourseListQuery,
  PAGE_SIZE_DEFAULT,
  type Pagination,
  type PublicCourse,
  UNPAGINATED_CAP,
} from '@lms/contracts';
import { categories, courses, type Db } from '@lms/db';
import { and, asc, desc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { buildPublicCourses, courseSummaryColumns } from './course-summaries.js';
import { enrolmentCodeFor } from './enrolment-code.js';
import { type CatalogViewer, escapeLike, learnerOf, listVisibility } from './viewer.js';

export interface CourseListPage {
  courses: PublicCourse[];
  pagination: Pagination;
}

/**
 * One page of the catalog for a viewer. Cost: one statement for the page and its total, one for
 * the page's course trees, one more for a learner's progress (buildPublicCourses); a page past
 * the end adds a plain count. The same whatever the page size.
 */
export async function findVisibleCourses(db: Db, viewer: CatalogViewer, query: CourseListQuery): Promise<CourseListPage> {
  const search = query.search?.trim();
  // The courses a search matches, computed once per statement: a CTE that both the total and the
  // page read (PostgreSQL materializes a CTE used twice), so the trigram lookup runs once.
  const matched = search ? db.$with('matched', { id: sql<number>`id` }).as(searchMatches(search)) : null;
  const from = matched ? db.with(matched) : db;
  const where = and(...filters(viewer, query, matched !== null));
  const paginated = query.page !== undefined || query.limit !== undefined;
  const page = query.page ?? 1;
  const limit = paginated ? (query.limit ?? PAGE_SIZE_DEFAULT) : UNPAGINATED_CAP;
  const order = ordering(query.sortBy);

  // Deferred join: the page's ids first, from the narrowest scan that yields them in order (for
  // the default order an index-only scan of courses_buyer_visible_idx, so a deep offset skips
  // index entries, not whole rows), then the full rows of those ids only. The total rides along
  // as an uncorrelated scalar subquery (computed once, an InitPlan): a plain count of the same
  // filter, no join, no window function over every matching row. Inside both subqueries
  // `courses` is their own scan.
  const filtered = where ?? sql`true`;
  const pageIds = sql`(select ${courses.id} from ${courses} where ${filtered} order by ${sql.join(order, sql`, `)} limit ${limit} offset ${(page - 1) * limit})`;
  const rows = await from
    .select({ ...courseSummaryColumns, enrollmentCode: enrolmentCodeFor(viewer), total: sql<number>`(select count(*)::int from ${courses} where ${filtered})` })
    .from(courses)
    .leftJoin(categories, eq(categories.id, courses.categoryId))
    .where(sql`${courses.id} in ${pageIds}`)
    .orderBy(...order);
  const total = rows.length > 0 ? rows[0].total : await countVisible(from, where);
  return {
    courses: await buildPublicCourses(db, rows, learnerOf(viewer)),
    pagination: { page, limit, total, totalPages: Math.ceil(total / limit) },
  };
}

/** The total alone, for a page past the end (where the page statement has no row to carry it). */
async function countVisible(from: Pick<Db, 'select'>, where: SQL | undefined): Promise<number> {
  const [counted] = await from.select({ total: sql<number>`count(*)::int` }).from(courses).where(where);
  return counted?.total ?? 0;
}

/**
 * Two id sets, unioned: courses whose search_text (name, description, instructor, course code)
 * matches, through its trigram GIN index, and courses of a matching category. Written as an OR
 * of the two conditions instead, PostgreSQL gives up the trigram index and filters every visible
 * course (EXPLAIN on 100k courses: 517 ms for the count, against 14 ms).
 */
function searchMatches(search: string): SQL {
  const pattern = `%${escapeLike(search)}%`;
  return sql`select sc.id from courses sc where sc.search_text ilike ${pattern} escape '\\'
    union
    select cc.id from courses cc join categories cat on cat.id = cc.category_id
    where cat.code ilike ${pattern} escape '\\' or cat.name ilike ${pattern} escape '\\'`;
}

function filters(viewer: CatalogViewer, query: CourseListQuery, searched: boolean): (SQL | undefined)[] {
  const out: (SQL | undefined)[] = [listVisibility(viewer)];
  if (query.courseId !== undefined) out.push(eq(courses.id, query.courseId));
  if (query.categoryId === 'uncategorized') out.push(isNull(courses.categoryId));
  else if (query.categoryId !== undefined) out.push(eq(courses.categoryId, query.categoryId));
  if (searched) out.push(sql`${courses.id} in (select "id" from "matched")`);
  return out;
}

/** Every order ends on the id, newest first, so pages never overlap or skip. */
function ordering(sortBy: CourseListQuery['sortBy']): SQL[] {
  switch (sortBy) {
    case 'name':
      return [asc(sql`lower(${courses.name})`), asc(courses.name), desc(courses.id)];
    case 'students':
      return [desc(courses.studentCount), desc(courses.id)];
    case 'modules':
      return [desc(courses.moduleCount), desc(courses.id)];
    default:
      return [desc(courses.id)];
  }
}
