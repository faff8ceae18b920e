import type { CourseDetail, CourseDetailWithAnswers } from '@lms/contracts';
import { MAX_ID } from '@lms/contracts';
import { categories, courses, type Db, users } from '@lms/db';
import { eq, type SQL, sql } from 'drizzle-orm';
import { preparedOnce } from '../../lib/prepared.js';
import { isBuyerVisible } from './buyer-visible.js';
import { categoryOf, publicOptionsOf } from './public-fields.js';
import { type CatalogViewer, mayViewAnswerKeys, mayViewHiddenCourse, toIso } from './viewer.js';

export type CourseDetailView = { withAnswerKeys: false; course: CourseDetail } | { withAnswerKeys: true; course: CourseDetailWithAnswers };

/**
 * A course's detail page for a viewer, or null when it does not exist or the viewer may not see
 * it (a course that is not buyer-visible exists only for its owner and super_admins, by session).
 * Two prepared statements, whatever the size: the course row (which decides who may see what),
 * then its tree (modules, chapters, quizzes, questions) as one JSON document built by PostgreSQL.
 * Answer keys are selected only for those who may see them: the public tree statement does not
 * read them (options are rebuilt without isCorrect), and the public response schema does not
 * declare them either.
 */
export async function findCourseDetail(db: Db, viewer: CatalogViewer, id: number): Promise<CourseDetailView | null> {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) return null;
  const [row] = await courseStatement(db).execute({ id });
  if (!row) return null;
  const c = row.course;
  if (!isBuyerVisible(c) && !mayViewHiddenCourse(viewer, c.teacherId)) return null;
  const withAnswerKeys = mayViewAnswerKeys(viewer, c.teacherId);
  const [tree] = await (withAnswerKeys ? treeWithAnswerKeys(db) : publicTree(db)).execute({ id });
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
        admissions: courses.admissions,
        academics: courses.academics,
        tuitionAndFinancing: courses.tuitionAndFinancing,
        careers: courses.careers,
        studentExperience: courses.studentExperience,
      },
      teacherName: users.name,
      teacherEmail: users.email,
      categoryCode: categories.code,
      categoryName: categories.name,
    })
    .from(courses)
    .innerJoin(users, eq(users.id, courses.teacherId))
    .leftJoin(categories, eq(categories.id, courses.categoryId))
    .where(eq(courses.id, sql.placeholder('id')))
    .limit(1)
    .prepare('catalog_course_detail'),
);

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

/** A quiz object (alias q) with its questions in order. */
function quizJson(withAnswerKeys: boolean): SQL {
  return sql`json_build_object('id', q.id, 'chapterId', q.chapter_id, 'name', q.name, 'description', q.description,
    'quizType', q.quiz_type, 'minimumScore', q.minimum_score, 'timeLimit', q.time_limit,
    'questions', coalesce((
      select json_agg(${questionJson(withAnswerKeys)} order by qu.order_index, qu.id) from questions qu where qu.quiz_id = q.id
    ), '[]'::json))`;
}

/**
 * The course's tree in the shape of the detail answer: modules in order, each with its chapters
 * in order, each with its chapter quizzes (id order) and their questions; and the module quizzes
 * in module order then id order. Every subquery is bounded by the course id, so each reads the
 * course's own rows through its index (chapters_course_idx, quizzes_course_idx).
 */
function treeStatement(db: Db, withAnswerKeys: boolean, name: string) {
  const quiz = quizJson(withAnswerKeys);
  return db
    .select({
      modules: sql<CourseDetailWithAnswers['modules']>`coalesce((
        select json_agg(json_build_object('id', m.id, 'courseId', m.course_id, 'name', m.name, 'description', m.description,
          'orderIndex', m.order_index, 'createdAt', ${isoTime('m.created_at')}, 'updatedAt', ${isoTime('m.updated_at')},
          'chapters', coalesce((
            select json_agg(json_build_object('id', ch.id, 'moduleId', ch.module_id, 'name', ch.name, 'content', ch.content,
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

const publicTree = preparedOnce((db: Db) => treeStatement(db, false, 'catalog_course_tree_public'));
const treeWithAnswerKeys = preparedOnce((db: Db) => treeStatement(db, true, 'catalog_course_tree_with_answer_keys'));
