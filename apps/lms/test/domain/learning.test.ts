import { chapterCompletions, chapters, courses, type Db, enrollments, modules } from '@lms/db';
import { and, eq, sql } from 'drizzle-orm';
import t from 'tap';
import { recordChapterCompletion } from '../../src/domain/learning.js';
import { createTestDb } from '@lms/db/testing';
import { makeInstitution, makeUser } from '../helpers/fixtures.js';

const AT = new Date('2026-06-01T00:00:00.000Z');

/** mulberry32: a small seeded PRNG, so a failing sequence can be replayed with its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(list: T[]): T | undefined => (list.length ? list[Math.floor(next() * list.length)] : undefined),
  };
}
type Rng = ReturnType<typeof prng>;

/**
 * Every maintained counter next to a recomputation from the raw rows. The recomputation goes
 * through modules (chapter → module → course), not through the denormalised course_id columns
 * the triggers use, so a wrong course on a row would show up too.
 */
async function counterMismatches(db: Db) {
  const { rows: courseRows } = await db.execute(sql`
    SELECT c.id,
           c.module_count, (SELECT count(*) FROM modules m WHERE m.course_id = c.id)::int AS raw_modules,
           c.chapter_count, (SELECT count(*) FROM chapters ch JOIN modules m ON m.id = ch.module_id WHERE m.course_id = c.id)::int AS raw_chapters,
           c.student_count, (SELECT count(*) FROM enrollments e WHERE e.course_id = c.id)::int AS raw_students
    FROM courses c ORDER BY c.id`);
  const { rows: enrollmentRows } = await db.execute(sql`
    SELECT e.id, e.user_id, e.course_id, e.completed_chapters,
           (SELECT count(DISTINCT cc.chapter_id) FROM chapter_completions cc
              JOIN chapters ch ON ch.id = cc.chapter_id JOIN modules m ON m.id = ch.module_id
             WHERE cc.user_id = e.user_id AND m.course_id = e.course_id)::int AS raw_completed
    FROM enrollments e ORDER BY e.id`);
  const mismatches: string[] = [];
  for (const r of courseRows as Record<string, number>[]) {
    if (r.module_count !== r.raw_modules) mismatches.push(`course ${r.id} module_count ${r.module_count} ≠ ${r.raw_modules}`);
    if (r.chapter_count !== r.raw_chapters) mismatches.push(`course ${r.id} chapter_count ${r.chapter_count} ≠ ${r.raw_chapters}`);
    if (r.student_count !== r.raw_students) mismatches.push(`course ${r.id} student_count ${r.student_count} ≠ ${r.raw_students}`);
  }
  for (const r of enrollmentRows as Record<string, number>[]) {
    if (r.completed_chapters !== r.raw_completed) {
      mismatches.push(`enrollment ${r.id} (${r.user_id}, ${r.course_id}) completed_chapters ${r.completed_chapters} ≠ ${r.raw_completed}`);
    }
  }
  return { mismatches, courses: courseRows.length, enrollments: enrollmentRows.length };
}

/** The counters as stored, to check that lms_recompute_counters() agrees (changes nothing). */
async function storedCounters(db: Db) {
  const { rows: c } = await db.execute(sql`SELECT id, module_count, chapter_count, student_count FROM courses ORDER BY id`);
  const { rows: e } = await db.execute(sql`SELECT id, completed_chapters FROM enrollments ORDER BY id`);
  return { c, e };
}

async function makeWorld(db: Db, courseCount: number, userCount: number) {
  const institutionId = await makeInstitution(db);
  const teacher = await makeUser(db, { role: 'teacher', institutionId });
  const courseIds: number[] = [];
  for (let i = 0; i < courseCount; i++) {
    const [c] = await db.insert(courses).values({ name: `course ${i}`, teacherId: teacher.id, institutionId }).returning();
    courseIds.push(c!.id);
    for (let m = 0; m < 2; m++) await addModule(db, c!.id, 2);
  }
  const userIds: string[] = [];
  for (let i = 0; i < userCount; i++) userIds.push((await makeUser(db)).id);
  return { courseIds, userIds };
}

async function addModule(db: Db, courseId: number, chapterCount: number) {
  const [mod] = await db.insert(modules).values({ courseId, name: 'module' }).returning();
  for (let i = 0; i < chapterCount; i++) await addChapter(db, mod!.id, courseId);
  return mod!.id;
}

async function addChapter(db: Db, moduleId: number, courseId: number) {
  await db.insert(chapters).values({ moduleId, courseId, name: 'chapter' });
}

