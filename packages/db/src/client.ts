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
import { isDatabaseUnavailable, isTransactionConflict } from './errors.js';
import { GENERIC_PLAN_OPTIONS, poolSizes, routedByName } from './generic-plans.js';
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

/** The Drizzle database the rest of the code uses; it does not care which driver is behind it. */
export type Db = PgDatabase<QueryResultHKT, typeof schema>;

/**
 * How many rows a statement without RETURNING changed: node-postgres reports `rowCount`, PGlite
 * `affectedRows`. Lets a bulk delete say how much it did without sending the rows back.
 */
export function affectedRows(result: unknown): number {
  const counts = result as { rowCount?: number | null; affectedRows?: number } | null;
  return counts?.rowCount ?? counts?.affectedRows ?? 0;
}

/** The database went away (`available: false`, with the error that showed it) or came back. */
export type AvailabilityListener = (change: { available: boolean; cause?: unknown }) => void;

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

export interface DbErrorCounts {
  /** A new connection could not be opened (refused, timed out, authentication). */
  connect: number;
  /** A call waited connectTimeoutMs for a free connection of a full pool and gave up. */
  poolTimeout: number;
  /** A statement failed for lack of the server or of time (isDatabaseUnavailable: cut, stalled, statement_timeout). */
  unavailable: number;
  /** A statement the server refused (a constraint, a bad value): some are expected, e.g. a race on a unique key. */
  statement: number;
  /** A transaction rolled back by the server for a concurrent one (isTransactionConflict: deadlock, serialization). */
  conflict: number;
  /** A pooled connection broke while idle (a server restart, a cut); the pool replaces it. */
  idleConnection: number;
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
}

export function createDb(config: DbConfig): DbHandle {
  if (config.databaseUrl) return createPostgres(config.databaseUrl, config);
  return createPglite(config.dataDir, config.pgliteSnapshot);
}

/** How much longer than statement_timeout the client waits before it gives a statement up. */
const CLIENT_TIMEOUT_MARGIN_MS = 1_000;

function createPostgres(url: string, config: DbConfig): DbHandle {
  const statementTimeoutMs = config.statementTimeoutMs ?? 0;
  const connectionOptions: pg.ClientConfig = {
    connectionString: url,
    connectionTimeoutMillis: config.connectTimeoutMs ?? 5_000,
    // Idle pooled connections to a host that vanished (a dropped NAT entry, a dead VM) are noticed.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  const availability = new Availability();
  const errors: DbErrorCounts = { connect: 0, poolTimeout: 0, unavailable: 0, statement: 0, conflict: 0, idleConnection: 0 };
  const poolMax = config.poolMax ?? 10;
  const sizes = poolSizes(poolMax);
  const poolOptions: pg.PoolConfig = {
    ...connectionOptions,
    ...(statementTimeoutMs > 0
      ? {
          statement_timeout: statementTimeoutMs,
          // Our transactions never wait between statements: one idle that long was abandoned
          // (its process stalled or cut off) and only holds locks.
          idle_in_transaction_session_timeout: statementTimeoutMs,
          query_timeout: statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
        }
      : {}),
    Client: observedClient(availability, errors),
  };
  const CountingPool = countingPool(errors);
  const genericPool = sizes.generic > 0 ? new CountingPool({ ...poolOptions, max: sizes.generic, options: GENERIC_PLAN_OPTIONS }) : null;
  const pool = new (genericPool ? routedByName(CountingPool, genericPool) : CountingPool)({ ...poolOptions, max: sizes.main });
  const pools = genericPool ? [pool, genericPool] : [pool];
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  for (const p of pools) {
    p.on('error', () => {
      errors.idleConnection += 1;
    });
  }
  const db = drizzlePg(pool, { schema, casing: 'snake_case' }) as unknown as Db;
  let closed = false;
  return {
    db,
    kind: 'postgres',
    stats() {
      return {
        available: availability.available,
        outages: availability.outages,
        pool: {
          total: sum(pools, (p) => p.totalCount),
          idle: sum(pools, (p) => p.idleCount),
          waiting: sum(pools, (p) => p.waitingCount),
          max: poolMax,
        },
        errors: { ...errors },
      };
    },
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      availability.close();
      await Promise.all(pools.map((p) => p.end()));
    },
    async tryExclusiveLock(lockId, fn) {
      const client = new pg.Client(connectionOptions);
      client.on('error', () => {});
      await client.connect();
      try {
        const locked = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [lockId]);
        if (!locked.rows[0]?.locked) return { acquired: false };
        const result = await fn();
        // The work is done: an unlock that cannot be sent changes nothing (the end of the session frees the lock).
        await client.query('select pg_advisory_unlock($1)', [lockId]).catch(() => {});
        return { acquired: true, result };
      } finally {
        // Ending the session releases the lock too, if fn threw or the unlock could not be sent.
        await client.end().catch(() => {});
      }
    },
    async withExclusiveLock(lockId, fn) {
      // A connection of its own, without the statement timeouts: waiting for another process's
      // migration or seed is not a request. The work itself runs on the pool.
      const client = new pg.Client(connectionOptions);
      client.on('error', () => {});
      await client.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [lockId]);
        // Released with the session if the unlock cannot be sent.
        const result = await fn();
        await client.query('select pg_advisory_unlock($1)', [lockId]);
        return result;
      } finally {
        await client.end().catch(() => {});
      }
    },
    onAvailabilityChange(listener) {
      return availability.subscribe(listener);
    },
  };
}

/**
 * Whether the database answers, from what the pool's connections see: a connection or statement
 * that fails for lack of the server or of time (isDatabaseUnavailable) says no; a successful one,
 * or another error the server itself sent, says yes. The newest attempt decides: one that started before the
 * attempt behind the current state finishes too late to change it, so the calls in flight when an
 * outage starts or ends do not make the state flap.
 */
