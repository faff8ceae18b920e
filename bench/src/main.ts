/**
 * `pnpm run bench [-- --quick] [-- --courses N --students N --enrollments N --completions N]`
 *
 * Starts the built LMS and gateway in child processes (serve.ts) on a PostgreSQL database of its
 * own (fill.ts), drives them with autocannon from this process, and compares every scenario with
 * a baseline measured in the same run. Prints a table and writes it as JSON to bench/results/.
 * Misses are reported, never fatal: the exit code is non-zero only when the bench could not run.
 *
 * What each row measures is in scenarios/ (in the order they run); how a row is measured and
 * recorded in runner.ts; the bench's method and latest figures in bench/README.md.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { AppsUnderTest } from './apps-under-test.js';
import { BENCH_ISSUER, type FilledDb, prepareDatabase, prepareRun } from './fill.js';
import { log, readOptions, SCENARIO_GROUPS } from './options.js';
import { writeResults } from './results.js';
import { BenchRun } from './runner.js';
import { attemptGrantScenario } from './scenarios/attempt-grants.js';
import { questionImportScenario } from './scenarios/question-import.js';
import { chapterTimeScenario } from './scenarios/chapter-time.js';
import { participantExportScenario } from './scenarios/participant-export.js';
import { authoringScenarios } from './scenarios/authoring.js';
import { purchaseScenarios } from './scenarios/purchases.js';
import { partnerEventScenarios } from './scenarios/partner-events.js';
import { jobScenarios } from './scenarios/jobs.js';
import { catalogScenarios } from './scenarios/catalog.js';
import { type ScenarioContext, scenarioContext } from './scenarios/context.js';
import { ownSqlScenarios } from './scenarios/own-sql.js';
import { partnerScenarios } from './scenarios/partners.js';
import { pgliteScenario } from './scenarios/pglite.js';
import { progressScenario } from './scenarios/progress.js';
import { reminderScenario } from './scenarios/reminders.js';

async function main() {
  const options = readOptions(process.argv.slice(2));
  const { quick, size, dbName, gatewaySecret } = options;
  const startedAt = new Date();
  const loadStart = os.loadavg();
  log(`bench ${quick ? '(quick) ' : ''}sizes ${JSON.stringify(size)} on ${dbName}; load ${loadStart.map((l) => l.toFixed(2)).join(' ')}`);

  const filled: FilledDb = await prepareDatabase(options.pgBase, dbName, size, log);
  log(`${dbName}: ${filled.reused ? 'reused' : 'filled'} in ${(filled.fillMs / 1000).toFixed(1)} s`);
  const keyCount = quick ? 5_000 : 20_000;
  const fixtures = await prepareRun(filled.handle, filled.teacherId, keyCount);
  const db = filled.handle.db;
  const enrollmentCount = Number((await db.execute<{ n: number }>(sql`select count(*)::int as n from enrollments`)).rows[0].n);

  const tmp = await mkdtemp(path.join(os.tmpdir(), 'lms-bench-'));
  const apps = new AppsUnderTest();
  // Enough tokens for a token scenario's one-second probe run at any rate this machine reaches.
  const run = new BenchRun(options.plan, apps, quick ? 1500 : 3000);
  try {
    const lms = await apps.start('lms', { BENCH_DATABASE_URL: filled.url, BENCH_GATEWAY_SECRET: gatewaySecret });
    // The same LMS with the shared API-key list answers off (CATALOG_CACHE_MS=0): every request
    // runs its SQL. Search and deep pages are measured here, where they cost what they cost.
    const lmsUncached = await apps.start('lms', {
      BENCH_DATABASE_URL: filled.url,
      BENCH_GATEWAY_SECRET: gatewaySecret,
      BENCH_CATALOG_CACHE_MS: '0',
    });
    const partnersFile = path.join(tmp, 'partners.json');
    await writeFile(partnersFile, JSON.stringify({ partners: [{ iss: BENCH_ISSUER, allowedIps: ['127.0.0.1/32'], lmsUrl: lms.url }] }));
    const gateway = await apps.start('gateway', { BENCH_PARTNERS_FILE: partnersFile, BENCH_GATEWAY_SECRET: gatewaySecret });
    log(`LMS at ${lms.url} (uncached list at ${lmsUncached.url}), gateway at ${gateway.url}`);

    const ctx = scenarioContext({ options, run, apps, lms, lmsUncached, gateway, filled, fixtures, enrollmentCount, tmp });
    const groups: Record<(typeof SCENARIO_GROUPS)[number], (ctx: ScenarioContext) => Promise<void>> = {
      catalog: catalogScenarios,
      'own-sql': ownSqlScenarios,
      progress: progressScenario,
      partners: partnerScenarios,
      authoring: authoringScenarios,
      'question-import': questionImportScenario,
      'attempt-grants': attemptGrantScenario,
      'chapter-time': chapterTimeScenario,
      'participant-export': participantExportScenario,
      purchases: purchaseScenarios,
      'partner-events': partnerEventScenarios,
      reminders: reminderScenario,
      jobs: jobScenarios,
      pglite: pgliteScenario,
    };
    for (const name of SCENARIO_GROUPS) {
      if (options.only && !options.only.includes(name)) continue;
      await groups[name](ctx);
    }
  } finally {
    apps.stopAll();
    await filled.handle.close();
    await rm(tmp, { recursive: true, force: true });
  }

  await writeResults(run, options, filled, startedAt, loadStart);
}

main().then(
  () => process.exit(0),
  (err) => {
    const cause = (err as Error).cause;
    process.stderr.write(
      `bench could not run: ${(err as Error).stack ?? err}${cause ? `\ncaused by: ${(cause as Error).stack ?? cause}` : ''}\n`,
    );
    process.exit(1);
  },
);
