import type { Db } from '@lms/db';
import type { LmsApp } from '../../src/app.js';
import { makeUser, sessionCookieFor } from './fixtures.js';

type Person = Awaited<ReturnType<typeof makeUser>> & { cookie: string };

/**
 * The roles an authorization test walks through: a teacher, a second teacher, an admin, a
 * super_admin and a student, each with a session (`cookie`, the Cookie header). The teachers and
 * the admin belong to `institutionId` when given, to none otherwise; `teacher` names the first
 * teacher when a test shows its name. (The enrolment tests' makeCast is a wider world: two
 * institutions and three learners.)
 */
export async function makeRoleCast(
  app: LmsApp,
  db: Db,
  { institutionId = null, teacher = {} }: { institutionId?: number | null; teacher?: { name?: string; email?: string } } = {},
) {
  const person = async (fields: Parameters<typeof makeUser>[1]): Promise<Person> => {
    const user = await makeUser(db, fields);
    return { ...user, cookie: await sessionCookieFor(app, user.id) };
  };
  return {
    teacher: await person({ role: 'teacher', institutionId, ...teacher }),
    otherTeacher: await person({ role: 'teacher', institutionId }),
    admin: await person({ role: 'admin', institutionId }),
    superAdmin: await person({ role: 'super_admin' }),
    student: await person({ role: 'student' }),
  };
}
