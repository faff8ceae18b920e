import { bundles, categories, chapters, courses, type Db, modules, users } from '@lms/db';
import { accreditCourseValue } from '@lms/db/testing';
import { eq } from 'drizzle-orm';
import type { LmsApp } from '../../src/app.js';
import { makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

type CourseFields = Partial<typeof courses.$inferInsert>;

/** A buyer-visible course of the teacher (published, with an event code) with one module of `chapterCount` chapters. */
export async function makeCourse(
  db: Db,
  teacher: { id: string; institutionId: number | null },
  fields: CourseFields = {},
  chapterCount = 2,
) {
  const [course] = await db
    .insert(courses)
    .values({
      name: 'A course',
      teacherId: teacher.id,
      institutionId: teacher.institutionId!,
      isPublished: true,
      eventCode: 'EV-1',
      enrollmentType: 'open',
      isPurchasable: false,
      ...fields,
    })
    .returning();
  await accreditCourseValue(db, course!);
  const [mod] = await db.insert(modules).values({ courseId: course!.id, name: 'Module 1' }).returning();
  for (let i = 0; i < chapterCount; i++) {
    await db.insert(chapters).values({ moduleId: mod!.id, courseId: course!.id, name: `Chapter ${i + 1}`, orderIndex: i });
  }
  return course!;
}

export async function makeBundle(db: Db, courseOneId: number, courseTwoId: number, fields: Partial<typeof bundles.$inferInsert> = {}) {
  const [category] = await db
    .insert(categories)
    .values({ code: `B${courseOneId}x${courseTwoId}`, name: 'Bundles' })
    .returning();
  const [bundle] = await db
    .insert(bundles)
    .values({ name: 'A pair', categoryId: category!.id, courseOneId, courseTwoId, ...fields })
    .returning();
  return bundle!;
}

export async function setTier(db: Db, userId: string, tier: 'anggota' | 'umum' | 'mahasiswa' | null) {
  await db.update(users).set({ tier }).where(eq(users.id, userId));
}

/** Two institutions, a teacher and an admin in each, a super_admin and three learners, each with a session. */
export async function makeCast(app: LmsApp, db: Db) {
  const institutionId = await makeInstitution(db, 'Home');
  const otherInstitutionId = await makeInstitution(db, 'Elsewhere');
  const person = async (role: 'student' | 'teacher' | 'admin' | 'super_admin', institutionId: number | null, name: string) => {
    const user = await makeUser(db, { role, institutionId, name });
    return { ...user, cookie: await sessionCookieFor(app, user.id) };
  };
  return {
    institutionId,
    otherInstitutionId,
    teacher: await person('teacher', institutionId, 'Teacher'),
    otherTeacher: await person('teacher', institutionId, 'Other teacher'),
    admin: await person('admin', institutionId, 'Admin'),
    otherAdmin: await person('admin', otherInstitutionId, 'Admin elsewhere'),
    superAdmin: await person('super_admin', null, 'Super admin'),
    learner: await person('student', null, 'Learner'),
    otherLearner: await person('student', null, 'Other learner'),
    thirdLearner: await person('student', null, 'Third learner'),
  };
}

/** The headers of a same-origin fetch of our pages: the session cookie and the CSRF header. */
export const asSession = (cookie: string) => ({ cookie, 'x-requested-with': 'fetch' });
