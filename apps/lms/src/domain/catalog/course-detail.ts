import type { CourseDetail, CourseDetailWithAnswers } from '@lms/contracts';
import { MAX_ID } from '@lms/contracts';
import { categories, courses, type Db, enrollments, users } from '@lms/db';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { preparedOnce } from '../../lib/prepared.js';
import { loadCourseProgress } from '../rules/unlock.js';
import { type ContentAccess, contentAccessOf, isPreviewChapterSql, openParts, readsAnswerKeys } from '../rules/content-access.js';
import { isBuyerVisible } from '../rules/buyer-visible.js';
import { categoryOf, publicOptionsOf } from '../rules/public-fields.js';
import { type CatalogViewer, mayViewHiddenCourse, toIso } from './viewer.js';
import { passThroughCourseColumns } from './course-fields.js';

export type CourseDetailView = { withAnswerKeys: false; course: CourseDetail } | { withAnswerKeys: true; course: CourseDetailWithAnswers };

/**
 * A course's detail page for a viewer, or null when it does not exist or the viewer may not see
 * it (a course that is not buyer-visible exists only for its owner and super_admins, by session).
 * Two prepared statements, whatever the size: the course row (which decides who may see what),
 * then its tree (modules, chapters, quizzes, questions) as one JSON document built by PostgreSQL;
 * a learner's answer reads their progress in between, to know which chapters are open to them.
 * What the tree carries is the content rule's (rules/content-access.ts): answer keys are selected
 * only for the course's authors (the other trees do not read them, options are rebuilt without
 * isCorrect, and the public response schema does not declare them either); chapter text and quiz
 * questions only where the rule opens them, so withheld content never leaves the database.
 */
export async function findCourseDetail(db: Db, viewer: CatalogViewer, id: number): Promise<CourseDetailView | null> {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) return null;
  const [row] = await courseStatement(db).execute({ id, userId: viewer.userId });
  if (!row) return null;
  const c = row.course;
  if (!isBuyerVisible(c) && !mayViewHiddenCourse(viewer, c.teacherId)) return null;
  const access = contentAccessOf({ ...viewer, institutionId: row.viewerInstitutionId }, c, { enrolled: row.enrolled });
  const withAnswerKeys = readsAnswerKeys(access);
  const [tree] = await loadTree(db, access, id, viewer.userId);
  const course = {
    ...c,
    startDate: c.startDate ? toIso(c.startDate) : null,
    endDate: c.endDate ? toIso(c.endDate) : null,
    createdAt: toIso(c.createdAt),
    updatedAt: toIso(c.updatedAt),
    teacherName: row.teacherName,
    teacherEmail: row.teacherEmail,
    category: categoryOf(c.categoryId, row.categoryCode, row.categoryName),
    // One enrollment per (student, course), so both counts are the enrollment counter.
    enrollmentCount: c.studentCount,
    modules: tree?.modules ?? [],
    moduleQuizzes: tree?.moduleQuizzes ?? [],
  };
  return withAnswerKeys
    ? { withAnswerKeys, course: course as CourseDetailWithAnswers }
    : { withAnswerKeys, course: course as CourseDetail };
}

const courseStatement = preparedOnce((db: Db) =>
  db
    .select({
      course: {
        id: courses.id,
        name: courses.name,
        description: courses.description,
        instructor: courses.instructor,
        type: courses.type,
        enrollmentType: courses.enrollmentType,
        startDate: courses.startDate,
        endDate: courses.endDate,
        teacherId: courses.teacherId,
        institutionId: courses.institutionId,
        categoryId: courses.categoryId,
        courseCode: courses.courseCode,
        eventCode: courses.eventCode,
        isPublished: courses.isPublished,
        nilaiKum: courses.nilaiKum,
        coverPicture: courses.coverPicture,
        isPurchasable: courses.isPurchasable,
        price: courses.price,
        priceNonMember: courses.priceNonMember,
        priceMahasiswa: courses.priceMahasiswa,
        currency: courses.currency,
        previewMode: courses.previewMode,
        createdAt: courses.createdAt,
        updatedAt: courses.updatedAt,
        studentCount: courses.studentCount,
        ...passThroughCourseColumns,
      },
      teacherName: users.name,
      teacherEmail: users.email,
      categoryCode: categories.code,
      categoryName: categories.name,
      // What the content rule asks of the viewer (an API key's owner is read and not used).
      viewerInstitutionId: sql<number | null>`(select v.institution_id from users v where v.id = ${sql.placeholder('userId')})`,
      enrolled: sql<boolean>`exists (select 1 from ${enrollments} where ${and(
        eq(enrollments.courseId, courses.id),
        eq(enrollments.userId, sql.placeholder('userId')),
      )})`,
    })
    .from(courses)
    .innerJoin(users, eq(users.id, courses.teacherId))
    .leftJoin(categories, eq(categories.id, courses.categoryId))
    .where(eq(courses.id, sql.placeholder('id')))
    .limit(1)
    .prepare('catalog_course_detail'),
);

/**
 * The tree this access reads: authors the keyed tree, managers the whole tree without keys,
 * learners the tree with the parts their progress opens, everyone else the outline (and the
 * preview chapter).
 */