/** One random write, as the application (or an operator) would make it. Returns its name. */
async function randomWrite(db: Db, rng: Rng, world: { courseIds: number[]; userIds: string[] }): Promise<string> {
  const user = rng.pick(world.userIds)!;
  const course = rng.pick(world.courseIds)!;
  const roll = rng.int(100);
  if (roll < 18) {
    await db.insert(enrollments).values({ userId: user, courseId: course }).onConflictDoNothing();
    return 'enroll';
  }
  if (roll < 26) {
    await db.delete(enrollments).where(and(eq(enrollments.userId, user), eq(enrollments.courseId, course)));
    return 'unenroll';
  }
  if (roll < 58) {
    // Any chapter of any course: often one the user already completed, often another course's.
    const all = await db.select({ id: chapters.id }).from(chapters);
    const chapter = rng.int(20) === 0 ? 999_999 : rng.pick(all)?.id;
    if (chapter === undefined) return 'complete (no chapter)';
    return `complete: ${await recordChapterCompletion(db, user, chapter, AT)}`;
  }
  if (roll < 68) {
    const done = await db.select().from(chapterCompletions).where(eq(chapterCompletions.userId, user));
    const one = rng.pick(done);
    if (one) await db.delete(chapterCompletions).where(and(eq(chapterCompletions.userId, user), eq(chapterCompletions.chapterId, one.chapterId)));
    return 'delete completion';
  }
  if (roll < 80) {
    const mods = await db.select().from(modules).where(eq(modules.courseId, course));
    const mod = rng.pick(mods);
    if (mod) await addChapter(db, mod.id, course);
    return 'add chapter';
  }
  if (roll < 90) {
    const list = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.courseId, course));
    const one = rng.pick(list);
    if (one) await db.delete(chapters).where(eq(chapters.id, one.id));
    return 'delete chapter';
  }
  if (roll < 95) {
    const mods = await db.select().from(modules).where(eq(modules.courseId, course));
    const mod = rng.pick(mods);
    if (mod) await db.delete(modules).where(eq(modules.id, mod.id));
    return 'delete module';
  }
  await addModule(db, course, rng.int(3));
  return 'add module';
}

t.test('recordChapterCompletion', async (t) => {
  const db = await createTestDb();
  t.teardown(() => db.destroy());
  const { courseIds, userIds } = await makeWorld(db.db, 2, 1);
  const [c1, c2] = courseIds as [number, number];
  const [u] = userIds as [string];
  const [ch1] = await db.db.select().from(chapters).where(eq(chapters.courseId, c1)).limit(1);
  const [ch2] = await db.db.select().from(chapters).where(eq(chapters.courseId, c2)).limit(1);
  await db.db.insert(enrollments).values({ userId: u, courseId: c1 });

  t.equal(await recordChapterCompletion(db.db, u, ch1!.id, AT), 'recorded');
  t.equal(await recordChapterCompletion(db.db, u, ch1!.id, AT), 'already-completed', 'a second completion is a no-op');
  t.equal(await recordChapterCompletion(db.db, u, 999_999, AT), 'unknown-chapter');
  t.equal(await recordChapterCompletion(db.db, u, ch2!.id, AT), 'recorded', "another course's chapter is recorded for that course");
  const rows = await db.db.select().from(chapterCompletions).orderBy(chapterCompletions.chapterId);
  t.same(
    rows.map((r) => [r.chapterId, r.courseId, r.completedAt.toISOString()]),
    [
      [ch1!.id, c1, AT.toISOString()],
      [ch2!.id, c2, AT.toISOString()],
    ],
    'the course comes from the chapter',
  );
  const [e1] = await db.db.select().from(enrollments).where(eq(enrollments.courseId, c1));
  t.equal(e1!.completedChapters, 1, "only the course's own chapter counts, once");

  // Enrolling after completing counts the earlier completion.
  await db.db.insert(enrollments).values({ userId: u, courseId: c2 });
  const [e2] = await db.db.select().from(enrollments).where(eq(enrollments.courseId, c2));
  t.equal(e2!.completedChapters, 1, 'an enrollment made after the completion counts it');

  // A raw write cannot tie a completion to a course its chapter is not in.
  await t.rejects(
    db.db.insert(chapterCompletions).values({ userId: u, chapterId: ch2!.id, courseId: c1 }),
    'a completion with another course than its chapter is refused by the foreign key',
  );
});

