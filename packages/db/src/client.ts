import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { ConstructorOptions } from 'pg-boss';
import { createPglite } from './pglite.js';
import { createPostgres } from './postgres.js';
import type * as schema from './schema/index.js';
import type { AvailabilityListener, DbErrorCounts } from './telemetry.js';

// What the rest of the code opens a database with: the handle's shape and createDb, which picks
// the backend. The two backends are postgres.ts (a node-postgres pool) and pglite.ts (the embedded
// database); telemetry.ts is what the PostgreSQL pool's connections report (availability, errors).

export type { AvailabilityListener, DbErrorCounts } from './telemetry.js';

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
  /**
   * PostgreSQL only: how long one database call may wait for a connection, a new one (TCP and
   * start-up) or a free one of the pool (pg-pool's connectionTimeoutMillis bounds both). Default 5 s.
   */
  connectTimeoutMs?: number | undefined;
  /**
   * PostgreSQL only: the server's `statement_timeout` (and `idle_in_transaction_session_timeout`)
   * for the pool's sessions; the client gives up on a statement 1 s later (`query_timeout`), since
   * a stalled server cannot enforce its own timeout. Unset or 0: none (long maintenance work).
   */
  statementTimeoutMs?: number | undefined;
  /** PGlite only: start from this data-directory tarball (from `dumpDataDir()`), e.g. a migrated snapshot. */
  pgliteSnapshot?: Blob | undefined;
}

/** What `db.execute()` resolves to on both drivers: at least the rows. */
export interface QueryResultHKT extends PgQueryResultHKT {
  type: QueryRows<this['row']>;
}
type QueryRows<Row> = { rows: (Row extends Record<string, unknown> ? Row : Record<string, unknown>)[] };

/**
 * How many rows a statement without RETURNING changed: node-postgres reports `rowCount`, PGlite
 * `affectedRows`. Lets a bulk delete say how much it did without sending the rows back.
 */
export function affectedRows(result: unknown): number {
  const counts = result as { rowCount?: number | null; affectedRows?: number } | null;
  return counts?.rowCount ?? counts?.affectedRows ?? 0;
}

/** The Drizzle database the rest of the code uses; it does not care which driver is behind it. */
export type Db = PgDatabase<QueryResultHKT, typeof schema>;

/** What the handle sees of the database, read when metrics are scraped. */
export interface DbStats {
  /** Whether the database answers, as the last connection or statement showed (see onAvailabilityChange). */
  available: boolean;
  /** How many times it stopped answering since the handle was opened. */
  outages: number;
  /** PostgreSQL: the pool's connections (open, of them idle), callers waiting for one, its size. Null on PGlite. */
  pool: { total: number; idle: number; waiting: number; max: number } | null;
  /** PostgreSQL: failures counted since the handle was opened, by kind. Null on PGlite (no network, no pool). */
  errors: DbErrorCounts | null;
}

export interface DbHandle {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** The pool and availability figures of this handle (cheap: counters kept as calls happen). */
  stats(): DbStats;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Runs fn while holding a database-wide lock (PostgreSQL advisory lock; PGlite has one connection). */
  withExclusiveLock<T>(lockId: number, fn: () => Promise<T>): Promise<T>;
  /**
   * Runs fn only if the lock is free right now, holding it meanwhile; otherwise does nothing
   * (`{ acquired: false }`). For work one process at a time is enough for (housekeeping): the
   * others skip their turn instead of queueing behind it. PostgreSQL: a session advisory lock on
   * a connection of its own, released when fn ends or when that connection dies with the process.
   * PGlite: one process holds the database, so a lock of this handle.
   */
  tryExclusiveLock<T>(lockId: number, fn: () => Promise<T>): Promise<{ acquired: true; result: T } | { acquired: false }>;
  /**
   * Calls the listener when the database stops answering and when it answers again, once per
   * change (PostgreSQL; the embedded database has no network to lose). Returns the unsubscribe.
   */
  onAvailabilityChange(listener: AvailabilityListener): () => void;
  /** PGlite only: the whole data directory as an uncompressed tarball (a snapshot to start others from). */
  dumpDataDir?(): Promise<Blob>;
  /**
   * How the job queue (pg-boss) reaches this database. PGlite: its one client, through pg-boss's
   * PGlite adapter (a second client of the same data directory would not see our writes).
   * PostgreSQL: the connection string, so pg-boss keeps a small pool of its own, without our
   * statement_timeout (its maintenance and long polls are not requests).
   */
  jobsConnection(): JobsConnection;
}

/** What `new PgBoss()` is given besides its schema and timings (see apps/lms/src/jobs/). */
export type JobsConnection = Pick<ConstructorOptions, 'db' | 'backend' | 'connectionString' | 'max' | 'connectionTimeoutMillis'>;

/** The PostgreSQL schema pg-boss's tables live in; created by migrate(). */
export const JOBS_SCHEMA = 'pgboss';

export function createDb(config: DbConfig): DbHandle {
  if (config.databaseUrl) return createPostgres(config.databaseUrl, config);
  return createPglite(config.dataDir, config.pgliteSnapshot);
}
