import type { HttpLoad } from '../load.js';
import { CONNECTIONS } from '../options.js';
import type { Spec } from '../runner.js';
import type { ScenarioContext } from './context.js';

/** Rows 1 to 6: R0, the catalog list shared and not, search, a deep page, a big course's detail. */
export async function catalogScenarios(ctx: ScenarioContext) {
  const { run, lms, catalog, rotateKey, r0, uncached12, uncachedList12, options, filled } = ctx;
  const uncachedUrl = ctx.lmsUncached.url;

  // 1. R0 itself: the ceiling every ratio is taken against.
  const r0m = await r0();
  run.record({ id: '1', scenario: 'R0 empty route (LMS process)', baselineName: 'R0', kind: 'throughput' }, r0m.m, r0m.m, r0m.why);

  // 2-3. The catalog list as API keys get it (shared answers, CATALOG_CACHE_MS default), and
  // the same without sharing: what every first request of a page, and every session, costs.
  // limit=12 against R0 (≥ 0.4, p99 < 50 ms). limit=50's answer is big enough that sending it
  // bounds it (a ready answer of its size reaches ~0.25 of R0 on 2 cores), so its target is
  // against that ready answer instead (≥ 0.8, row 3s), and row 3 is reported only.
  for (const limit of [12, 50]) {
    const id = limit === 12 ? '2' : '3';
    await run.compare(
      {
        id,
        scenario: `GET /api/courses?limit=${limit}`,
        baselineName: 'R0',
        kind: 'throughput',
        target: limit === 12 ? { minRatio: 0.4, maxP99: 50 } : undefined,
      },
      run.measureHttp(`list${limit}`, catalog(lms.url, `/api/courses?limit=${limit}`)),
      r0,
    );
    // The same number of bytes from a ready string on the same process: what sending them costs.
    const bytes = (await (await fetch(`${lms.url}/api/courses?limit=${limit}`, { headers: rotateKey().headers })).arrayBuffer()).byteLength;
    const ready: Spec = {
      id: `${id}s`,
      scenario: `GET /api/courses?limit=${limit} against a ready answer of its size (${(bytes / 1024).toFixed(0)} KB)`,
      baselineName: `ready ${(bytes / 1024).toFixed(0)} KB answer`,
      kind: 'throughput',
      target: limit === 50 ? { minRatio: 0.8 } : undefined,
    };
    const readyLoad: HttpLoad = { url: lms.url, path: `/bench/bytes/${bytes}`, connections: CONNECTIONS, expect: 200 };
    if (ready.target) {
      await run.comparePaired(
        ready,
        run.httpSide(`list${limit}`, catalog(lms.url, `/api/courses?limit=${limit}`)),
        run.httpSide(`bytes ${bytes}`, readyLoad),
      );
    } else {
      await run.compare(ready, run.measureHttp(`list${limit}`, catalog(lms.url, `/api/courses?limit=${limit}`)), () =>
        run.measureHttp(`bytes ${bytes}`, readyLoad),
      );
    }
    await run.compare(
      {
        id: `${id}u`,
        scenario: `GET /api/courses?limit=${limit}, not shared (CATALOG_CACHE_MS=0)`,
        baselineName: 'R0',
        kind: 'throughput',
      },
      limit === 12 ? uncached12() : run.measureHttp('uncached list50', catalog(uncachedUrl, `/api/courses?limit=${limit}`)),
      r0,
    );
  }
  // 4-5. Search and a deep page against page 1, all three not shared.
  await run.comparePaired(
    {
      id: '4',
      scenario: 'GET /api/courses?limit=12&search=pengajar 42, not shared',
      baselineName: 'limit=12, no search, not shared',
      kind: 'throughput',
      target: { minRatio: 0.7 },
    },
    run.httpSide('search', catalog(uncachedUrl, `/api/courses?limit=12&search=${encodeURIComponent('pengajar 42')}`)),
    run.httpSide('uncached list12', uncachedList12),
  );
  // Page 500 when there are that many pages (not on the quick data set: its last full page then).
  const deepPage = Math.min(500, Math.floor(options.size.courses / 12));
  await run.compare(
    {
      id: '5',
      scenario: `GET /api/courses?limit=12&page=${deepPage}, not shared`,
      baselineName: 'page 1, not shared',
      kind: 'latency',
      target: { maxRatio: 1.5 },
    },
    run.measureHttp('deep page', catalog(uncachedUrl, `/api/courses?limit=12&page=${deepPage}`)),
    uncached12,
  );

  // 6. Detail of a course with 10 modules x 10 chapters, quizzes on every chapter and module.
  await run.compare(
    { id: '6', scenario: `GET /api/courses/{id}, 10x10 chapters, 111 quizzes (10 connections)`, baselineName: 'R0', kind: 'throughput' },
    // 10 connections, not 50: an answer is ~200 KB (555 questions), 50 in flight would only measure the queue.
    run.measureHttp('detail', { ...catalog(lms.url, `/api/courses/${filled.detailCourseId}`), connections: 10 }),
    r0,
  );
}
