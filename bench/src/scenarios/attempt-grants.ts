import { users } from '@lms/db';
import { grantAttempts } from '@lms/lms/attempt-grants';
import { createSession, findSession } from '@lms/lms/sessions';
import { sql } from 'drizzle-orm';
import { runLoop } from '../load.js';
import { log } from '../options.js';
import type { ScenarioContext } from './context.js';
import { recordedReceipts } from '@lms/lms/testing';

/** The receipts the domain records (on no queue: the bench measures the transaction). */
const receipts = recordedReceipts();

/**
 * Row 30g: a manager grants a learner more quiz attempts (the grant form of the learners page, a
 * recorded write), against its SQL: grantAttempts() called directly after the same session
 * lookup. Each request grants one attempt to one of 10 enrolled learners of a course with quizzes.
 * The rows it adds are removed afterwards.
 */
export async function attemptGrantScenario(ctx: ScenarioContext) {
  const { run, lms, filled } = ctx;
  const db = filled.handle.db;
  const email = 'bench-granter@bench.test';
  await db.insert(users).values({ email, name: 'Bench Granter', role: 'super_admin' }).onConflictDoNothing();
  const [granter] = await db.select({ id: users.id }).from(users).where(sql`${users.email} = ${email}`);
  const session = await createSession(db, granter.id, new Date(), 86_400_000);
  const targets = (
    await db.execute<{ courseId: number; quizId: number; userId: string }>(sql`
      select e.course_id as "courseId", (select min(q.id) from quizzes q where q.course_id = e.course_id)::int as "quizId", e.user_id as "userId"
      from enrollments e where exists (select 1 from quizzes q where q.course_id = e.course_id)
      order by e.id limit 10`)
  ).rows;
  if (targets.length === 0) {
    log('30g: no enrolled learner in a course with quizzes; row skipped');
    return;
  }
  let n = 0;
  const nextTarget = () => {
    n += 1;
    return targets[n % targets.length];
  };
  const reason = 'Bench: percobaan tambahan';
  const CONNECTIONS = 4;
  try {
    await run.comparePaired(
      {
        id: '30g',
        scenario: `POST /dashboard/courses/{id}/learners/{user}/grants, one extra attempt (${CONNECTIONS} connections)`,
        baselineName: 'its SQL: grantAttempts() called directly',
        kind: 'throughput',
        target: { minRatio: 0.5 },
      },
      run.httpSide('grant form', {
        url: lms.url,
        path: `/dashboard/courses/${targets[0].courseId}/learners/${targets[0].userId}/grants`,
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `${lms.cookieName}=${session.token}`,
          'sec-fetch-site': 'same-origin',
        },
        body: new URLSearchParams({ quizId: String(targets[0].quizId), extra: '1', reason }).toString(),
        connections: CONNECTIONS,
        expect: 303,
        perRequest: () => {
          const g = nextTarget();
          return {
            path: `/dashboard/courses/${g.courseId}/learners/${g.userId}/grants`,
            body: new URLSearchParams({ quizId: String(g.quizId), extra: '1', reason }).toString(),
          };
        },
      }),
      {
        key: 'its SQL: grantAttempts() called directly',
        ready: async () => null,
        side: () => ({
          run: (seconds) =>
            runLoop(
              async () => {
                const g = nextTarget();
                await findSession(db, session.tokenHash, new Date());
                await grantAttempts(db, receipts, { userId: granter.id, role: 'super_admin' }, { ...g, extra: 1, reason }, new Date());
              },
              CONNECTIONS,
              seconds,
            ),
        }),
      },
    );
  } finally {
    await db.execute(sql`delete from quiz_attempt_grants where reason = ${reason}`);
  }
}
