import type { Db } from './client.js';
import { categories, chapters, courseAccreditations, courses, creditSchemes, institutions, modules, users } from './schema/index.js';

// Rows for tests, shared by this package's tests and the apps' (through `@lms/db/testing`), so
// that a course means the same thing in every test that makes one.

let counter = 0;
const next = () => ++counter;

/** The one row an insert returned. */
function only<T>(rows: T[]): T {
  const [row] = rows;
  if (row === undefined) throw new Error('the insert returned no row');
  return row;
}

export async function makeCategory(db: Db, fields: { code?: string; name?: string } = {}) {
  const n = next();
  return only(
    await db
      .insert(categories)
      .values({ code: fields.code ?? `CAT${n}`, name: fields.name ?? `Category ${n}` })
      .returning(),
  );
}

type CourseInsert = typeof courses.$inferInsert;

/**
 * A course; buyer-visible (published, with an event code) unless the fields say otherwise.
 * Without a `teacherId`, a new institution and teacher own it. `chapters` lists the chapter
 * count of each module to create (none by default); the result is the course row with them.
 * A `nilaiKum` > 0 also records its accreditation (reference 'SK-TEST-001', in force since 1970)
 * so that its certificates earn credit as the value says (credit needs an accreditation).
 */
export async function makeCourse(db: Db, fields: Partial<CourseInsert> = {}, shape: { chapters?: number[] } = {}) {
  const n = next();
  let { teacherId, institutionId } = fields;
  if (teacherId === undefined) {
    if (institutionId === undefined) {
      institutionId = only(
        await db
          .insert(institutions)
          .values({ name: `Institution ${n}` })
          .returning(),
      ).id;
    }
    teacherId = only(
      await db
        .insert(users)
        .values({ email: `teacher${n}@t.test`, name: `Teacher ${n}`, role: 'teacher', institutionId })
        .returning(),
    ).id;
  }
  if (institutionId === undefined) throw new Error('makeCourse: a teacherId needs its institutionId');
  const course = only(
    await db
      .insert(courses)
      .values({
        name: `Course ${n}`,
        description: `Description ${n}`,
        instructor: `Instructor ${n}`,
        courseCode: `CODE-${n}`,
        isPublished: true,
        eventCode: `EV-${n}`,
        price: '100000.00',
        ...fields,
        teacherId,
        institutionId,
      })
      .returning(),
  );
  await accreditCourseValue(db, course);
  const tree = { modules: [] as (typeof modules.$inferSelect)[], chapters: [] as (typeof chapters.$inferSelect)[] };
  for (const [i, chapterCount] of (shape.chapters ?? []).entries()) {
    const mod = only(
      await db
        .insert(modules)
        .values({ courseId: course.id, name: `Module ${i + 1}`, orderIndex: i })
        .returning(),
    );
    tree.modules.push(mod);
    for (let j = 0; j < chapterCount; j++) {
      tree.chapters.push(
        only(
          await db
            .insert(chapters)
            .values({ moduleId: mod.id, courseId: course.id, name: `Chapter ${j + 1}`, orderIndex: j })
            .returning(),
        ),
      );
    }
  }
  return { ...course, ...tree };
}

/**
 * A test course's `nilaiKum` > 0 as its accreditation (reference 'SK-TEST-001', in force since
 * 1970), so that its certificates earn credit as the value says (credit needs an accreditation).
 * A scheme of the test's own naming becomes a scheme that requires nothing (as migration 0020 does).
 */
export async function accreditCourseValue(db: Db, course: { id: number; nilaiKum: number | null; creditScheme: string }) {
  if (course.nilaiKum === null || course.nilaiKum <= 0) return;
  await db
    .insert(creditSchemes)
    .values({ code: course.creditScheme, body: course.creditScheme, unit: course.creditScheme, maxPerCourse: 1000 })
    .onConflictDoNothing();
  await db.insert(courseAccreditations).values({
    courseId: course.id,
    scheme: course.creditScheme,
    reference: 'SK-TEST-001',
    validFrom: new Date('1970-01-01T00:00:00Z'),
    value: course.nilaiKum,
  });
}
