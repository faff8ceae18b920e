import type { AppsUnderTest, Child } from '../apps-under-test.js';
import type { FilledDb, RunFixtures } from '../fill.js';
import type { HttpLoad } from '../load.js';
import { CONNECTIONS, KEY_TURN, type BenchOptions } from '../options.js';
import type { BenchRun, Measured } from '../runner.js';

/** What every group of scenarios works with: the run, the apps under test, the filled database. */
export interface ScenarioContext {
  options: BenchOptions;
  run: BenchRun;
  apps: AppsUnderTest;
  lms: Child;
  /** The same LMS with the shared API-key answers off (CATALOG_CACHE_MS=0): every request runs its SQL. */
  lmsUncached: Child;
  gateway: Child;
  filled: FilledDb;
  fixtures: RunFixtures;
  /** Enrollments in the database when the run began (the progress row's baseline names it). */
  enrollmentCount: number;
  /** A directory of this run's files (the partners file, the keys of the PGlite LMS). */
  tmp: string;
  /** An API key's header, the keys taken in turns (see keyTurns). */
  rotateKey: () => { headers: Record<string, string> };
  /** A catalog load at CONNECTIONS connections, each request with the key of its turn. */
  catalog: (url: string, path: string) => HttpLoad;
  /** R0: the LMS process's empty route, the ceiling every ratio is taken against. */
  r0: () => Promise<Measured>;
  /** The list of 12 not shared (the uncached LMS), the baseline of search, deep page and PGlite. */
  uncachedList12: HttpLoad;
  uncached12: () => Promise<Measured>;
}

/**
 * API keys in turns of KEY_TURN consecutive requests: a storefront's key is used in bursts and
 * stays in the LMS's 5-s key cache for its turn; the pool is large enough that no key passes its
 * 100 requests a minute at any rate reached here (keys x KEY_TURN requests per lap). One counter
 * for the whole run.
 */
export function keyTurns(apiKeys: readonly string[]): () => { headers: Record<string, string> } {
  let keyUse = 0;
  return () => ({ headers: { 'x-api-key': apiKeys[Math.floor(keyUse++ / KEY_TURN) % apiKeys.length] } });
}

export function scenarioContext(
  base: Omit<ScenarioContext, 'rotateKey' | 'catalog' | 'r0' | 'uncachedList12' | 'uncached12'>,
): ScenarioContext {
  const { run, lms, lmsUncached, fixtures } = base;
  const rotateKey = keyTurns(fixtures.apiKeys);
  const catalog = (url: string, p: string): HttpLoad => ({ url, path: p, connections: CONNECTIONS, expect: 200, perRequest: rotateKey });
  const uncachedList12 = catalog(lmsUncached.url, '/api/courses?limit=12');
  return {
    ...base,
    rotateKey,
    catalog,
    r0: () => run.measureHttp('R0', { url: lms.url, path: '/bench/empty', connections: CONNECTIONS, expect: 200 }),
    uncachedList12,
    uncached12: () => run.measureHttp('uncached list12', uncachedList12),
  };
}
