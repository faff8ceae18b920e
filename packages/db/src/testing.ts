import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDb, type DbHandle } from './client.js';
import { migrate } from './migrate.js';

export interface TestDb extends DbHandle {
  /** The connection string of the throwaway database (PostgreSQL only). */
  url: string | undefined;
  /** Closes the connections and drops the throwaway database. */
  destroy(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file.
 *
 * With TEST_DATABASE_URL set (a PostgreSQL server the tests may create databases on), a new
 * database `lms_test_<random>` is created there and dropped by destroy(). Otherwise an in-memory
 * PGlite instance is used.
 */
export async function createTestDb(): Promise<TestDb> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const handle = createDb({});
    await migrate(handle);
    return { ...handle, url: undefined, destroy: () => handle.close() };
  }
  const name = `lms_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (c) => c.query(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = createDb({ databaseUrl: url.toString(), poolMax: 20 });
  try {
    await migrate(handle);
  } catch (err) {
    await handle.close();
    await withAdmin(adminUrl, (c) => c.query(`drop database if exists ${name} with (force)`));
    throw err;
  }
  return {
    ...handle,
    url: url.toString(),
    async destroy() {
      await handle.close();
      await withAdmin(adminUrl, (c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

async function withAdmin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
