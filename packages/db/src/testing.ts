import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { getConstructionPlans } from 'pg-boss';
import { createDb, type Db, type DbHandle, JOBS_SCHEMA } from './client.js';
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
 * `lms_test_<random>` is created there (a copy of the migrated template, below) and dropped by
 * destroy(). Without it, an in-memory PGlite instance is used. The caller says which: each
 * package's test helpers read TEST_DATABASE_URL, so that this module, like the code it tests,
 * never reads the environment.
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
  if (upTo) await withAdmin(adminUrl, (c) => c.query(`create database ${name}`));
  else await createFromTemplate(adminUrl, name);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = createDb({ databaseUrl: url.toString(), poolMax: 20 });
  try {
    if (upTo) await migrateUpTo(handle, upTo);
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

/**
 * A new database `name` on the server, copied from the migrated template database (built once
 * per set of migrations, below): `CREATE DATABASE ... TEMPLATE` copies a few megabytes of files
 * in about 0.15 s, where running the migrations again took 2-5 s per test database, hundreds of
 * times in the PostgreSQL pass of CI.
 */
async function createFromTemplate(adminUrl: string, name: string): Promise<void> {
  const template = await migratedTemplate(adminUrl);
  try {
    await withAdmin(adminUrl, (c) => c.query(`create database ${name} template ${template}`));
  } catch (err) {
    // Another test run (with other migrations) removed it meanwhile, as stale: build it again, once.
    if ((err as { code?: string }).code !== '3D000') throw err;
    templatePromises.delete(adminUrl);
    await withAdmin(adminUrl, async (c) => c.query(`create database ${name} template ${await migratedTemplate(adminUrl)}`));
  }
}

const TEMPLATE_PREFIX = 'lms_test_template_';
/** The advisory lock under which test processes build templates (any number: tests only). */
const TEMPLATE_LOCK = 7_351_902_114;
/** Templates of other migration sets are dropped once this old (a concurrent run may still use one). */
const STALE_TEMPLATE_MS = 6 * 60 * 60 * 1000;
const templatePromises = new Map<string, Promise<string>>();

/**
 * The name of a database on the server with every migration applied, `lms_test_template_<hash of
 * the migration files>`, kept between runs like the PGlite snapshot in the temp directory (a
 * cache, never connected to but while it is built). Test processes build it under an advisory
 * lock, so one builds and the others wait; it is renamed into place only once complete. Templates
 * of other migration sets older than six hours are dropped then.
 */
function migratedTemplate(adminUrl: string): Promise<string> {
  let promise = templatePromises.get(adminUrl);
  if (!promise) {
    promise = buildTemplate(adminUrl).catch((err) => {
      templatePromises.delete(adminUrl);
      throw err;
    });
    templatePromises.set(adminUrl, promise);
  }
  return promise;
}

async function buildTemplate(adminUrl: string): Promise<string> {
  const template = `${TEMPLATE_PREFIX}${await migrationsHash(false)}`;
  return withAdmin(adminUrl, async (admin) => {
    const exists = async () => ((await admin.query('select 1 from pg_database where datname = $1', [template])).rowCount ?? 0) > 0;
    if (await exists()) return template;
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      if (await exists()) return template;
      const building = `${template}_${randomBytes(4).toString('hex')}`;
      await admin.query(`create database ${building}`);
      try {
        const url = new URL(adminUrl);
        url.pathname = `/${building}`;
        const handle = createDb({ databaseUrl: url.toString(), poolMax: 2 });
        try {
          await migrate(handle);
        } finally {
          await handle.close();
        }
        await admin.query(`comment on database ${building} is '${new Date().toISOString()}'`);
        await admin.query(`alter database ${building} rename to ${template}`);
      } catch (err) {
        await admin.query(`drop database if exists ${building} with (force)`);
        throw err;
      }
      await dropStaleTemplates(admin, template);
      return template;
    } finally {
      await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
}

async function dropStaleTemplates(admin: pg.Client, current: string): Promise<void> {
  const { rows } = await admin.query<{ datname: string; built: string | null }>(
    `select datname, shobj_description(oid, 'pg_database') as built from pg_database
      where datname like $1 and datname <> $2`,
    [`${TEMPLATE_PREFIX}%`, current],
  );
  for (const { datname, built } of rows) {
    const builtAt = Date.parse(built ?? '');
    // A half-built one (no date) belongs to a process that died while building: stale too.
    if (Number.isFinite(builtAt) && Date.now() - builtAt < STALE_TEMPLATE_MS) continue;
    await admin.query(`drop database if exists ${datname}`).catch(() => {}); // in use: next time
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

async function migrationsHash(forPglite = true): Promise<string> {
  const hash = createHash('sha256');
  // The installed PGlite's location names its version (pnpm store path): another version, another snapshot.
  if (forPglite) hash.update(import.meta.resolve('@electric-sql/pglite'));
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else hash.update(entry.name).update(await readFile(path));
    }
  };
  await walk(migrationsFolder);
  // migrate() installs the job queue's schema too: another pg-boss, another snapshot.
  hash.update(getConstructionPlans(JOBS_SCHEMA));
  return hash.digest('hex').slice(0, 16);
}

export { accreditCourseValue, makeCategory, makeCourse } from './fixtures.js';

/** The overall progress metrics recomputed from raw rows (progressFromRawRows). */
export interface RawProgress {
  totalDaftar: number;
  totalBeli: number;
  totalSelesai: number;
  totalSertifikat: number;
  totalClasses: number;
  totalCourses: number;
  totalStudents: number;
  completionRate: number;
  buyers30Days: number;
  revenue30Days: number;
  totalKum30Days: number;
  certificatesCount: number;
  peopleWithBadgeCount: number;
  revenueByCurrency30Days: { currency: string; amount: number }[];
}

/**
 * The oracle of `/api/lms-progress` (overall): every metric recomputed from the raw rows, with
 * none of the counters or aggregates the LMS reads, and the completion rate exactly as the spec
 * states it: the mean over enrollments of (distinct chapters of the course the student completed
 * ÷ the course's chapters) × 100, 0 for a course without chapters, rounded half up to 2 decimals.
 * Chapters are reached through their module (chapter → module → course), not the denormalised
 * course_id the triggers use. The window of the 30-day figures is (now − 30 days, now]; the
 * revenue is the platform currency's (`currency`), every currency summed on its own beside it.
 */
export async function progressFromRawRows(db: Db, now: Date, { currency = 'IDR' }: { currency?: string } = {}): Promise<RawProgress> {
  const since = new Date(now.getTime() - 30 * 24 * 60 * 60 * 1000).toISOString();
  const until = now.toISOString();
  const { rows } = await db.execute(sql`
    select
      (select count(*) from enrollments)::int as "totalDaftar",
      (select count(*) from purchases where status = 'paid')::int as "totalBeli",
      (select count(*) from certificates)::int as "totalSertifikat",
      (select count(*) from courses where is_published and event_code is not null)::int as "totalClasses",
      (select count(*) from courses)::int as "totalCourses",
      (select count(distinct user_id) from enrollments)::int as "totalStudents",
      (select count(distinct user_id) from purchases where status = 'paid' and paid_at > ${since}::timestamptz and paid_at <= ${until}::timestamptz)::int as "buyers30Days",
      (select coalesce(sum(amount), 0)::float8 from purchases where status = 'paid' and currency = ${currency}
        and paid_at > ${since}::timestamptz and paid_at <= ${until}::timestamptz) as "revenue30Days",
      coalesce((select json_agg(json_build_object('currency', currency, 'amount', amount) order by currency) from (
        select currency, sum(amount)::float8 as amount from purchases
        where status = 'paid' and paid_at > ${since}::timestamptz and paid_at <= ${until}::timestamptz group by currency) w), '[]') as "revenueByCurrency30Days",
      (select coalesce(sum(c.nilai_kum), 0)::float8 from certificates k join courses c on c.id = k.course_id
        where k.issued_at > ${since}::timestamptz and k.issued_at <= ${until}::timestamptz) as "totalKum30Days",
      (select count(distinct user_id) from certificates)::int as "peopleWithBadgeCount",
      coalesce((select json_agg(json_build_array(
          (select count(distinct cc.chapter_id) from chapter_completions cc join chapters ch on ch.id = cc.chapter_id
             join modules m on m.id = ch.module_id where cc.user_id = e.user_id and m.course_id = e.course_id),
          (select count(*) from chapters ch join modules m on m.id = ch.module_id where m.course_id = e.course_id)))
        from enrollments e), '[]') as progress`);
  const r = rows[0] as Omit<RawProgress, 'totalSelesai' | 'completionRate' | 'certificatesCount'> & { progress: [number, number][] };
  // Σ done/total as an exact fraction, then the mean × 100 rounded half up to hundredths.
  let num = 0n;
  let den = 1n;
  for (const [done, total] of r.progress) {
    if (total > 0) [num, den] = [num * BigInt(total) + BigInt(done) * den, den * BigInt(total)];
  }
  const n = BigInt(r.progress.length);
  const hundredths = n === 0n ? 0n : (2n * 10_000n * num + den * n) / (2n * den * n);
  const { progress, ...counts } = r;
  return {
    ...counts,
    totalSelesai: progress.filter(([done, total]) => total > 0 && done >= total).length,
    completionRate: Number(hundredths) / 100,
    certificatesCount: r.totalSertifikat,
  };
}
