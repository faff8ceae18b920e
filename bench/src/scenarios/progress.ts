import { sql } from 'drizzle-orm';
import type { ScenarioContext } from './context.js';

/**
 * Row 7: progress metrics against the simplest full read of the same data, one request at a time.
 * Keys in turns, as the catalog's: one key would pass its 100 requests a minute within a second
 * (the answer comes from counters) and measure 429s.
 */
export async function progressScenario(ctx: ScenarioContext) {
  const { run, lms, rotateKey, enrollmentCount } = ctx;
  const db = ctx.filled.handle.db;
  const baselineName = `SELECT count(*) FROM enrollments (${enrollmentCount.toLocaleString('en-US')} rows)`;
  await run.compare(
    {
      id: '7',
      scenario: 'GET /api/lms-progress (1 connection)',
      baselineName,
      kind: 'latency',
      target: { maxP50: 100, maxRatio: 3 },
    },
    run.measureHttp('progress', { url: lms.url, path: '/api/lms-progress', connections: 1, expect: 200, perRequest: rotateKey }),
    () =>
      run.measureLoop(
        baselineName,
        async () => {
          await db.execute(sql`select count(*) from enrollments`);
        },
        1,
      ),
  );
}
