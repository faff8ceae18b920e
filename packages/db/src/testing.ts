import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createDb, type DbHandle } from './client.js';
import { migrate, migrationsFolder } from './migrate.js';

export interface TestDb extends DbHandle {
  /** The connection string of the throwaway database (PostgreSQL only). */
  url: string | undefined;
  /** Closes the connections and drops the throwaway database. */
  destroy(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file.
 *
 * With `adminUrl` (a PostgreSQL server the tests may create databases on), a new database
 * `lms_test_<random>` is created there and dropped by destroy(). Without it, an in-memory PGlite
 * instance is used. The caller says which: each package's test helpers read TEST_DATABASE_URL,
 * so that this module, like the code it tests, never reads the environment.
 *
 * `migratedUpTo` (a migration's tag, e.g. '0003_progress_aggregates') stops after that
 * migration, for tests of a later one: they fill the older schema, then run `migrate()`.
 */
export async function createTestDb(adminUrl: string | undefined, options: { migratedUpTo?: string } = {}): Promise<TestDb> {
  const upTo = options.migratedUpTo;
  if (!adminUrl) {
    // Starting from a migrated snapshot costs a fraction of running the migrations again.
    const handle = upTo ? createDb({}) : createDb({ pgliteSnapshot: await migratedPgliteSnapshot() });
    try {
      if (upTo) await migrateUpTo(handle, upTo);
    } catch (err) {
      await handle.close();
      throw err;
    }
    return { ...handle, url: undefined, destroy: () => handle.close() };
  }
  const name = `lms_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (c) => c.query(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = createDb({ databaseUrl: url.toString(), poolMax: 20 });
  try {
    await (upTo ? migrateUpTo(handle, upTo) : migrate(handle));
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

/**
 * Applies the committed migrations up to and including `tag`: a copy of the migrations folder
 * whose journal ends there, given to the same migrator. A later `migrate()` with the real folder
 * applies the rest, as on a deployed database.
 */
async function migrateUpTo(handle: DbHandle, tag: string): Promise<void> {
  const journalFile = join(migrationsFolder, 'meta', '_journal.json');
  const journal = JSON.parse(await readFile(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const last = journal.entries.findIndex((e) => e.tag === tag);
  if (last < 0) throw new Error(`no migration tagged ${tag} in ${journalFile}`);
  const folder = await mkdtemp(join(tmpdir(), 'lms-migrations-'));
  try {
    await cp(migrationsFolder, folder, { recursive: true });
    await writeFile(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, last + 1) }));
    await migrate(handle, folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
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

let snapshotPromise: Promise<Blob> | undefined;

/**
 * A PGlite data directory with every migration applied, as a tarball. Built once per process and
 * kept in the OS temp directory under a hash of the migration files (so test files run in other
 * processes reuse it, and a new migration makes a new snapshot).
 */
export function migratedPgliteSnapshot(): Promise<Blob> {
  snapshotPromise ??= loadOrBuildSnapshot().catch((err) => {
    snapshotPromise = undefined;
    throw err;
  });
  return snapshotPromise;
}

async function loadOrBuildSnapshot(): Promise<Blob> {
  const file = join(tmpdir(), `lms-pglite-migrated-${await migrationsHash()}.tar`);
  try {
    return new Blob([await readFile(file)]);
  } catch {
    // Not cached yet (or unreadable): build it.
  }
  const handle = createDb({});
  try {
    await migrate(handle);
    // biome-ignore lint/style/noNonNullAssertion: createDb without a URL is PGlite, which has dumpDataDir.
    const tarball = await handle.dumpDataDir!();
    const bytes = new Uint8Array(await tarball.arrayBuffer());
    // Write then rename, so a concurrent reader never sees half a file.
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, bytes);
    await rename(partial, file);
    return new Blob([bytes]);
  } finally {
    await handle.close();
  }
}

async function migrationsHash(): Promise<string> {
  const hash = createHash('sha256');
  // The installed PGlite's location names its version (pnpm store path): another version, another snapshot.
  hash.update(import.meta.resolve('@electric-sql/pglite'));
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else hash.update(entry.name).update(await readFile(path));
    }
  };
  await walk(migrationsFolder);
  return hash.digest('hex').slice(0, 16);
}

export { makeCategory, makeCourse } from './fixtures.js';
