import type { Test } from 'tap';
import type { Db } from '../src/client.js';
import { categories, chapters, courses, institutions, modules, users } from '../src/schema/index.js';

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

let n = 0;

/** A teacher, an institution, a category and a course with `modulesCount` x `chaptersPerModule` chapters. */
export async function makeCourse(db: Db, { modulesCount = 2, chaptersPerModule = 2 } = {}) {
  n += 1;
  const [inst] = await db.insert(institutions).values({ name: `Inst ${n}` }).returning();
  const [teacher] = await db.insert(users).values({ email: `teacher${n}@t.test`, name: 'T', role: 'teacher' }).returning();
  const [cat] = await db.insert(categories).values({ code: `C${n}`, name: `Cat ${n}` }).returning();
  const [course] = await db
    .insert(courses)
    .values({ name: `Course ${n}`, teacherId: teacher!.id, institutionId: inst!.id, categoryId: cat!.id })
    .returning();
  const mods = await db
    .insert(modules)
    .values(Array.from({ length: modulesCount }, (_, i) => ({ courseId: course!.id, name: `M${i}`, orderIndex: i })))
    .returning();
  const chs = await db
    .insert(chapters)
    .values(mods.flatMap((m) => Array.from({ length: chaptersPerModule }, (_, i) => ({ moduleId: m.id, courseId: course!.id, name: `Ch${i}`, orderIndex: i }))))
    .returning();
  return { institutionId: inst!.id, teacher: teacher!, categoryId: cat!.id, course: course!, modules: mods, chapters: chs };
}

export async function makeStudent(db: Db) {
  n += 1;
  const [u] = await db.insert(users).values({ email: `student${n}@t.test`, name: `S${n}` }).returning();
  return u!;
}
