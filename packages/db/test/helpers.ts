import { sql } from 'drizzle-orm';
import type { Test } from 'tap';
import type { Db } from '../src/client.js';
import { users } from '../src/schema/index.js';

/**
 * The PostgreSQL server these tests create their databases on (TEST_DATABASE_URL), given to
 * createTestDb(); unset, the embedded database. The one place the db tests read the environment.
 */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;

/** The machine's PostgreSQL, for tests that need a server whatever TEST_DATABASE_URL says. */
export const postgresUrl = testDatabaseUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The database error behind a Drizzle query error (same shape on node-postgres and PGlite). */
export function dbError(err: unknown): { code?: string; constraint?: string; message: string } {
  const cause = (err as { cause?: unknown }).cause ?? err;
  return cause as { code?: string; constraint?: string; message: string };
}

/** Asserts that the promise fails with the SQLSTATE and, when given, the named constraint. */
export async function refused(t: Test, promise: Promise<unknown>, code: string, constraint?: string, message?: string) {
  try {
    await promise;
    t.fail(message ?? `expected ${code}${constraint ? ` on ${constraint}` : ''}, but it succeeded`);
  } catch (err) {
    const e = dbError(err);
    t.equal(e.code, code, `${message ?? 'refused'}: SQLSTATE ${code} (${e.message})`);
    if (constraint) t.match(`${e.constraint ?? ''} ${e.message}`, constraint, `by ${constraint}`);
  }
}

/** The error the call fails with; throws when it succeeds. */
export async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('did not fail');
}

let n = 0;

export async function makeStudent(db: Db) {
  n += 1;
  const [u] = await db
    .insert(users)
    .values({ email: `student${n}@t.test`, name: `S${n}` })
    .returning();
  return u!;
}

/**
 * A buyer-visible course with its own institution and teacher, written in plain SQL naming only
 * the columns every migration since 0001 has: for the tests that run against an older schema
 * (`migratedUpTo`), where a drizzle insert would name today's columns.
 */
export async function makeCourseOnOlderSchema(db: Db, name = 'Kursus') {
  n += 1;
  const institution = await db.execute<{ id: number }>(sql`insert into institutions (name) values (${`Institution ${n}`}) returning id`);
  const institutionId = institution.rows[0]!.id;
  const teacher = await db.execute<{ id: string }>(
    sql`insert into users (email, name, role, institution_id) values (${`old-teacher${n}@t.test`}, ${`Teacher ${n}`}, 'teacher', ${institutionId}) returning id`,
  );
  const teacherId = teacher.rows[0]!.id;
  const course = await db.execute<{ id: number }>(sql`
    insert into courses (name, description, instructor, course_code, is_published, event_code, price, teacher_id, institution_id)
    values (${name}, ${`Description ${n}`}, ${`Instructor ${n}`}, ${`OLD-${n}`}, true, ${`EV-OLD-${n}`}, 100000, ${teacherId}, ${institutionId})
    returning id`);
  return { id: course.rows[0]!.id, teacherId, institutionId };
}