t.test('maintained counters equal a recomputation from raw rows after random writes', async (t) => {
  const seed = Number(process.env.TEST_SEED ?? Date.now() % 2 ** 31);
  t.comment(`seed ${seed} (replay with TEST_SEED=${seed})`);
  const rng = prng(seed);
  const db = await createTestDb();
  t.teardown(() => db.destroy());
  const world = await makeWorld(db.db, 4, 5);

  const ops = new Map<string, number>();
  const STEPS = 400;
  for (let step = 1; step <= STEPS; step++) {
    const op = await randomWrite(db.db, rng, world);
    ops.set(op, (ops.get(op) ?? 0) + 1);
    if (step % 50 === 0) {
      const { mismatches } = await counterMismatches(db.db);
      t.same(mismatches, [], `after ${step} writes every counter matches the raw rows`);
    }
  }
  t.comment(`writes: ${JSON.stringify(Object.fromEntries(ops))}`);
  // The sequence really exercised the paths that move the counters.
  for (const op of ['enroll', 'unenroll', 'complete: recorded', 'complete: already-completed', 'complete: unknown-chapter', 'delete completion', 'add chapter', 'delete chapter', 'delete module', 'add module']) {
    t.ok((ops.get(op) ?? 0) > 0, `${op} happened`);
  }
  const final = await counterMismatches(db.db);
  t.ok(final.enrollments > 0, `${final.enrollments} enrollments checked`);

  // And the repair function agrees: it has nothing to change.
  const before = await storedCounters(db.db);
  await db.db.execute(sql`SELECT lms_recompute_counters()`);
  t.same(await storedCounters(db.db), before, 'lms_recompute_counters() changes nothing');
});

t.test('concurrent writes on the same (user, course) pairs keep the counters exact (PostgreSQL)', async (t) => {
  const db = await createTestDb();
  t.teardown(() => db.destroy());
  if (db.kind !== 'postgres') {
    // PGlite has one connection: there is no concurrency to test; the sequential test above covers it.
    t.pass('PGlite: no concurrent connections (set TEST_DATABASE_URL to run this part)');
    return;
  }
  const seed = Number(process.env.TEST_SEED ?? Date.now() % 2 ** 31);
  t.comment(`seed ${seed}`);
  const rng = prng(seed);
  const world = await makeWorld(db.db, 2, 2);
  const PARALLEL = 20;
  const ROUNDS = 15;
  let deadlocks = 0;
  let committed = 0;

  for (let round = 1; round <= ROUNDS; round++) {
    // Start every round with no enrollments, so enrollment inserts race completions of the same pair.
    await db.db.delete(enrollments);
    const allChapters = await db.db.select({ id: chapters.id, courseId: chapters.courseId }).from(chapters);
    const tasks = Array.from({ length: PARALLEL }, (_, i) => {
      const user = rng.pick(world.userIds)!;
      const course = rng.pick(world.courseIds)!;
      const chapter = rng.pick(allChapters.filter((c) => c.courseId === course));
      const before = rng.int(15);
      const after = rng.int(15);
      const kind = i % 5 === 0 ? 'enroll' : rng.int(10);
      return db.db.transaction(async (tx) => {
        // Sleeps widen the windows between the row write, the trigger and the commit.
        await tx.execute(sql`SELECT pg_sleep(${before / 1000})`);
        if (kind === 'enroll' || kind < 2) {
          await tx.insert(enrollments).values({ userId: user, courseId: course }).onConflictDoNothing();
        } else if (kind < 7) {
          if (chapter) await recordChapterCompletion(tx, user, chapter.id, AT);
        } else if (kind === 7) {
          if (chapter) await tx.delete(chapterCompletions).where(and(eq(chapterCompletions.userId, user), eq(chapterCompletions.chapterId, chapter.id)));
        } else if (kind === 8) {
          await tx.delete(enrollments).where(and(eq(enrollments.userId, user), eq(enrollments.courseId, course)));
        } else {
          const [mod] = await tx.select().from(modules).where(eq(modules.courseId, course)).limit(1);
          if (rng.int(2) === 0 && chapter) await tx.delete(chapters).where(eq(chapters.id, chapter.id));
          else if (mod) await tx.insert(chapters).values({ moduleId: mod.id, courseId: course, name: 'concurrent chapter' });
        }
        await tx.execute(sql`SELECT pg_sleep(${after / 1000})`);
      });
    });
    const results = await Promise.allSettled(tasks);
    for (const r of results) {
      if (r.status === 'fulfilled') committed++;
      else if (pgCode(r.reason) === '40P01') deadlocks++; // PostgreSQL broke a deadlock by rolling one back: allowed, the check below still holds
      else throw r.reason;
    }
    const { mismatches } = await counterMismatches(db.db);
    t.same(mismatches, [], `round ${round}: every counter matches the raw rows`);
  }
  t.comment(`${committed} transactions committed, ${deadlocks} rolled back by deadlock detection`);
  // Deadlocks come from two chapter deletions of one course whose cascades lock the same
  // (user, course) pairs in different orders; PostgreSQL rolls one back and nothing drifts.
  t.ok(committed > (ROUNDS * PARALLEL) / 2, 'most transactions committed (the test really wrote)');
  const { enrollments: checked } = await counterMismatches(db.db);
  t.ok(checked > 0, 'enrollments exist at the end');
});

function pgCode(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
