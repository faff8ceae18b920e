import {
  bundles,
  categories,
  certificates,
  chapterCompletions,
  chapters,
  courses,
  type Db,
  enrollments,
  modules,
  purchases,
  users,
} from '@lms/db';
import { and, eq, sql } from 'drizzle-orm';
import t from 'tap';
import { recordChapterCompletion } from '../../src/domain/learning/chapter-completions.js';
import {
  type AuthoringContext,
  createChapter,
  deleteChapter,
  deleteModule,
  exportCourse,
  importNewCourse,
  publishCourse,
  reorderOutline,
  replaceCourse,
  unpublishCourse,
} from '../../src/domain/authoring/index.js';
import { computeProgressMetrics } from '../../src/domain/progress.js';
import { AppError } from '../../src/errors.js';
import { CourseDocument } from '@lms/contracts';
import { createTestDb, progressFromRawRows } from '@lms/db/testing';
import { testDatabaseUrl } from '../helpers/database.js';
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
 * Every maintained counter and aggregate next to a recomputation from the raw rows. The
 * recomputation goes through modules (chapter → module → course), not through the denormalised
 * course_id columns the triggers use, so a wrong course on a row would show up too.
 */
async function counterMismatches(db: Db) {
  const { rows: courseRows } = await db.execute(sql`
    WITH raw_courses AS (
      SELECT c.id, (SELECT count(*) FROM chapters ch JOIN modules m ON m.id = ch.module_id WHERE m.course_id = c.id)::int AS chapters
      FROM courses c
    ), raw_enrollments AS (
      SELECT e.course_id,
             (SELECT count(DISTINCT cc.chapter_id) FROM chapter_completions cc
                JOIN chapters ch ON ch.id = cc.chapter_id JOIN modules m ON m.id = ch.module_id
               WHERE cc.user_id = e.user_id AND m.course_id = e.course_id)::int AS done
      FROM enrollments e
    )
    SELECT c.id,
           c.module_count, (SELECT count(*) FROM modules m WHERE m.course_id = c.id)::int AS raw_module_count,
           c.chapter_count, rc.chapters AS raw_chapter_count,
           c.student_count, (SELECT count(*) FROM enrollments e WHERE e.course_id = c.id)::int AS raw_student_count,
           c.completed_chapters_sum::int AS completed_chapters_sum,
           (SELECT coalesce(sum(done), 0) FROM raw_enrollments re WHERE re.course_id = c.id)::int AS raw_completed_chapters_sum,
           c.completed_enrollment_count,
           (SELECT count(*) FROM raw_enrollments re WHERE re.course_id = c.id AND rc.chapters > 0 AND re.done >= rc.chapters)::int
             AS raw_completed_enrollment_count,
           c.certificate_count, (SELECT count(*) FROM certificates k WHERE k.course_id = c.id)::int AS raw_certificate_count,
           c.paid_purchase_count,
           (SELECT count(*) FROM purchases p WHERE p.course_id = c.id AND p.bundle_id IS NULL AND p.status = 'paid')::int
             AS raw_paid_purchase_count
    FROM courses c JOIN raw_courses rc ON rc.id = c.id ORDER BY c.id`);
  const { rows: enrollmentRows } = await db.execute(sql`
    SELECT e.id, e.user_id, e.course_id, e.completed_chapters,
           (SELECT count(DISTINCT cc.chapter_id) FROM chapter_completions cc
              JOIN chapters ch ON ch.id = cc.chapter_id JOIN modules m ON m.id = ch.module_id
             WHERE cc.user_id = e.user_id AND m.course_id = e.course_id)::int AS raw_completed
    FROM enrollments e ORDER BY e.id`);
  const { rows: bundleRows } = await db.execute(sql`
    SELECT b.id, b.paid_purchase_count,
           (SELECT count(*) FROM purchases p WHERE p.bundle_id = b.id AND p.status = 'paid')::int AS raw_paid_purchase_count
    FROM bundles b ORDER BY b.id`);
  // Per (kind, scope, user): how many enrollments / certificates, from the raw rows (scope 0 = all courses).
  const { rows: participantRows } = await db.execute(sql`
    WITH raw AS (
      SELECT 'student' AS kind, 0 AS scope_id, user_id, count(*)::int AS row_count FROM enrollments GROUP BY user_id
      UNION ALL
      SELECT 'student', c.category_id, e.user_id, count(*)::int
        FROM enrollments e JOIN courses c ON c.id = e.course_id WHERE c.category_id IS NOT NULL GROUP BY c.category_id, e.user_id
      UNION ALL
      SELECT 'certificate_holder', 0, user_id, count(*)::int FROM certificates GROUP BY user_id
      UNION ALL
      SELECT 'certificate_holder', c.category_id, k.user_id, count(*)::int
        FROM certificates k JOIN courses c ON c.id = k.course_id WHERE c.category_id IS NOT NULL GROUP BY c.category_id, k.user_id
    )
    SELECT coalesce(p.kind::text, r.kind) AS kind, coalesce(p.scope_id, r.scope_id) AS scope_id,
           coalesce(p.user_id, r.user_id) AS user_id, p.row_count, r.row_count AS raw_row_count
    FROM participants p FULL JOIN raw r ON r.kind = p.kind::text AND r.scope_id = p.scope_id AND r.user_id = p.user_id
    WHERE p.row_count IS DISTINCT FROM r.row_count`);
  // Distinct people per (kind, scope): the tallies' sum against a count of the raw rows.
  const { rows: tallyRows } = await db.execute(sql`
    WITH raw AS (
      SELECT 'student' AS kind, 0 AS scope_id, count(DISTINCT user_id)::int AS people FROM enrollments
      UNION ALL
      SELECT 'student', c.category_id, count(DISTINCT e.user_id)::int
        FROM enrollments e JOIN courses c ON c.id = e.course_id WHERE c.category_id IS NOT NULL GROUP BY c.category_id
      UNION ALL
      SELECT 'certificate_holder', 0, count(DISTINCT user_id)::int FROM certificates
      UNION ALL
      SELECT 'certificate_holder', c.category_id, count(DISTINCT k.user_id)::int
        FROM certificates k JOIN courses c ON c.id = k.course_id WHERE c.category_id IS NOT NULL GROUP BY c.category_id
    ), kept AS (
      SELECT kind::text AS kind, scope_id, sum(participants)::int AS people FROM participant_tallies GROUP BY kind, scope_id
    )
    SELECT coalesce(k.kind, r.kind) AS kind, coalesce(k.scope_id, r.scope_id) AS scope_id, k.people, r.people AS raw_people
    FROM kept k FULL JOIN raw r ON r.kind = k.kind AND r.scope_id = k.scope_id
    WHERE coalesce(k.people, 0) <> coalesce(r.people, 0)`);
  const mismatches: string[] = [];
  const courseCounters = [
    'module_count',
    'chapter_count',
    'student_count',
    'completed_chapters_sum',
    'completed_enrollment_count',
    'certificate_count',
    'paid_purchase_count',
  ];
  for (const r of courseRows as Record<string, number>[]) {
    for (const name of courseCounters) {
      const raw = r[`raw_${name}`];
      if (r[name] !== raw) mismatches.push(`course ${r.id} ${name} ${r[name]} ≠ ${raw}`);
    }
  }
  for (const r of enrollmentRows as Record<string, number>[]) {
    if (r.completed_chapters !== r.raw_completed) {
      mismatches.push(`enrollment ${r.id} (${r.user_id}, ${r.course_id}) completed_chapters ${r.completed_chapters} ≠ ${r.raw_completed}`);
    }
  }
  for (const r of bundleRows as Record<string, number>[]) {
    if (r.paid_purchase_count !== r.raw_paid_purchase_count) {
      mismatches.push(`bundle ${r.id} paid_purchase_count ${r.paid_purchase_count} ≠ ${r.raw_paid_purchase_count}`);
    }
  }
  for (const r of participantRows as Record<string, unknown>[]) {
    mismatches.push(`participant ${r.kind} scope ${r.scope_id} user ${r.user_id}: row_count ${r.row_count} ≠ ${r.raw_row_count}`);
  }
  for (const r of tallyRows as Record<string, unknown>[]) {
    mismatches.push(`tally ${r.kind} scope ${r.scope_id}: ${r.people} ≠ ${r.raw_people}`);
  }
  return {
    mismatches,
    courses: courseRows.length,
    enrollments: enrollmentRows.length,
    // How much the aggregates really held, so a test can show it did not pass on empty tables.
    participants: (await db.execute(sql`SELECT count(*)::int AS n FROM participants`)).rows[0]!.n as number,
  };
}

