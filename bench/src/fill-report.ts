/**
 * The report course of rows 42x and 42y (a body's participant list of 10,000 participants): filled
 * once per bench database by prepareDatabase (fill.ts), in bulk statements (~10 s), and reused.
 */
import type { DbHandle } from '@lms/db';
import { sql } from 'drizzle-orm';
import { BENCH_ISSUER } from './fill.js';

/** Participants of the report course. */
export const REPORT_PARTICIPANTS = 10_000;
/** Institution admins of the report course's institution, each a manager who may download its report. */
export const REPORT_MANAGERS = 200;
export const REPORT_COURSE_CODE = 'bench-report';
/** Bumped when the report course's fill changes, so older databases get it again. */
export const REPORT_COURSE_VERSION = 1;

/**
 * A course accredited for SKP-KEMENKES (1 module, 4 chapters of 30 expected minutes, a pre-test and
 * a final exam as post-test) with REPORT_PARTICIPANTS enrolled learners and the evidence a body's
 * list reads for each: active time on every chapter, pre- and post-test scores, the evaluation
 * (4 in 5), a certificate with its credit (7 in 10), the partner's member number (1 in 2), an
 * admin's correction of minutes (1 in 100). Unpublished: the catalog rows never see it. Plus
 * REPORT_MANAGERS admins of the course's institution (the documents limit is 10 a minute per person:
 * the rows take them in turns). Replaces any report course an earlier fill made.
 */
export async function fillReportCourse(handle: DbHandle, teacherId: string): Promise<number> {
  // Statement by statement, not one transaction (see the enrolments): a fill cut short is not
  // recorded in bench_meta, and the next run deletes what it made and starts again.
  const db = handle.db;
  await db.execute(sql`delete from courses where course_code = ${REPORT_COURSE_CODE}`);
  await db.execute(sql`delete from users where email like 'bench-report-%@bench.test'`);
  const [course] = (
    await db.execute<{ id: number; institutionId: number }>(sql`
      insert into courses (name, description, instructor, course_code, teacher_id, institution_id, credit_scheme)
      select 'Kursus Laporan SKP', 'Laporan peserta untuk badan akreditasi', 'Pengajar Laporan', ${REPORT_COURSE_CODE}, u.id,
        u.institution_id, 'SKP-KEMENKES'
      from users u where u.id = ${teacherId}
      returning id, institution_id as "institutionId"`)
  ).rows;
  const courseId = Number(course.id);
  await db.execute(sql`
    with m as (insert into modules (course_id, name, order_index) values (${courseId}, 'Modul 1', 0) returning id)
    insert into chapters (module_id, course_id, name, content, order_index, expected_minutes)
    select m.id, ${courseId}, 'Bab ' || k, repeat('Isi bab. ', 40), k, 30 from m, generate_series(1, 4) k`);
  await db.execute(sql`
    insert into quizzes (course_id, scope, module_id, chapter_id, name, evidence_role)
    select ${courseId}::int, 'chapter'::quiz_scope, ch.module_id, ch.id, 'Pre-test', 'pre_test' from chapters ch
      where ch.course_id = ${courseId} and ch.order_index = 1
    union all select ${courseId}::int, 'final'::quiz_scope, null::int, null::int, 'Post-test', 'post_test'`);
  const [accreditation] = (
    await db.execute<{ id: number }>(sql`
      insert into course_accreditations (course_id, scheme, reference, valid_from, value)
      values (${courseId}, 'SKP-KEMENKES', 'HK.01.02/BENCH/2026', now() - interval '2 years', 2) returning id`)
  ).rows;
  await db.execute(sql`
    insert into users (email, name, role, membership_id)
    select 'bench-report-' || g || '@bench.test', 'Peserta Laporan ' || g, 'student', 'NIRA-' || g
    from generate_series(1, ${REPORT_PARTICIPANTS}::int) g`);
  await db.execute(sql`
    insert into users (email, name, role, institution_id)
    select 'bench-report-admin-' || g || '@bench.test', 'Admin Laporan ' || g, 'admin', ${course.institutionId}
    from generate_series(1, ${REPORT_MANAGERS}::int) g`);
  const participants = sql`(select id, substring(email from 'bench-report-([0-9]+)@')::int as n from users
    where email ~ '^bench-report-[0-9]+@bench\\.test$')`;
  await db.execute(sql`
    insert into identities (issuer, membership_id, user_id, origin)
    select ${BENCH_ISSUER}, 'bench-report-' || p.n, p.id, 'sso' from ${participants} p where p.n % 2 = 0`);
  // In parts of 2,000, each its own transaction: an enrolment holds an advisory lock per learner
  // and course until its transaction ends, and PostgreSQL's lock table (max_locks_per_transaction
  // 64) overflows past some ten thousand.
  for (let from = 1; from <= REPORT_PARTICIPANTS; from += 2_000) {
    await db.execute(sql`
      insert into enrollments (user_id, course_id, enrolled_at)
      select p.id, ${courseId}, now() - make_interval(days => 30 + p.n % 300) from ${participants} p
      where p.n between ${from} and ${from + 1_999} order by p.n`);
  }
  await db.execute(sql`
    insert into chapter_time (user_id, chapter_id, course_id, active_seconds, beats)
    select p.id, ch.id, ${courseId}, 1440 + (p.n * 7 + ch.order_index * 13) % 600, 60 from ${participants} p, chapters ch
    where ch.course_id = ${courseId}`);
  await db.execute(sql`
    insert into quiz_attempts (user_id, quiz_id, score, passed, attempted_at, submitted_at)
    select p.id, q.id, s.score, s.score >= 70, now() - interval '20 days', now() - interval '20 days'
    from ${participants} p cross join quizzes q
    cross join lateral (select case when q.evidence_role = 'pre_test' then 40 + p.n % 40 else 70 + p.n % 31 end as score) s
    where q.course_id = ${courseId}`);
  await db.execute(sql`
    insert into evaluation_completions (user_id, course_id, completed_at)
    select p.id, ${courseId}, now() - interval '10 days' from ${participants} p where p.n % 5 <> 0`);
  await db.execute(sql`
    with issued as (
      insert into certificates (user_id, course_id, kum, issued_at)
      select p.id, ${courseId}, 2, now() - make_interval(days => p.n % 300) from ${participants} p where p.n % 10 < 7
      returning id, user_id, issued_at)
    insert into credits (user_id, course_id, certificate_id, scheme, accreditation_id, amount, earned_at)
    select user_id, ${courseId}, id, 'SKP-KEMENKES', ${accreditation.id}, 2, issued_at from issued`);
  await db.execute(sql`
    insert into evidence_log (user_id, course_id, kind, detail, reason, at)
    select p.id, ${courseId}, 'correction', jsonb_build_object('addMinutes', 15), 'Bench: sesi luring', now()
    from ${participants} p where p.n % 100 = 0`);
  return courseId;
}
