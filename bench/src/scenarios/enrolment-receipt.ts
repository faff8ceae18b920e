import { createDb, migrate } from '@lms/db';
import { createSession } from '@lms/lms/sessions';
import { sql } from 'drizzle-orm';
import type { Child } from '../apps-under-test.js';
import { adminQuery, dbUrl } from '../fill.js';
import { log } from '../options.js';
import type { ScenarioContext } from './context.js';

/**
 * Open free courses per side. Request n enrols learner n mod L in course (n + ⌊n / L⌋) mod COURSES
 * (L, the learners, a multiple of COURSES): every pair once, and concurrent requests are different
 * learners in different courses. The enrolment's counters (the course's row, the learner's
 * participant row) are locked until its transaction ends: the same learner (or course) in every
 * concurrent request would queue them one behind the other.
 */
const COURSES = 50;
const CONNECTIONS = 8;

/**
 * Row 15w (issue 44): a learner's enrolment through HTTP as deployed, `POST
 * /api/learning/courses/{id}/enrollment` on an open free course (201), whose transaction records
 * its receipt (`enrolment.confirmed`: a notification row and its `notification.send` job), against
 * the same route on an LMS whose receipts record nothing (serve.ts BENCH_RECEIPTS=off: receipts
 * cannot be switched off in a deployment). Both LMSes only enqueue (JOBS_WORKERS=off), on a
 * database of their own, migrated and filled here (learners, sessions, courses) and dropped at
 * the end: the bench database's LMSes run jobs, and would send these receipts beside the load.
 * Every request is a first enrolment. Target ≥ 0.8.
 */
export async function enrolmentReceiptScenario(ctx: ScenarioContext) {
  const { run, apps, options } = ctx;
  const learnersCount = options.quick ? 2_000 : 6_000;
  const name = `${options.dbName}_receipts`;
  await adminQuery(options.pgBase, `drop database if exists ${name} with (force)`);
  await adminQuery(options.pgBase, `create database ${name}`);
  const url = dbUrl(options.pgBase, name);
  const handle = createDb({ databaseUrl: url, poolMax: 4 });
  const started: Child[] = [];
  try {
    await migrate(handle);
    const db = handle.db;
    const learners = (
      await db.execute<{ id: string }>(sql`
        insert into users (email, name, role)
        select 'learner-' || g || '@bench.test', 'Bench learner ' || g, 'student' from generate_series(1, ${learnersCount}) g
        returning id`)
    ).rows.map((r) => r.id);
    const [institution] = (await db.execute<{ id: number }>(sql`insert into institutions (name) values ('Bench') returning id`)).rows;
    const [teacher] = (
      await db.execute<{ id: string }>(sql`
        insert into users (email, name, role, institution_id) values ('teacher@bench.test', 'Bench teacher', 'teacher', ${institution.id})
        returning id`)
    ).rows;
    const courses = async (tag: string) =>
      (
        await db.execute<{ id: number }>(sql`
          insert into courses (name, description, instructor, course_code, institution_id, teacher_id,
                               enrollment_type, is_published, event_code, is_purchasable)
          select ${tag} || ' ' || g, 'bench', 'bench', ${tag} || '-' || g, ${institution.id}, ${teacher.id},
                 'open', true, ${tag} || '-' || g, false
          from generate_series(1, ${COURSES}) g returning id`)
      ).rows.map((r) => r.id);
    const withReceipt = await courses('receipt');
    const without = await courses('plain');
    const env = { BENCH_DATABASE_URL: url, BENCH_GATEWAY_SECRET: options.gatewaySecret, BENCH_JOBS_WORKERS: 'off' };
    const lmsReceipts = await apps.start('lms', env);
    started.push(lmsReceipts);
    const lmsPlain = await apps.start('lms', { ...env, BENCH_RECEIPTS: 'off' });
    started.push(lmsPlain);
    const cookies: string[] = [];
    for (let i = 0; i < learners.length; i += 200) {
      const batch = await Promise.all(learners.slice(i, i + 200).map((id) => createSession(db, id, new Date(), 86_400_000)));
      for (const s of batch) cookies.push(`${lmsReceipts.cookieName}=${s.token}`);
    }
    const side = (key: string, lms: Child, courseIds: number[]) => {
      let n = 0;
      const next = () => {
        const i = n++;
        const learners = cookies.length;
        // Past learners x COURSES requests an answer would be 200 (enrolled before) and count as unexpected.
        return {
          path: `/api/learning/courses/${courseIds[(i + Math.floor(i / learners)) % COURSES]}/enrollment`,
          cookie: cookies[i % learners],
        };
      };
      const first = next();
      return run.httpSide(key, {
        url: lms.url,
        path: first.path,
        method: 'POST',
        headers: { cookie: first.cookie, 'x-requested-with': 'bench' },
        connections: CONNECTIONS,
        expect: 201,
        perRequest: () => {
          const r = next();
          return { path: r.path, headers: { cookie: r.cookie, 'x-requested-with': 'bench' } };
        },
      });
    };
    await run.comparePaired(
      {
        id: '15w',
        scenario: `POST /api/learning/courses/{id}/enrollment, receipt recorded (notification + job) (${CONNECTIONS} connections)`,
        baselineName: 'the same enrolment, receipts recording nothing',
        kind: 'throughput',
        target: { minRatio: 0.8 },
      },
      side('enrolment with its receipt', lmsReceipts, withReceipt),
      side('enrolment without a receipt', lmsPlain, without),
    );
    const counts = (
      await db.execute<{ enrolments: number; notifications: number; jobs: number }>(sql`
        select (select count(*)::int from enrollments) as enrolments, (select count(*)::int from notifications) as notifications,
               (select count(*)::int from pgboss.job where name = 'notification.send') as jobs`)
    ).rows[0];
    log(`15w: ${counts.enrolments} enrolments, ${counts.notifications} notifications, ${counts.jobs} send jobs written`);
  } finally {
    for (const child of started) apps.stop(child);
    await handle.close();
    // The children close their pools on SIGTERM; force closes what is left.
    await adminQuery(options.pgBase, `drop database if exists ${name} with (force)`);
  }
}