/** The counters as stored, to check that lms_recompute_counters() agrees (changes nothing). */
async function storedCounters(db: Db) {
  const { rows: c } = await db.execute(sql`
    SELECT id, module_count, chapter_count, student_count, completed_chapters_sum::int AS completed_chapters_sum,
           completed_enrollment_count, certificate_count, paid_purchase_count
    FROM courses ORDER BY id`);
  const { rows: e } = await db.execute(sql`SELECT id, completed_chapters FROM enrollments ORDER BY id`);
  const { rows: b } = await db.execute(sql`SELECT id, paid_purchase_count FROM bundles ORDER BY id`);
  const { rows: p } = await db.execute(sql`SELECT kind, scope_id, user_id, row_count FROM participants ORDER BY 1, 2, 3`);
  // Stripes left at 0 by departures are equivalent to absent ones.
  const { rows: t } = await db.execute(
    sql`SELECT kind, scope_id, stripe, participants FROM participant_tallies WHERE participants <> 0 ORDER BY 1, 2, 3`,
  );
  return { c, e, b, p, t };
}

interface World {
  teacherId: string;
  /** A super_admin who authors through domain/authoring, as the routes and pages do. */
  author: AuthoringContext;
  institutionId: number;
  courseIds: number[];
  userIds: string[];
  /** Categories that also hold bundles (bundles restrict their deletion). */
  categoryIds: number[];
  /** A category without bundles, deleted and recreated by the random writes. */
  spareCategoryId: number;
}

