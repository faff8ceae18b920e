import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { lockDataDir } from './data-dir-lock.js';
import pg from 'pg';
import * as schema from './schema/index.js';

export interface DbConfig {
  /** PostgreSQL connection string. When set, a node-postgres pool is used. */
  databaseUrl?: string | undefined;
  /**
   * Embedded PGlite data directory, used when databaseUrl is unset. Unset too: in memory. One
   * process at a time holds it (a lock file in it, see data-dir-lock.ts); createDb throws
   * DataDirLockedError when another live process does.
   */
  dataDir?: string | undefined;
  /** Pool size for PostgreSQL. */
  poolMax?: number | undefined;
  /** PGlite only: start from this data-directory tarball (from `dumpDataDir()`), e.g. a migrated snapshot. */
  pgliteSnapshot?: Blob | undefined;
}

/** What `db.execute()` resolves to on both drivers: at least the rows. */
export interface QueryResultHKT extends PgQueryResultHKT {
  type: QueryRows<this['row']>;
}
type QueryRows<Row> = { rows: (Row extends Record<string, unknown> ? Row : Record<string, unknown>)[] };

/** The Drizzle database the rest of the code uses; it does not care which driver is behind it. */
export type Db = PgDatabase<QueryResultHKT, typeof schema>;

export interface DbHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Runs fn while holding a database-wide lock (PostgreSQL advisory lock; PGlite has one connection). */
  withExclusiveLock<T>(lockId: number, fn: () => Promise<T>): Promise<T>;
  /** PGlite only: the whole data directory as an uncompressed tarball (a snapshot to start others from). */
  dumpDataDir?(): Promise<Blob>;
}

export function createDb(config: DbConfig): DbHandle {
  if (config.databaseUrl) return createPostgres(config.databaseUrl, config.poolMax ?? 10);
  return createPglite(config.dataDir, config.pgliteSnapshot);
}

function createPostgres(url: string, poolMax: number): DbHandle {
  const pool = new pg.Pool({ connectionString: url, max: poolMax, connectionTimeoutMillis: 5_000 });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = drizzlePg(pool, { schema, casing: 'snake_case' }) as unknown as Db;
  let closed = false;
  return {
    db,
    kind: 'postgres',
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
    async withExclusiveLock(lockId, fn) {
      const client = await pool.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [lockId]);
        try {
          return await fn();
        } finally {
          await client.query('select pg_advisory_unlock($1)', [lockId]);
        }
      } finally {
        client.release();
      }
    },
  };
}

function createPglite(dataDir: string | undefined, snapshot: Blob | undefined): DbHandle {
  const onDisk = dataDir !== undefined && !dataDir.includes('://');
  // PGlite creates the data directory itself but not its parents (.data/pglite on a fresh clone).
  if (onDisk) mkdirSync(dirname(resolve(dataDir)), { recursive: true });
  // One writer per directory: PGlite keeps its own copy of the database in memory and writes it
  // back, so a second process's writes there would be lost. Throws DataDirLockedError.
  const lock = onDisk ? lockDataDir(dataDir) : null;
  let client: PGlite;
  try {
    client = new PGlite(dataDir ?? 'memory://', { extensions: { pg_trgm }, ...(snapshot ? { loadDataDir: snapshot } : {}) });
  } catch (err) {
    lock?.release();
    throw err;
  }
  const db = drizzlePglite(client, { schema, casing: 'snake_case' }) as unknown as Db;
  let closed = false;
  return {
    db,
    kind: 'pglite',
    async ping() {
      await db.execute(sql`select 1`);
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await client.close();
      } finally {
        lock?.release();
      }
    },
    async withExclusiveLock(_lockId, fn) {
      return fn();
    },
    async dumpDataDir() {
      return client.dumpDataDir('none');
    },
  };
}
