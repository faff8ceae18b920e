import { and, eq, isNull, sql } from 'drizzle-orm';
import t from 'tap';
import { hashToken } from '../src/credentials.js';
import { DEMO_PARTNER, pointDemoPartnerAt, seedDemo } from '../src/seed/index.js';
import { createTestDb } from '../src/testing.js';
import { testDatabaseUrl } from './helpers.js';
import { apiKeys, bundles, categories, courses, institutions, partners, quizzes, questions, users } from '../src/schema/index.js';

const TABLES = [
  'institutions',
  'users',
  'categories',
  'courses',
  'modules',
  'chapters',
  'quizzes',
  'questions',
  'bundles',
  'enrollments',
  'chapter_completions',
  'certificates',
  'purchases',
  'partners',
  'api_keys',
] as const;

t.test('seed demo', async (t) => {
  const h = await createTestDb(testDatabaseUrl);
  t.teardown(() => h.destroy());
  const db = h.db;
  const now = new Date('2026-11-20T10:00:00Z');
  const counts = async () => {
    const r = await db.execute<Record<string, number>>(
      sql.raw(`select ${TABLES.map((x) => `(select count(*)::int from ${x}) as ${x}`).join(', ')}`),
    );
    return r.rows[0]!;
  };
  // Counters kept by triggers must equal a recomputation from the raw rows.
  const counterDrift = async () =>
    (
      await db.execute<{ n: number }>(sql`
        select (select count(*)::int from courses c where
                  c.module_count <> (select count(*) from modules m where m.course_id = c.id)
               or c.chapter_count <> (select count(*) from chapters ch where ch.course_id = c.id)
               or c.student_count <> (select count(*) from enrollments e where e.course_id = c.id))
             + (select count(*)::int from enrollments e where e.completed_chapters <>
                  (select count(*) from chapter_completions cc where cc.user_id = e.user_id and cc.course_id = e.course_id)) as n`)
    ).rows[0]!.n;

  const first = await seedDemo(db, { now });
  t.match(first.apiKey, /^lms_key_[A-Za-z0-9_-]{43}$/, 'the first run returns the demo key in clear');
  const afterFirst = await counts();

  t.test('a believable catalog', async (t) => {
    t.equal(afterFirst.institutions, 1);
    t.ok(afterFirst.categories >= 5, 'several categories');
    t.ok(afterFirst.courses >= 28 && afterFirst.courses <= 32, 'about thirty courses');
    const [inst] = await db.select().from(institutions).where(eq(institutions.id, 1));
    t.ok(inst, 'institution 1');
    t.ok(
      inst?.transferBank && inst.transferAccountNumber && inst.transferAccountHolder,
      'with a transfer account, so the demo names where to pay',
    );
    const roles = await db.select({ role: users.role, email: users.email }).from(users).where(sql`${users.role} <> 'student'`);
    t.ok(
      roles.some((r) => r.role === 'teacher' && r.email === 'teacher@demo.lms'),
      'teacher@demo.lms',
    );
    for (const role of ['admin', 'super_admin'] as const)
      t.ok(
        roles.some((r) => r.role === role),
        role,
      );
    const shape = (
      await db.execute<Record<string, number>>(sql`select
        count(*) filter (where not is_published)::int as drafts,
        count(*) filter (where is_published and event_code is null)::int as published_without_event_code,
        count(*) filter (where is_published and event_code is not null)::int as buyer_visible,
        count(*) filter (where category_id is null)::int as uncategorized,
        count(*) filter (where chapter_count = 0)::int as without_chapters
        from courses`)
    ).rows[0]!;
    t.ok(shape.drafts! >= 2, 'some drafts');
    t.ok(shape.published_without_event_code! >= 2, 'some published courses without an eventCode');
    t.ok(shape.buyer_visible! >= 15, 'mostly buyer-visible');
    t.ok(shape.uncategorized! >= 1, 'a course with no category');
    t.equal(shape.without_chapters, 0);

    const perCourse = (
      await db.execute<{ without_final: number; without_module_quiz: number; without_chapter_quiz: number }>(sql`select
        count(*) filter (where not exists (select 1 from quizzes q where q.course_id = c.id and q.scope = 'final'))::int as without_final,
        count(*) filter (where not exists (select 1 from quizzes q where q.course_id = c.id and q.scope = 'module'))::int as without_module_quiz,
        count(*) filter (where not exists (select 1 from quizzes q where q.course_id = c.id and q.scope = 'chapter'))::int as without_chapter_quiz
        from courses c`)
    ).rows[0]!;
    t.same(
      perCourse,
      { without_final: 0, without_module_quiz: 0, without_chapter_quiz: 0 },
      'every course has chapter and module quizzes and a final exam',
    );
    const [q] = await db.select().from(questions).where(eq(questions.questionType, 'multiple_choice')).limit(1);
    t.ok(q!.options.length === 4 && q!.options.filter((o) => o.isCorrect).length === 1, 'options carry the answer key');
    t.ok(q!.correctAnswer && q!.explanation, 'correctAnswer and explanation');
    t.ok((await db.select().from(questions).where(sql`${questions.essayAnswer} is not null`)).length > 0, 'essay answers');
    t.ok((await db.select().from(bundles)).length >= 5, 'bundles');
    const [partner] = await db.select().from(partners).where(eq(partners.issuer, 'demo-partner.local'));
    t.match(partner, { name: 'Demo Partner', jwksUrl: 'http://127.0.0.1:3002/.well-known/jwks.json', isActive: true });
    const [key] = await db
      .select({ email: users.email })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .where(and(eq(apiKeys.keyHash, hashToken(first.apiKey!)), isNull(apiKeys.revokedAt)));
    t.equal(key?.email, 'teacher@demo.lms', "the key is the demo teacher's");
  });

  t.test('activity over the last 60 days', async (t) => {
    t.ok(afterFirst.enrollments >= 80 && afterFirst.chapter_completions >= 300, 'enrollments and completions');
    t.ok(afterFirst.certificates >= 10 && afterFirst.purchases >= 40, 'certificates and purchases');
    const r = (
      await db.execute<Record<string, number | boolean>>(sql`select
        (select count(*)::int from purchases where bundle_id is not null) as bundle_purchases,
        (select count(*)::int from purchases where course_id is not null) as course_purchases,
        (select count(*)::int from purchases where status = 'paid' and paid_at > ${now}::timestamptz - interval '30 days') as paid_last_30,
        (select count(*)::int from certificates where issued_at > ${now}::timestamptz - interval '30 days') as certs_last_30,
        (select bool_and(enrolled_at between ${now}::timestamptz - interval '60 days' and ${now}::timestamptz) from enrollments) as enrolled_in_window,
        (select bool_and(completed_at <= ${now}::timestamptz) from chapter_completions) as completions_in_past,
        (select count(*)::int from chapter_completions cc where not exists
          (select 1 from enrollments e where e.user_id = cc.user_id and e.course_id = cc.course_id)) as completions_without_enrollment,
        (select count(*)::int from enrollments e join courses c on c.id = e.course_id where e.completed_chapters = c.chapter_count) as finished,
        (select count(*)::int from enrollments where completed_chapters = 0) as not_started`)
    ).rows[0]!;
    t.ok((r.bundle_purchases as number) >= 3 && (r.course_purchases as number) >= 30, 'course and bundle purchases');
    t.ok((r.paid_last_30 as number) > 0 && (r.certs_last_30 as number) > 0, 'some in the trailing 30 days');
    t.equal(r.enrolled_in_window, true);
    t.equal(r.completions_in_past, true);
    t.equal(r.completions_without_enrollment, 0);
    t.ok((r.finished as number) > 0 && (r.not_started as number) > 0, 'a mix of finished and not started');
    t.equal(await counterDrift(), 0, 'trigger-kept counters match the rows');
  });

  t.test('running it again duplicates nothing', async (t) => {
    const second = await seedDemo(db, { now: new Date(now.getTime() + 86_400_000) });
    t.equal(second.apiKey, null, 'no new key');
    t.same(
      Object.values(second.inserted).filter((n) => n > 0),
      [],
      'nothing inserted',
    );
    t.same(await counts(), afterFirst, 'every table has the same count');
    t.equal(await counterDrift(), 0);
  });

  t.test('a partly seeded database is completed, not duplicated', async (t) => {
    // An operator deleted one course and revoked the demo key: the next run restores exactly those.
    const [gone] = await db.delete(courses).where(eq(courses.courseCode, 'PJK-201')).returning({ id: courses.id });
    t.ok(gone);
    await db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(eq(apiKeys.keyHash, hashToken(first.apiKey!)));
    const third = await seedDemo(db, { now });
    t.match(third.apiKey, /^lms_key_/, 'a fresh key replaces the revoked one');
    t.equal(third.inserted.courses, 1);
    t.equal((await db.select().from(courses).where(eq(courses.courseCode, 'PJK-201'))).length, 1);
    const c = await counts();
    t.equal(c.courses, afterFirst.courses);
    t.equal(c.quizzes, afterFirst.quizzes);
    t.equal(c.api_keys, afterFirst.api_keys + 1);
    t.equal((await db.select().from(categories)).length, afterFirst.categories);
    t.equal((await db.select().from(quizzes).where(eq(quizzes.scope, 'final'))).length, afterFirst.courses);
    t.equal(await counterDrift(), 0);
  });
});

