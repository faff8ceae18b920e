import { randomUUID } from 'node:crypto';
import { signInMember } from '@lms/lms/sso';
import { sql } from 'drizzle-orm';
import type { Child } from '../apps-under-test.js';
import { BENCH_ISSUER, type FilledDb } from '../fill.js';
import type { HttpLoad } from '../load.js';
import { CONNECTIONS } from '../options.js';
import { openSqlPools } from '../runner.js';
import type { ScenarioContext } from './context.js';

/**
 * A session of a returning member who is enrolled in the courses of the first list page (and the
 * first ten bundles' courses) with a few chapters done: the learner fields of a student's list are
 * filled, as a signed-in student sees them. Opened as the SSO callback opens it (signInMember).
 */
async function learnerSession(db: FilledDb['handle']['db'], lms: Child, apiKey: string): Promise<string> {
  const headers = { 'x-api-key': apiKey };
  const list = (await (await fetch(`${lms.url}/api/courses?limit=50`, { headers })).json()) as { courses: { id: number }[] };
  const bundles = (await (await fetch(`${lms.url}/api/recommended-courses`, { headers })).json()) as {
    recommendedCourses: { courseOne: { id: number }; courseTwo: { id: number } }[];
  };
  const courseIds = [
    ...new Set([
      ...list.courses.map((c) => c.id),
      ...bundles.recommendedCourses.slice(0, 10).flatMap((b) => [b.courseOne.id, b.courseTwo.id]),
    ]),
  ];
  const email = 'bench-ret-1@bench.test';
  const [user] = (await db.execute<{ id: string }>(sql`select id from users where email = ${email}`)).rows;
  if (!user) throw new Error(`${email} is not in the bench database`);
  const ids = sql.join(
    courseIds.map((id) => sql`${id}::int`),
    sql`, `,
  );
  await db.execute(
    sql`insert into enrollments (user_id, course_id) select ${user.id}::uuid, c from unnest(array[${ids}]) c on conflict do nothing`,
  );
  await db.execute(sql`
    insert into chapter_completions (user_id, chapter_id, course_id)
    select ${user.id}::uuid, ch.id, ch.course_id from chapters ch
    where ch.course_id = any(array[${ids}]) and ch.order_index <= 2
    on conflict do nothing`);
  const signIn = await signInMember(
    db,
    {
      issuer: BENCH_ISSUER,
      jti: randomUUID(),
      keepTokenUntil: new Date(Date.now() + 330_000),
      email,
      membershipId: 'bench-ret-1',
      tier: 'anggota',
      name: undefined,
    },
    new Date(),
    7 * 86_400_000,
  );
  if (signIn.outcome !== 'signed-in') throw new Error(`learner sign-in: ${signIn.outcome}`);
  return `${lms.cookieName ?? 'lms_session_token'}=${signIn.session.token}`;
}

/**
 * Rows 6q to 12q: every read nobody shares against the exact SQL it sends, straight through pg at
 * the same concurrency (≥ 0.6): what our process adds to the database's cost. Detail's p50 too (≤ 2x).
 */
export async function ownSqlScenarios(ctx: ScenarioContext) {
  const { run, lms, catalog, filled, fixtures, uncachedList12 } = ctx;
  const uncachedUrl = ctx.lmsUncached.url;
  const sqlPools = openSqlPools(filled.url);
  try {
    const learnerCookie = await learnerSession(filled.handle.db, lms, fixtures.apiKeys[fixtures.apiKeys.length - 2]);
    const asLearner = (p: string): HttpLoad => ({
      url: lms.url,
      path: p,
      connections: CONNECTIONS,
      expect: 200,
      headers: { cookie: learnerCookie },
    });
    const reads: [string, string, string, HttpLoad][] = [
      [
        '6q',
        'GET /api/courses/{id}, 10x10 chapters (10 connections)',
        'detail',
        { ...catalog(lms.url, `/api/courses/${filled.detailCourseId}`), connections: 10 },
      ],
      ['2q', 'GET /api/courses?limit=12, not shared', 'uncached list12', uncachedList12],
      ['3q', 'GET /api/courses?limit=50, not shared', 'uncached list50', catalog(uncachedUrl, '/api/courses?limit=50')],
      [
        '4q',
        'GET /api/courses?limit=12&search=pengajar 42, not shared',
        'search',
        catalog(uncachedUrl, `/api/courses?limit=12&search=${encodeURIComponent('pengajar 42')}`),
      ],
      [
        '11q',
        "GET /api/courses?limit=12, a student's session (learner fields filled)",
        'learner list12',
        asLearner('/api/courses?limit=12'),
      ],
      ['12q', "GET /api/recommended-courses, a student's session", 'learner bundles', asLearner('/api/recommended-courses')],
    ];
    for (const [id, scenario, key, load] of reads) {
      const baselineName = `its SQL through pg (${key})`;
      const [route, base] = [run.httpSide(key, load), run.sqlSide(baselineName, load, sqlPools)];
      await run.comparePaired({ id, scenario, baselineName, kind: 'throughput', target: { minRatio: 0.6 } }, route, base);
      if (key === 'detail') {
        await run.comparePaired(
          { id: '6p', scenario: 'GET /api/courses/{id} p50 (10 connections)', baselineName, kind: 'latency', target: { maxRatio: 2 } },
          route,
          base,
        );
      }
    }
  } finally {
    await sqlPools.end();
  }
}