class Availability {
  available = true;
  /** Changes from available to unavailable. */
  outages = 0;
  private started = 0;
  private decidedBy = 0;
  private closed = false;
  private readonly listeners = new Set<AvailabilityListener>();

  /** Numbers an attempt (a connection or a statement) as it starts. */
  start(): number {
    this.started += 1;
    return this.started;
  }

  settle(attempt: number, err: unknown): void {
    if (this.closed || attempt < this.decidedBy) return;
    let available: boolean;
    if (!err) available = true;
    else if (isDatabaseUnavailable(err)) available = false;
    else if (isServerError(err)) available = true;
    else return;
    this.decidedBy = attempt;
    if (available === this.available) return;
    this.available = available;
    if (!available) this.outages += 1;
    const change = available ? { available } : { available, cause: err };
    for (const listener of this.listeners) listener(change);
  }

  subscribe(listener: AvailabilityListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** After close, the errors of calls still in flight say nothing about the server. */
  close(): void {
    this.closed = true;
  }
}

/** An error the server sent (it has a SQLSTATE), as opposed to one of the driver or the socket. */
function isServerError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

type Callback = (err: Error | null | undefined, ...rest: unknown[]) => void;

/** pg-pool's error when no connection of a full pool became free within connectionTimeoutMillis. */
const POOL_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect';

/**
 * The pool, counting the calls that gave up waiting for a free connection (pool.query() and the
 * transactions' checkouts both go through connect()). The wait itself is bounded by
 * connectionTimeoutMillis; the count says the pool was too small for the load, or the database too slow.
 */
function countingPool(errors: DbErrorCounts): typeof pg.Pool {
  const countTimeout = (err: unknown) => {
    if (err instanceof Error && err.message === POOL_TIMEOUT_MESSAGE) errors.poolTimeout += 1;
  };
  return class CountingPool extends pg.Pool {
    // biome-ignore lint/suspicious/noExplicitAny: overrides pg's overloaded method (callback or promise): only `any` matches every overload.
    override connect(...args: any[]): any {
      const callback = args[0] as Callback | undefined;
      if (typeof callback === 'function') {
        return (super.connect as (cb: Callback) => void)((err, ...rest) => {
          countTimeout(err);
          callback(err, ...rest);
        });
      }
      return (super.connect as () => Promise<unknown>)().catch((err: unknown) => {
        countTimeout(err);
        throw err;
      });
    }
  };
}

function sum(pools: pg.Pool[], count: (pool: pg.Pool) => number): number {
  return pools.reduce((total, p) => total + count(p), 0);
}

/**
 * The pool's client class: it reports each connection and statement to `availability` (and
 * counts the failures in `errors`), and ends
 * itself when a statement hit `query_timeout`. node-postgres leaves such a client waiting for an
 * answer that may never come (brianc/node-postgres#3399): pool.query() discards it, but a client
 * checked out for a transaction would go back to the pool stuck, and every statement queued on it
 * would time out too. Ended, it is dropped from the pool when released.
 */
function observedClient(availability: Availability, errors: DbErrorCounts): typeof pg.Client {
  return class ObservedClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: overrides pg's overloaded method (callback or promise): only `any` matches every overload.
    override connect(callback?: (err: Error) => void): any {
      const attempt = availability.start();
      const settle = (err: unknown) => {
        if (err) errors.connect += 1;
        availability.settle(attempt, err);
      };
      if (callback) {
        return super.connect((err) => {
          settle(err);
          callback(err);
        });
      }
      return super.connect().then(
        () => settle(null),
        (err: unknown) => {
          settle(err);
          throw err;
        },
      );
    }

    // biome-ignore lint/suspicious/noExplicitAny: overrides pg's overloaded method (callback or promise): only `any` matches every overload.
    override query(...args: any[]): any {
      // Streams and cursors (submittables) are not used here; pass them through untouched.
      if (typeof args[0]?.submit === 'function') return (super.query as (...a: unknown[]) => unknown)(...args);
      const attempt = availability.start();
      const settle = (err: unknown) => {
        if (err instanceof Error && err.message === 'Query read timeout') void this.end().catch(() => {});
        if (err) {
          if (isDatabaseUnavailable(err)) errors.unavailable += 1;
          else if (isTransactionConflict(err)) errors.conflict += 1;
          else errors.statement += 1;
        }
        availability.settle(attempt, err);
      };
      const at = args.findIndex((a) => typeof a === 'function');
      if (at >= 0) {
        const callback = args[at] as Callback;
        args[at] = (err: Error | null | undefined, ...rest: unknown[]) => {
          settle(err);
          callback(err, ...rest);
        };
        return (super.query as (...a: unknown[]) => unknown)(...args);
      }
      const result = (super.query as (...a: unknown[]) => Promise<unknown>)(...args);
      return result.then(
        (value) => {
          settle(null);
          return value;
        },
        (err: unknown) => {
          settle(err);
          throw err;
        },
      );
    }
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
  const heldLocks = new Set<number>();
  return {
    db,
    kind: 'pglite',
    stats() {
      // One in-process connection: nothing to pool, no network to lose.
      return { available: !closed, outages: 0, pool: null, errors: null };
    },
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
    async tryExclusiveLock(lockId, fn) {
      if (heldLocks.has(lockId)) return { acquired: false };
      heldLocks.add(lockId);
      try {
        return { acquired: true, result: await fn() };
      } finally {
        heldLocks.delete(lockId);
      }
    },
    onAvailabilityChange() {
      return () => {};
    },
    async dumpDataDir() {
      return client.dumpDataDir('none');
    },
  };
}
