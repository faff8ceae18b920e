import { sql } from 'drizzle-orm';
import t from 'tap';
import { seedSynthetic, type SyntheticProgress } from '../src/seed/index.js';
import { createTestDb } from '../src/testing.js';
import { testDatabaseUrl } from './helpers.js';

t.test('seed synthetic', async (t) => {
  const h = await createTestDb(testDatabaseUrl);
  t.teardown(() => h.destroy());
  const db = h.db;
  const indexDefs = async () =>
    (
      await db.execute<{ def: string }>(
        sql`select indexdef as def from pg_indexes where tablename = 'chapter_completions' order by indexname`,
      )
    ).rows.map((r) => r.def);
  const before = await indexDefs();

  const progress: SyntheticProgress[] = [];
  // rebuildIndexesFrom: 0 takes the large-load path (indexes dropped and rebuilt) on a small load.
  const r = await seedSynthetic(db, { courses: 12, students: 40, enrollments: 200, completions: 1_000 }, (p) => progress.push(p), {
    tag: 'tsyn',
    rebuildIndexesFrom: 0,
  });
  t.match(r, { tag: 'tsyn', courses: 12, students: 40, enrollments: 200 });
  t.ok(r.completions > 800 && r.completions < 1_200, `about 1000 completions (${r.completions})`);
  t.same([...new Set(progress.map((p) => p.phase))], ['courses', 'students', 'enrollments', 'completions', 'counters']);
  const last = progress.at(-1)!;
  t.equal(last.done, last.total, 'progress ends complete');

  t.same(await indexDefs(), before, 'the dropped indexes are back, identical');
  const check = (
    await db.execute<Record<string, number>>(sql`select
      (select count(*)::int from pg_trigger where not tgisinternal and tgenabled = 'D') as disabled_triggers,
      (select count(*)::int from enrollments where user_id like 'tsyn\\_%') as enrollments,
      (select count(distinct course_id)::int from enrollments where user_id like 'tsyn\\_%') as courses_used,
      (select count(*)::int from (select user_id from enrollments group by user_id, course_id having count(*) > 1) d) as duplicate_enrollments,
      (select count(*)::int from chapter_completions cc where not exists
        (select 1 from enrollments e where e.user_id = cc.user_id and e.course_id = cc.course_id)) as completions_outside_enrollments,
      (select count(*)::int from enrollments e where e.completed_chapters <>
        (select count(*) from chapter_completions cc where cc.user_id = e.user_id and cc.course_id = e.course_id)) as wrong_progress,
      (select count(*)::int from courses c where c.student_count <> (select count(*) from enrollments e where e.course_id = c.id)
         or c.chapter_count <> (select count(*) from chapters ch where ch.course_id = c.id)
         or c.module_count <> (select count(*) from modules m where m.course_id = c.id)) as wrong_courses,
      (select count(*)::int from enrollments where enrolled_at > now() or enrolled_at < now() - interval '61 days') as enrolled_out_of_window,
      (select count(*)::int from courses where course_code like 'tsyn-%' and (not is_published or event_code is null)) as not_buyer_visible`)
  ).rows[0]!;
  t.same(check, {
    disabled_triggers: 0,
    enrollments: 200,
    courses_used: 12,
    duplicate_enrollments: 0,
    completions_outside_enrollments: 0,
    wrong_progress: 0,
    wrong_courses: 0,
    enrolled_out_of_window: 0,
    not_buyer_visible: 0,
  });

  // Triggers are live again: a normal write keeps the counters.
  const [c] = (
    await db.execute<{ id: number; student_count: number }>(sql`select id, student_count from courses where course_code = 'tsyn-1'`)
  ).rows;
  await db.execute(sql`insert into users (id, email, name) values ('after_load', 'after@load.test', 'After')`);
  await db.execute(sql`insert into enrollments (user_id, course_id) values ('after_load', ${c!.id})`);
  const [after] = (await db.execute<{ student_count: number }>(sql`select student_count from courses where id = ${c!.id}`)).rows;
  t.equal(after!.student_count, c!.student_count + 1);

  await t.rejects(seedSynthetic(db, { courses: 2, students: 2, enrollments: 5, completions: 0 }), /at most students x courses = 4/);
  await t.rejects(
    seedSynthetic(db, { courses: 1, students: 1, enrollments: 1, completions: 1 }, () => {}, { tag: 'tsyn' }),
    'the same tag twice is refused by the database',
  );
  t.equal(
    (await db.execute<{ n: number }>(sql`select count(*)::int as n from pg_trigger where not tgisinternal and tgenabled = 'D'`)).rows[0]!.n,
    0,
    'a failed load leaves the triggers on',
  );
});
