import { createSession } from '@lms/lms/sessions';
import { sql } from 'drizzle-orm';
import { REPORT_MANAGERS, REPORT_PARTICIPANTS } from '../fill-report.js';
import type { HttpLoad } from '../load.js';
import { openSqlPools } from '../runner.js';
import type { ScenarioContext } from './context.js';

/** Concurrent downloads: each is 10,000 rows (~2 MB of CSV), and the machine has two cores. */
const CONNECTIONS = 4;

/**
 * Rows 42x and 42y (issue 42): a body's participant list of the report course (REPORT_PARTICIPANTS
 * participants with their evidence, fill-report.ts) downloaded by a manager, as CSV and as XLSX,
 * against its own SQL: the statements one download sends (the session, the manager check, the
 * schemes, then the list's pages of 1,000 one after the other), recorded at the LMS's driver and
 * replayed through pg at the same concurrency (runner.ts, sqlSide). The ratio is what the export
 * adds to the database's work: mapping the rows, writing and defusing the cells, the file, HTTP.
 * Both sides are closed loops of CONNECTIONS clients (runner.ts, fetchSide: a download is read to
 * its end). Target ≥ 0.5. The period is every enrolment (basis=enrolment): every participant is a row.
 * Each request is made by the next of REPORT_MANAGERS admins of the course's institution: the
 * documents limit (10 a minute per person) stays on and is never reached.
 */
export async function participantExportScenario(ctx: ScenarioContext) {
  const { run, lms, filled } = ctx;
  const db = filled.handle.db;
  const courseId = filled.reportCourseId;
  const managers = (
    await db.execute<{ id: string }>(sql`select id from users where email like 'bench-report-admin-%@bench.test' order by email`)
  ).rows;
  if (managers.length < REPORT_MANAGERS) throw new Error(`the report course has ${managers.length} managers, not ${REPORT_MANAGERS}`);
  const cookies = await Promise.all(
    managers.map(async (m) => `${lms.cookieName}=${(await createSession(db, m.id, new Date(), 86_400_000)).token}`),
  );
  let turn = 0;
  const download = (ext: 'csv' | 'xlsx'): HttpLoad => ({
    url: lms.url,
    path: `/dashboard/courses/${courseId}/reports/participants.${ext}?basis=enrolment`,
    connections: CONNECTIONS,
    expect: 200,
    perRequest: () => ({ headers: { cookie: cookies[turn++ % cookies.length] } }),
  });
  const pools = openSqlPools(filled.url);
  try {
    for (const [id, ext] of [
      ['42x', 'csv'],
      ['42y', 'xlsx'],
    ] as const) {
      const load = download(ext);
      const baselineName = `its SQL through pg (participants ${ext})`;
      await run.comparePaired(
        {
          id,
          scenario: `GET /dashboard/courses/{id}/reports/participants.${ext}, ${REPORT_PARTICIPANTS.toLocaleString('en-US')} participants (${CONNECTIONS} connections)`,
          baselineName,
          kind: 'throughput',
          target: { minRatio: 0.5 },
        },
        run.fetchSide(`participants ${ext}`, load),
        run.sqlSide(baselineName, load, pools),
      );
    }
  } finally {
    await pools.end();
    await db.execute(sql`delete from sessions where user_id in ${managers.map((m) => m.id)}`);
  }
}
