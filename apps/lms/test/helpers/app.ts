import { createTestDb, type TestDb } from '@lms/db/testing';
import type { Test } from 'tap';
import { buildApp, type AppDeps, type LmsApp } from '../../src/app.js';
import type { LmsConfig } from '../../src/config.js';
import { testConfig } from '../../src/testing.js';
import { testDatabaseUrl } from './database.js';

export interface TestApp {
  app: LmsApp;
  db: TestDb;
}

/**
 * A real LMS on a throwaway database (PGlite in memory, or a fresh PostgreSQL database when
 * TEST_DATABASE_URL is set), torn down with the test.
 */
export async function buildTestApp(
  t: Test,
  options: { config?: Partial<LmsConfig>; deps?: Partial<AppDeps>; db?: TestDb } = {},
): Promise<TestApp> {
  const db = options.db ?? (await createTestDb(testDatabaseUrl));
  const app = await buildApp({ config: testConfig(options.config), db, logger: false, ...options.deps });
  t.teardown(async () => {
    await app.close();
    if (!options.db) await db.destroy();
  });
  return { app, db };
}
