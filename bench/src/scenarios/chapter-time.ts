import { createSession } from '@lms/lms/sessions';
import { sql } from 'drizzle-orm';
import { log } from '../options.js';
import type { ScenarioContext } from './context.js';

/**
 * Row 42t: a chapter completion on a course whose accreditation requires time on the chapter
 * (SKP-KEMENKES, 80% of 1 expected minute: the time check reads chapter_time and the completion
 * writes an evidence_log entry) against the same completion on a course that requires nothing.
 * Two courses of two chapters; every request completes the first chapter for a learner who has not
 * yet (a pool of learners enrolled in both, each with enough time on the timed chapter), so each is
 * a first completion (201) that finishes neither course: the same path on both sides, certificate
 * check included, but for the requirements. Everything it adds is removed afterwards. Target ≥ 0.8.
 */
export async function chapterTimeScenario(ctx: ScenarioContext) {
  const { run, lms, filled, options } = ctx;
  const db = filled.handle.db;
  const LEARNERS = options.quick ? 4_000 : 30_000;
  const CONNECTIONS = 8;
  const ENROL_PART = 1_000;
  const tag = `bench-time-${Date.now()}`;
  const owner = (
    await db.execute<{ id: string; institutionId: number }>(sql`
      select id, institution_id as "institutionId" from users where role = 'teacher' and institution_id is not null order by id limit 1`)
  ).rows[0];
  if (!owner) {
    log('42t: no teacher in the bench database; row skipped');
    return;
  }
  const course = async (name: string) => {
    const [c] = (
      await db.execute<{ id: number }>(sql`
        insert into courses (name, description, instructor, course_code, institution_id, teacher_id)
        values (${name}, 'bench', 'bench', ${name}, ${owner.institutionId}, ${owner.id}) returning id`)
    ).rows;
    const [m] = (
      await db.execute<{ id: number }>(sql`insert into modules (course_id, name, order_index) values (${c.id}, 'M', 0) returning id`)
    ).rows;
    // Two chapters, the first completed: the course is not finished, so neither side issues a
    // certificate (the timed course's would also wait for its post-test and evaluation).
    const chapters = (
      await db.execute<{ id: number; orderIndex: number }>(sql`
        insert into chapters (module_id, course_id, name, content, order_index, expected_minutes)
        select ${m.id}, ${c.id}, 'Bab ' || k, 'Teks', k, 1 from generate_series(0, 1) k returning id, order_index as "orderIndex"`)
    ).rows;
    // biome-ignore lint/style/noNonNullAssertion: the statement above made chapter 0.
    return { courseId: c.id, chapterId: chapters.find((ch) => ch.orderIndex === 0)!.id };
  };
  const timed = await course(`${tag}-timed`);
  const plain = await course(`${tag}-plain`);
  try {
    await db.execute(sql`
      insert into course_accreditations (course_id, scheme, reference, valid_from, value)
      values (${timed.courseId}, 'SKP-KEMENKES', ${tag}, now() - interval '1 day', 1)`);
    const learners = (
      await db.execute<{ id: string }>(sql`
        insert into users (email, name, role)
        select ${tag} || '-' || g || '@bench.test', 'Bench learner ' || g, 'student' from generate_series(1, ${LEARNERS}) g
        returning id`)
    ).rows.map((r) => r.id);
    // In parts: an enrolment takes an advisory lock per learner and course until its transaction
    // ends, and 60,000 at once overflow PostgreSQL's lock table (max_locks_per_transaction 64).
    for (let i = 0; i < learners.length; i += ENROL_PART) {
      const ids = learners.slice(i, i + ENROL_PART);
      await db.execute(sql`
        insert into enrollments (user_id, course_id)
        select u, c from unnest(${`{${ids.join(',')}}`}::text[]) u, unnest(array[${timed.courseId}::int, ${plain.courseId}::int]) c`);
    }
    await db.execute(sql`
      insert into chapter_time (user_id, chapter_id, course_id, active_seconds, beats)
      select u.id, ${timed.chapterId}, ${timed.courseId}, 60, 3 from users u where u.email like ${`${tag}-%`}`);
    const cookies: string[] = [];
    for (let i = 0; i < learners.length; i += 200) {
      const batch = await Promise.all(learners.slice(i, i + 200).map((id) => createSession(db, id, new Date(), 86_400_000)));
      for (const s of batch) cookies.push(`${lms.cookieName}=${s.token}`);
    }
    const side = (name: string, chapterId: number) => {
      // The readiness probe completes for cookies[0]: the load starts at the next learner.
      let n = 1;
      return run.httpSide(name, {
        url: lms.url,
        path: `/api/learning/chapters/${chapterId}/completion`,
        method: 'POST',
        headers: { cookie: cookies[0], 'x-requested-with': 'bench' },
        connections: CONNECTIONS,
        expect: 201,
        perRequest: () => ({ headers: { cookie: cookies[n++ % cookies.length], 'x-requested-with': 'bench' } }),
      });
    };
    await run.comparePaired(
      {
        id: '42t',
        scenario: `POST /api/learning/chapters/{id}/completion, time required and evidence written (${CONNECTIONS} connections)`,
        baselineName: 'the same completion, course without requirements',
        kind: 'throughput',
        target: { minRatio: 0.8 },
      },
      side('completion with time check', timed.chapterId),
      side('completion without requirements', plain.chapterId),
    );
  } finally {
    await db.execute(sql`delete from courses where id in (${timed.courseId}, ${plain.courseId})`);
    // purchases' three *_by columns have no index: each deleted user would scan purchases three
    // times (30,000 learners on the full data set: over 15 min, 14 s with them indexed). Indexed
    // for this delete only, so that no other row measures a schema of the bench's own.
    await db.execute(sql`create index bench_tmp_p1 on purchases (confirmed_by)`);
    await db.execute(sql`create index bench_tmp_p2 on purchases (closed_by)`);
    await db.execute(sql`create index bench_tmp_p3 on purchases (confirmation_undone_by)`);
    try {
      await db.execute(sql`delete from users where email like ${`${tag}-%`}`);
    } finally {
      await db.execute(sql`drop index bench_tmp_p1, bench_tmp_p2, bench_tmp_p3`);
    }
  }
}