async function loadTree(db: Db, access: ContentAccess, id: number, userId: string) {
  switch (access) {
    case 'author':
      return treeWithAnswerKeys(db).execute({ id });
    case 'manager':
      return wholeTree(db).execute({ id });
    case 'learner': {
      const { chapterIds, moduleIds } = openParts((await loadCourseProgress(db, userId, id)).state);
      return openTree(db).execute({ id, chapterIds, moduleIds });
    }
    default:
      return openTree(db).execute({ id, chapterIds: [], moduleIds: [] });
  }
}

/** A timestamp as JavaScript's toISOString writes it (UTC, milliseconds, `Z`). */
const isoTime = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/** A question object; the answer-key fields only in the keyed variant. */
function questionJson(withAnswerKeys: boolean): SQL {
  const keys = withAnswerKeys
    ? sql`, 'options', qu.options, 'correctAnswer', qu.correct_answer, 'essayAnswer', qu.essay_answer, 'explanation', qu.explanation`
    : sql`, 'options', ${publicOptionsOf(sql`qu.options`)}`;
  return sql`json_build_object('id', qu.id, 'quizId', qu.quiz_id, 'questionText', qu.question_text,
    'questionType', qu.question_type, 'orderIndex', qu.order_index, 'points', qu.points${keys})`;
}

/**
 * Which tree a statement builds: `keys` everything with the answer keys, `whole` everything
 * without them, `open` the chapter text and quiz questions of the parts named by the
 * `chapterIds` and `moduleIds` placeholders (and the preview chapter) only.
 */
type TreeKind = 'keys' | 'whole' | 'open';

/** A quiz object (alias q) with its questions in order. */
function quizJson(kind: TreeKind): SQL {
  const questions = sql`coalesce((
      select json_agg(${questionJson(kind === 'keys')} order by qu.order_index, qu.id) from questions qu where qu.quiz_id = q.id
    ), '[]'::json)`;
  const opened = sql`((q.scope = 'chapter' and q.chapter_id = any(${sql.placeholder('chapterIds')}::int[]))
      or (q.scope = 'module' and q.module_id = any(${sql.placeholder('moduleIds')}::int[])))`;
  return sql`json_build_object('id', q.id, 'chapterId', q.chapter_id, 'name', q.name, 'description', q.description,
    'quizType', q.quiz_type, 'minimumScore', q.minimum_score, 'timeLimit', q.time_limit,
    'questions', ${kind === 'open' ? sql`case when ${opened} then ${questions} else '[]'::json end` : questions})`;
}

/** A chapter's text as this tree reads it (alias ch of the course c). */
function chapterContent(kind: TreeKind): SQL {
  if (kind !== 'open') return sql`ch.content`;
  const preview = isPreviewChapterSql({ id: sql`c.id`, previewMode: sql`c.preview_mode` }, sql`ch.id`);
  return sql`case when ch.id = any(${sql.placeholder('chapterIds')}::int[]) or ${preview} then ch.content else '' end`;
}

/**
 * The course's tree in the shape of the detail answer: modules in order, each with its chapters
 * in order, each with its chapter quizzes (id order) and their questions; and the module quizzes
 * in module order then id order. Every subquery is bounded by the course id, so each reads the
 * course's own rows through its index (chapters_course_idx, quizzes_course_idx).
 */
function treeStatement(db: Db, kind: TreeKind, name: string) {
  const quiz = quizJson(kind);
  return db
    .select({
      modules: sql<CourseDetailWithAnswers['modules']>`coalesce((
        select json_agg(json_build_object('id', m.id, 'courseId', m.course_id, 'name', m.name, 'description', m.description,
          'orderIndex', m.order_index, 'createdAt', ${isoTime('m.created_at')}, 'updatedAt', ${isoTime('m.updated_at')},
          'chapters', coalesce((
            select json_agg(json_build_object('id', ch.id, 'moduleId', ch.module_id, 'name', ch.name, 'content', ${chapterContent(kind)},
              'orderIndex', ch.order_index, 'createdAt', ${isoTime('ch.created_at')}, 'updatedAt', ${isoTime('ch.updated_at')},
              'quizzes', coalesce((
                select json_agg(${quiz} order by q.id) from quizzes q
                where q.course_id = c.id and q.scope = 'chapter' and q.chapter_id = ch.id
              ), '[]'::json)) order by ch.order_index, ch.id)
            from chapters ch where ch.course_id = c.id and ch.module_id = m.id
          ), '[]'::json)) order by m.order_index, m.id)
        from modules m where m.course_id = c.id
      ), '[]'::json)`,
      moduleQuizzes: sql<CourseDetailWithAnswers['moduleQuizzes']>`coalesce((
        select json_agg(${quiz} order by qm.order_index, qm.id, q.id)
        from quizzes q join modules qm on qm.id = q.module_id and qm.course_id = c.id
        where q.course_id = c.id and q.scope = 'module'
      ), '[]'::json)`,
    })
    .from(sql`courses c`)
    .where(sql`c.id = ${sql.placeholder('id')}`)
    .prepare(name);
}

const treeWithAnswerKeys = preparedOnce((db: Db) => treeStatement(db, 'keys', 'catalog_course_tree_with_answer_keys'));
const wholeTree = preparedOnce((db: Db) => treeStatement(db, 'whole', 'catalog_course_tree_whole'));
const openTree = preparedOnce((db: Db) => treeStatement(db, 'open', 'catalog_course_tree_open'));
