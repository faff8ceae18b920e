import { type CourseListQuery, PAGE_SIZE_DEFAULT, type Pagination, UNPAGINATED_CAP } from '@lms/contracts';
import { categories, courses, type Db, enrollments, genericPlanName, type UserRole } from '@lms/db';
import { and, asc, desc, eq, isNull, or, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { buildPublicCourses, type CatalogCourse } from './course-summaries.js';
import { courseSummaryColumns } from './course-summary-statements.js';
import { enrolmentCodeFor } from './enrolment-code.js';
import { managesCourseColumn } from '../rules/course-managers.js';
import { type CatalogViewer, escapeLike, learnerOf, listVisibility, type ViewerInSql } from './viewer.js';
import { preparedPer } from '../../lib/prepared.js';

export interface CourseListPage {
  courses: CatalogCourse[];
  pagination: Pagination;
}

/**
 * One page of the catalog for a viewer. Cost: one statement for the page and its total, one for
 * the page's course trees, one more for a learner's progress (buildPublicCourses); a page past
 * the end adds a plain count. The same whatever the page size. The page statement is prepared
 * once per shape of query (see pageStatement), so a request builds no SQL.
 */
export async function findVisibleCourses(
  db: Db,
  viewer: CatalogViewer,
  query: CourseListQuery,
  options: { enrolledToo?: boolean } = {},
): Promise<CourseListPage> {
  const search = query.search?.trim() || undefined;
  const paginated = query.page !== undefined || query.limit !== undefined;
  const page = query.page ?? 1;
  const limit = paginated ? (query.limit ?? PAGE_SIZE_DEFAULT) : UNPAGINATED_CAP;
  const shape: PageShape = {
    // An API key's owner does not change what it sees (listVisibility, enrolmentCodeFor).
    viewer: viewer.kind === 'api-key' ? 'api-key' : viewer.role,
    courseId: query.courseId !== undefined,
    category: query.categoryId === undefined ? 'any' : query.categoryId === 'uncategorized' ? 'none' : 'one',
    search: search !== undefined,
    sortBy: query.sortBy ?? 'newest',
    enrolledToo: options.enrolledToo === true && viewer.kind === 'session',
  };
  const values: PageValues = {
    userId: viewer.userId,
    courseId: query.courseId ?? 0,
    categoryId: typeof query.categoryId === 'number' ? query.categoryId : 0,
    pattern: search === undefined ? '' : `%${escapeLike(search)}%`,
    limit,
    offset: (page - 1) * limit,
  };
  const rows = await pageStatement(db, shape).execute(values);
  const total = rows.length > 0 ? rows[0].total : await countVisible(db, shape, values);
  return {
    courses: await buildPublicCourses(db, rows, learnerOf(viewer)),
    pagination: { page, limit, total, totalPages: Math.ceil(total / limit) },
  };
}

/** What decides the text of the page statement; everything else is a value (PageValues). */
interface PageShape {
  viewer: 'api-key' | UserRole;
  courseId: boolean;
  category: 'any' | 'none' | 'one';
  search: boolean;
  sortBy: NonNullable<CourseListQuery['sortBy']> | 'newest';
  /**
   * The courses the session's person is enrolled in as well, whatever listVisibility says: a
   * learner keeps the page of a course unpublished since (the course page only; never the API).
   */
  enrolledToo: boolean;
}

type PageValues = {
  userId: string;
  courseId: number;
  categoryId: number;
  /** The search as an ILIKE pattern ('' without a search). */
  pattern: string;
  limit: number;
  offset: number;
};

/** A placeholder filled from PageValues at execution. */
const value = (name: keyof PageValues) => sql.placeholder(name);

/**
 * The page statement of one shape, prepared once per database handle and shape (at most a few
 * hundred shapes: 6 kinds of viewer, 2 × 3 × 2 filters, 4 orders; the course page's enrolled-too
 * shape besides), named after its shape.
 *
 * Deferred join: the page's ids first, from the narrowest scan that yields them in order (for
 * the default order an index-only scan of courses_buyer_visible_idx, so a deep offset skips
 * index entries, not whole rows), then the full rows of those ids only. The total rides along as
 * an uncorrelated scalar subquery (computed once, an InitPlan): a plain count of the same filter,
 * no join, no window function over every matching row. Inside both subqueries `courses` is their
 * own scan. A search is a CTE that both the total and the page read (PostgreSQL materializes a
 * CTE used twice), so the trigram lookup runs once.
 */
const pageStatement = preparedPer(
  (shape: PageShape) => {
    const name = `catalog_page_${shape.viewer}_${shape.courseId ? 'course_' : ''}${shape.enrolledToo ? 'enrolled_' : ''}${shape.category}_${shape.search ? 'search_' : ''}${shape.sortBy}`;
    // A search's generic plan is as good as the plans for its values, and planning it anew on
    // every request was ~0.7 ms of its 2 ms (GENERIC_PLAN_PREFIX). A page without a search keeps
    // its per-values plans: its generic plan, blind to the LIMIT, reads every course.
    return shape.search ? genericPlanName(name) : name;
  },
  (db, shape, name) => buildPageStatement(db, shape, name),
);

/** The viewer of a shape, with its id as a placeholder: a statement serves every viewer of the kind. */
function viewerOf(shape: PageShape): ViewerInSql {
  const userId = value('userId');
  return shape.viewer === 'api-key' ? { kind: 'api-key', role: 'teacher', userId } : { kind: 'session', role: shape.viewer, userId };
}

/** Where the statements of a shape read from: the courses, or the search's matches first. */
function sourceOf(db: Db, shape: PageShape) {
  return shape.search ? db.with(db.$with('matched', { id: sql<number>`id` }).as(searchMatches(value('pattern')))) : db;
}

function buildPageStatement(db: Db, shape: PageShape, name: string) {
  const viewer = viewerOf(shape);
  const from = sourceOf(db, shape);
  const filtered = and(...filters(viewer, shape)) ?? sql`true`;
  const order = ordering(shape.sortBy);
  const pageIds = sql`(select ${courses.id} from ${courses} where ${filtered} order by ${sql.join(order, sql`, `)} limit ${value('limit')} offset ${value('offset')})`;
  return from
    .select({
      ...courseSummaryColumns,
      enrollmentCode: enrolmentCodeFor(viewer),
      readsContent: viewer.kind === 'session' ? managesCourseColumn(viewer) : courseSummaryColumns.readsContent,
      total: sql<number>`(select count(*)::int from ${courses} where ${filtered})`,
    })
    .from(courses)
    .leftJoin(categories, eq(categories.id, courses.categoryId))
    .where(sql`${courses.id} in ${pageIds}`)
    .orderBy(...order)
    .prepare(name);
}

/** The total alone, for a page past the end (where the page statement has no row to carry it). */
async function countVisible(db: Db, shape: PageShape, values: PageValues): Promise<number> {
  const [counted] = await sourceOf(db, shape)
    .select({ total: sql<number>`count(*)::int` })
    .from(courses)
    .where(and(...filters(viewerOf(shape), shape)))
    .execute(values);
  return counted?.total ?? 0;
}

/**
 * Two id sets, unioned: courses whose search_text (name, description, instructor, course code)
 * matches, through its trigram GIN index, and courses of a matching category. Written as an OR
 * of the two conditions instead, PostgreSQL gives up the trigram index and filters every visible
 * course (EXPLAIN on 100k courses: 517 ms for the count, against 14 ms).
 */
function searchMatches(pattern: SQLWrapper): SQL {
  return sql`select sc.id from courses sc where sc.search_text ilike ${pattern} escape '\\'
    union
    select cc.id from courses cc join categories cat on cat.id = cc.category_id
    where cat.code ilike ${pattern} escape '\\' or cat.name ilike ${pattern} escape '\\'`;
}

function filters(viewer: ViewerInSql, shape: PageShape): (SQL | undefined)[] {
  const shown = listVisibility(viewer);
  const out: (SQL | undefined)[] = [
    shape.enrolledToo && shown !== undefined
      ? or(shown, sql`exists (select 1 from ${enrollments} e where e.course_id = ${courses.id} and e.user_id = ${viewer.userId})`)
      : shown,
  ];
  if (shape.courseId) out.push(eq(courses.id, value('courseId')));
  if (shape.category === 'none') out.push(isNull(courses.categoryId));
  else if (shape.category === 'one') out.push(eq(courses.categoryId, value('categoryId')));
  if (shape.search) out.push(sql`${courses.id} in (select "id" from "matched")`);
  return out;
}

/** Every order ends on the id, newest first, so pages never overlap or skip. */
function ordering(sortBy: PageShape['sortBy']): SQL[] {
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