t.test("the demo partner's JWKS URL follows where the demo partner runs", async (t) => {
  const h = await createTestDb(testDatabaseUrl);
  t.teardown(() => h.destroy());
  const jwksUrl = async () =>
    (await h.db.select({ url: partners.jwksUrl }).from(partners).where(eq(partners.issuer, DEMO_PARTNER.issuer)))[0]?.url;
  t.equal(await pointDemoPartnerAt(h.db, 'http://127.0.0.1:3502/.well-known/jwks.json'), false, 'no demo partner yet: nothing to change');
  await seedDemo(h.db, { demoPartnerJwksUrl: 'http://127.0.0.1:3502/.well-known/jwks.json' });
  t.equal(await jwksUrl(), 'http://127.0.0.1:3502/.well-known/jwks.json', 'seeded with the URL given');
  t.equal(await pointDemoPartnerAt(h.db, 'http://127.0.0.1:3502/.well-known/jwks.json'), false, 'the same URL: unchanged');
  t.equal(await pointDemoPartnerAt(h.db, 'http://127.0.0.1:4502/.well-known/jwks.json'), true, 'a restart on another port');
  t.equal(await jwksUrl(), 'http://127.0.0.1:4502/.well-known/jwks.json');
  await seedDemo(h.db);
  t.equal(await jwksUrl(), 'http://127.0.0.1:4502/.well-known/jwks.json', 'seeding again leaves it');
});
