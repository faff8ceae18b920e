import { courses } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { asc } from 'drizzle-orm';
import t from 'tap';
import { contentAccessOf } from '../../src/domain/rules/content-access.js';
import { managesCourse, managesCourseColumn } from '../../src/domain/rules/course-managers.js';
import { makeCourse } from '../helpers/catalog-fixtures.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { makeInstitution, makeUser } from '../helpers/fixtures.js';

// The rules written twice, in SQL for statements and in JS for loaded rows, must say the same.

const testDb = await createTestDb(testDatabaseUrl);
t.teardown(() => testDb.destroy());
const db = testDb.db;
const north = await makeInstitution(db, 'North');
const south = await makeInstitution(db, 'South');
const people = [
  await makeUser(db, { role: 'teacher', institutionId: north }),
  await makeUser(db, { role: 'teacher', institutionId: south }),
  await makeUser(db, { role: 'admin', institutionId: north }),
  await makeUser(db, { role: 'admin', institutionId: null }),
  await makeUser(db, { role: 'super_admin' }),
  await makeUser(db, { role: 'student', institutionId: north }),
];
const owned = [
  await makeCourse(db, { institutionId: north, teacherId: people[0]!.id }),
  await makeCourse(db, { institutionId: south, teacherId: people[1]!.id }),
  await makeCourse(db, { institutionId: south, teacherId: people[0]!.id, isPublished: false }),
];

t.test('who manages a course: the SQL column and the JS function agree for every person and course', async (t) => {
  for (const user of people) {
    const person = { ...user, userId: user.id };
    const rows = await db
      .select({ id: courses.id, teacherId: courses.teacherId, institutionId: courses.institutionId, managed: managesCourseColumn(person) })
      .from(courses)
      .orderBy(asc(courses.id));
    t.equal(rows.length, owned.length);
    for (const row of rows) {
      t.equal(row.managed, managesCourse(person, row), `${person.role} of ${person.institutionId}, course ${row.id}`);
    }
  }
});

t.test('the content rule by kind of viewer', async (t) => {
  const [teacher, , admin, lonelyAdmin, superAdmin, student] = people;
  const course = owned[0]!;
  const viewer = (p: (typeof people)[number], kind: 'session' | 'api-key' = 'session') => ({ kind, ...p, userId: p.id });
  t.equal(contentAccessOf(viewer(teacher!), course, { enrolled: false }), 'author');
  t.equal(
    contentAccessOf(viewer(teacher!, 'api-key'), course, { enrolled: true }),
    'outline',
    "the owner's key reads what every key reads",
  );
  t.equal(contentAccessOf(viewer(superAdmin!), course, { enrolled: false }), 'author');
  t.equal(contentAccessOf(viewer(admin!), course, { enrolled: false }), 'manager');
  t.equal(contentAccessOf(viewer(lonelyAdmin!), course, { enrolled: false }), 'outline', 'an admin of no institution manages nothing');
  t.equal(contentAccessOf(viewer(student!), course, { enrolled: true }), 'learner');
  t.equal(contentAccessOf(viewer(student!), course, { enrolled: false }), 'outline');
  t.equal(contentAccessOf(viewer(people[1]!), course, { enrolled: true }), 'learner', "another institution's teacher, enrolled, learns");
});
