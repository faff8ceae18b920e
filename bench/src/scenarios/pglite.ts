import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { log } from '../options.js';
import type { ScenarioContext } from './context.js';

/**
 * Row 10: row 2 not shared, on an LMS with the embedded PGlite (in memory, the same number of
 * courses), against the same on PostgreSQL; report only. The gateway, whose rows are done, is
 * stopped first.
 */
export async function pgliteScenario(ctx: ScenarioContext) {
  const { run, apps, options, fixtures, catalog, uncached12 } = ctx;
  const spec = {
    id: '10',
    scenario: 'GET /api/courses?limit=12 on PGlite',
    baselineName: 'same on PostgreSQL',
    kind: 'throughput' as const,
  };
  if (options.noPglite) {
    run.record(spec, null, null, { status: 'missing', note: 'skipped (--no-pglite)' });
    return;
  }
  try {
    const keysFile = path.join(ctx.tmp, 'keys.txt');
    await writeFile(keysFile, fixtures.apiKeyHashes.join('\n'));
    log(`PGlite: migrating and filling ${options.size.courses} courses in memory ...`);
    apps.stop(ctx.gateway);
    const pglite = await apps.start('lms-pglite', {
      BENCH_PGLITE_COURSES: String(options.size.courses),
      BENCH_KEYS_FILE: keysFile,
      BENCH_CATALOG_CACHE_MS: '0',
    });
    await run.compare(
      {
        ...spec,
        scenario: `GET /api/courses?limit=12 on PGlite (${options.size.courses.toLocaleString('en-US')} courses), not shared`,
      },
      run.measureHttp('pglite list12', catalog(pglite.url, '/api/courses?limit=12')),
      uncached12,
    );
  } catch (err) {
    run.record(spec, null, null, { status: 'error', note: (err as Error).message });
  }
}