let categorySeq = 0;
async function makeCategory(db: Db) {
  categorySeq += 1;
  const [c] = await db
    .insert(categories)
    .values({ code: `C${categorySeq}`, name: `Category ${categorySeq}` })
    .returning();
  return c!.id;
}

async function makeCourse(db: Db, world: Pick<World, 'teacherId' | 'institutionId'>, categoryId: number | null, name: string) {
  const [c] = await db
    .insert(courses)
    .values({ name, teacherId: world.teacherId, institutionId: world.institutionId, categoryId })
    .returning();
  for (let m = 0; m < 2; m++) await addModule(db, c!.id, 2);
  return c!.id;
}

async function makeWorld(db: Db, courseCount: number, userCount: number): Promise<World> {
  const institutionId = await makeInstitution(db);
  const teacher = await makeUser(db, { role: 'teacher', institutionId });
  const categoryIds = [await makeCategory(db), await makeCategory(db)];
  const admin = await makeUser(db, { role: 'super_admin' });
  const world: World = {
    teacherId: teacher.id,
    author: { author: { kind: 'session', userId: admin.id, role: 'super_admin' }, now: AT, requestId: null },
    institutionId,
    courseIds: [],
    userIds: [],
    categoryIds,
    spareCategoryId: await makeCategory(db),
  };
  // Courses in either category or none, so a user has enrollments in several categories.
  const homes = [categoryIds[0]!, categoryIds[1]!, null];
  for (let i = 0; i < courseCount; i++) world.courseIds.push(await makeCourse(db, world, homes[i % 3]!, `course ${i}`));
  for (let i = 0; i + 1 < courseCount; i++) {
    await db.insert(bundles).values({
      name: `bundle ${i}`,
      categoryId: categoryIds[i % 2]!,
      courseOneId: world.courseIds[i]!,
      courseTwoId: world.courseIds[i + 1]!,
    });
  }
  for (let i = 0; i < userCount; i++) world.userIds.push((await makeUser(db)).id);
  return world;
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
async function randomWrite(db: Db, rng: Rng, world: World): Promise<string> {
  const user = rng.pick(world.userIds)!;
  const course = rng.pick(world.courseIds)!;
  const roll = rng.int(200);
  if (roll >= 160) return authoringWrite(db, rng, world, course, roll - 160);
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
    if (one)
      await db.delete(chapterCompletions).where(and(eq(chapterCompletions.userId, user), eq(chapterCompletions.chapterId, one.chapterId)));
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
  if (roll < 100) {
    await addModule(db, course, rng.int(3));
    return 'add module';
  }
  if (roll < 110) {
    const categoryId = rng.pick([...world.categoryIds, world.spareCategoryId, null])!;
    await db.update(courses).set({ categoryId }).where(eq(courses.id, course));
    return 'move course to another category';
  }
  if (roll < 120) {
    await db.insert(certificates).values({ userId: user, courseId: course, issuedAt: AT }).onConflictDoNothing();
    return 'certify';
  }
  if (roll < 126) {
    const held = await db.select().from(certificates).where(eq(certificates.userId, user));
    const one = rng.pick(held);
    if (one) await db.delete(certificates).where(eq(certificates.id, one.id));
    return 'revoke certificate';
  }
  const status = rng.pick(['paid', 'paid', 'pending', 'refunded'] as const)!;
  if (roll < 136) {
    const bundle = rng.int(3) === 0 ? rng.pick(await db.select({ id: bundles.id }).from(bundles)) : undefined;
    await db
      .insert(purchases)
      .values({
        userId: user,
        ...(bundle ? { bundleId: bundle.id } : { courseId: course }),
        amount: '10.00',
        status,
        paidAt: AT,
      })
      .onConflictDoNothing(); // at most one pending purchase per buyer and item (schema 0005)
    return 'purchase';
  }
  if (roll < 144) {
    const one = rng.pick(await db.select({ id: purchases.id }).from(purchases));
    // Back to pending only where the buyer has no other pending purchase of the item (schema 0005).
    if (one) {
      await db.execute(sql`update purchases p set status = ${status} where p.id = ${one.id}
        and (${status} <> 'pending' or not exists (select 1 from purchases o where o.id <> p.id and o.status = 'pending'
          and o.user_id = p.user_id and (o.course_id = p.course_id or o.bundle_id = p.bundle_id)))`);
    }
    return 'change purchase status';
  }
  if (roll < 148) {
    const one = rng.pick(await db.select({ id: purchases.id }).from(purchases));
    if (one) await db.delete(purchases).where(eq(purchases.id, one.id));
    return 'delete purchase';
  }
  if (roll < 152) {
    // Cascades: modules, chapters, completions, enrollments, certificates, bundles; purchases set null.
    await db.delete(courses).where(eq(courses.id, course));
    const replacement = await makeCourse(db, world, rng.pick([...world.categoryIds, null])!, 'replacement course');
    world.courseIds[world.courseIds.indexOf(course)] = replacement;
    return 'delete course';
  }
  if (roll < 156) {
    // ON DELETE SET NULL moves the category's courses out of every category.
    await db.delete(categories).where(eq(categories.id, world.spareCategoryId));
    world.spareCategoryId = await makeCategory(db);
    return 'delete category';
  }
  // Cascades: the user's enrollments, completions, certificates, purchases.
  await db.delete(users).where(eq(users.id, user));
  world.userIds[world.userIds.indexOf(user)] = (await makeUser(db)).id;
  return 'delete user';
}

/**
 * One random authoring write through domain/authoring (as the routes and pages make them): its
 * name, with `refused` when the domain said no (a 409 because learners hold what it would delete).
 */
async function authoringWrite(db: Db, rng: Rng, world: World, course: number, roll: number): Promise<string> {
  const ctx = world.author;
  const attempt = async (name: string, write: () => Promise<unknown>) => {
    try {
      await write();
      return `author: ${name}`;
    } catch (err) {
      if (err instanceof AppError && err.statusCode === 409) return `author: ${name} refused`;
      throw err;
    }
  };
  const mods = await db.select({ id: modules.id }).from(modules).where(eq(modules.courseId, course));
  const chs = await db.select({ id: chapters.id }).from(chapters).where(eq(chapters.courseId, course));
  if (roll < 8) {
    const mod = rng.pick(mods);
    return mod ? attempt('add chapter', () => createChapter(db, ctx, mod.id, { name: 'authored', content: '' })) : 'author: no module';
  }
  if (roll < 16) {
    const ch = rng.pick(chs);
    return ch ? attempt('delete chapter', () => deleteChapter(db, ctx, ch.id)) : 'author: no chapter';
  }
  if (roll < 19) {
    const mod = rng.pick(mods);
    return mod ? attempt('delete module', () => deleteModule(db, ctx, mod.id)) : 'author: no module';
  }
  if (roll < 25) {
    // Every chapter dealt to a random module, in a random order (moves between modules).
    const { document } = await exportCourse(db, ctx, course);
    if (document.modules.length === 0) return 'author: no module';
    const outline = document.modules.map((m) => ({ id: m.id, chapterIds: [] as number[] }));
    for (const ch of document.modules.flatMap((m) => m.chapters)) rng.pick(outline)!.chapterIds.push(ch.id);
    return attempt('reorder outline', () => reorderOutline(db, ctx, course, { modules: outline.reverse() }));
  }
  if (roll < 33) {
    // The course's document with a chapter dropped, one added and one moved to the end: all or nothing.
    const { document } = await exportCourse(db, ctx, course);
    const next = structuredClone(document) as unknown as { modules: { chapters: unknown[] }[] };
    const holder = rng.pick(next.modules.filter((m) => m.chapters.length > 0));
    if (holder) holder.chapters.splice(rng.int(holder.chapters.length), 1);
    const target = rng.pick(next.modules);
    if (target) target.chapters.push({ name: 'imported', content: 'x', quiz: null });
    const donor = rng.pick(next.modules.filter((m) => m.chapters.length > 0));
    if (donor && target) target.chapters.push(...donor.chapters.splice(0, 1));
    return attempt('replace document', () => replaceCourse(db, ctx, course, CourseDocument.parse(next)));
  }
  if (roll < 36) {
    const doc = CourseDocument.parse({
      format: 'lms-course/1',
      course: { name: 'imported course', institutionId: world.institutionId, teacherId: world.teacherId, eventCode: 'EV' },
      modules: [
        { name: 'm', chapters: [{ name: 'a' }, { name: 'b' }] },
        { name: 'n', chapters: [{ name: 'c' }] },
      ],
    });
    const { course: created } = await importNewCourse(db, ctx, doc);
    world.courseIds[world.courseIds.indexOf(course)] = created.id;
    return 'author: import course';
  }
  return attempt('publish or unpublish', () => (rng.int(2) === 0 ? publishCourse(db, ctx, course) : unpublishCourse(db, ctx, course)));
}

t.test('recordChapterCompletion', async (t) => {
  const db = await createTestDb(testDatabaseUrl);
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
  // A fixed sequence by default, one that reaches every path listed at the end: a seed from the
  // clock left one of them out now and then (on 2026-11-27 no refused chapter deletion in 800
  // writes), a failure of chance, not of the code. TEST_SEED=<n> replays one, TEST_SEED=random explores.
  const seed = process.env.TEST_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.TEST_SEED ?? 20_261_127);
  t.comment(`seed ${seed} (replay with TEST_SEED=${seed})`);
  const rng = prng(seed);
  const db = await createTestDb(testDatabaseUrl);
  t.teardown(() => db.destroy());
  const world = await makeWorld(db.db, 4, 5);

  const ops = new Map<string, number>();
  const STEPS = 800;
  // How many enrollment and participant rows the checkpoints compared, over the whole run: a
  // random sequence may end with few or none, but the comparisons along the way must not be empty.
  let enrollmentsChecked = 0;
  let participantsChecked = 0;
  for (let step = 1; step <= STEPS; step++) {
    const op = await randomWrite(db.db, rng, world);
    ops.set(op, (ops.get(op) ?? 0) + 1);
    if (step % 80 === 0) {
      const { mismatches, enrollments: e, participants: p } = await counterMismatches(db.db);
      enrollmentsChecked += e;
      participantsChecked += p;
      t.same(mismatches, [], `after ${step} writes every counter matches the raw rows`);
      t.same(
        (await computeProgressMetrics(db.db, AT, { currency: 'IDR' })).overall,
        await progressFromRawRows(db.db, AT),
        `after ${step} writes /api/lms-progress is the spec's rule over the raw rows`,
      );
    }
  }
  t.comment(`writes: ${JSON.stringify(Object.fromEntries(ops))}`);
  // The sequence really exercised the paths that move the counters.
  for (const op of [
    'enroll',
    'unenroll',
    'complete: recorded',
    'complete: already-completed',
    'complete: unknown-chapter',
    'delete completion',
    'add chapter',
    'delete chapter',
    'delete module',
    'add module',
    'move course to another category',
    'certify',
    'revoke certificate',
    'purchase',
    'change purchase status',
    'delete purchase',
    'delete course',
    'delete category',
    'delete user',
    'author: add chapter',
    'author: delete chapter',
    'author: delete chapter refused',
    'author: delete module',
    'author: reorder outline',
    'author: replace document',
    'author: replace document refused',
    'author: import course',
    'author: publish or unpublish',
  ]) {
    t.ok((ops.get(op) ?? 0) > 0, `${op} happened`);
  }
  t.ok(enrollmentsChecked > 0, `${enrollmentsChecked} enrollment rows compared over the checkpoints`);
  t.ok(participantsChecked > 0, `${participantsChecked} participant rows compared over the checkpoints`);

  // And the repair function agrees: it has nothing to change.
  const before = await storedCounters(db.db);
  await db.db.execute(sql`SELECT lms_recompute_counters()`);
  t.same(await storedCounters(db.db), before, 'lms_recompute_counters() changes nothing');
});

// PGlite has one connection: there is no concurrency to test there; the sequential test above covers it.
const NO_CONCURRENCY = testDatabaseUrl ? false : 'PGlite has one connection, no concurrent writes (set TEST_DATABASE_URL to run it)';

t.test('concurrent writes on the same (user, course) pairs keep the counters exact (PostgreSQL)', { skip: NO_CONCURRENCY }, async (t) => {
  const db = await createTestDb(testDatabaseUrl);
  t.teardown(() => db.destroy());
  t.equal(db.kind, 'postgres', 'TEST_DATABASE_URL gives a PostgreSQL database');
  // A fixed sequence by default, one that reaches every path listed at the end: a seed from the
  // clock left one of them out now and then (on 2026-11-27 no refused chapter deletion in 800
  // writes), a failure of chance, not of the code. TEST_SEED=<n> replays one, TEST_SEED=random explores.
  const seed = process.env.TEST_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.TEST_SEED ?? 20_261_127);
  t.comment(`seed ${seed}`);
  const rng = prng(seed);
  const world = await makeWorld(db.db, 3, 3);
  const PARALLEL = 20;
  const ROUNDS = 15;
  let deadlocks = 0;
  let committed = 0;

  for (let round = 1; round <= ROUNDS; round++) {
    // Start every round with no enrollments, so enrollment inserts race completions of the same pair.
    await db.db.delete(enrollments);
    await db.db.delete(certificates);
    const allChapters = await db.db.select({ id: chapters.id, courseId: chapters.courseId }).from(chapters);
    const tasks = Array.from({ length: PARALLEL }, (_, i) => {
      const user = rng.pick(world.userIds)!;
      const course = rng.pick(world.courseIds)!;
      const chapter = rng.pick(allChapters.filter((c) => c.courseId === course));
      const before = rng.int(15);
      const after = rng.int(15);
      const kind = i % 5 === 0 ? 'enroll' : rng.int(13);
      const categoryId = rng.pick([...world.categoryIds, world.spareCategoryId, null])!;
      return db.db.transaction(async (tx) => {
        // Sleeps widen the windows between the row write, the trigger and the commit.
        await tx.execute(sql`SELECT pg_sleep(${before / 1000})`);
        if (kind === 'enroll' || kind < 2) {
          await tx.insert(enrollments).values({ userId: user, courseId: course }).onConflictDoNothing();
        } else if (kind < 7) {
          if (chapter) await recordChapterCompletion(tx, user, chapter.id, AT);
        } else if (kind === 7) {
          if (chapter)
            await tx
              .delete(chapterCompletions)
              .where(and(eq(chapterCompletions.userId, user), eq(chapterCompletions.chapterId, chapter.id)));
        } else if (kind === 8) {
          await tx.delete(enrollments).where(and(eq(enrollments.userId, user), eq(enrollments.courseId, course)));
        } else if (kind === 10) {
          // Moves the course's students and certificate holders between categories while others enroll.
          await tx.update(courses).set({ categoryId }).where(eq(courses.id, course));
        } else if (kind === 11) {
          await tx.insert(certificates).values({ userId: user, courseId: course, issuedAt: AT }).onConflictDoNothing();
        } else if (kind === 12) {
          await tx.insert(purchases).values({ userId: user, courseId: course, amount: '5.00', status: 'paid', paidAt: AT });
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
      else if (pgCode(r.reason) === '40P01')
        deadlocks++; // PostgreSQL broke a deadlock by rolling one back: allowed, the check below still holds
      else throw r.reason;
    }
    const { mismatches } = await counterMismatches(db.db);
    t.same(mismatches, [], `round ${round}: every counter matches the raw rows`);
  }
  t.comment(`${committed} transactions committed, ${deadlocks} rolled back by deadlock detection`);
  // Deadlocks come from cascades that lock (user, course) pairs and the course row in another
  // order than single writes (a chapter deletion against completions of the same course, a
  // category move against enrollments); PostgreSQL rolls one back and nothing drifts.
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
