import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Db, DbConfig, DbHandle } from './client.js';
import { GENERIC_PLAN_OPTIONS, poolSizes, routedByName } from './generic-plans.js';
import * as schema from './schema/index.js';
import { Availability, countingPool, type DbErrorCounts, observedClient } from './telemetry.js';

// The PostgreSQL backend of createDb: a node-postgres pool (split for generic plans), with the
// timeouts that keep a request from waiting on a database that stopped answering.

/** How much longer than statement_timeout the client waits before it gives a statement up. */
const CLIENT_TIMEOUT_MARGIN_MS = 1_000;

/** The job queue's own pool (pg-boss's), beside ours. */
const JOBS_POOL_MAX = 3;

export function createPostgres(url: string, config: DbConfig): DbHandle {
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
    jobsConnection() {
      // Three connections: a worker's fetch, a send outside a transaction and the maintenance.
      return { connectionString: url, max: JOBS_POOL_MAX, connectionTimeoutMillis: connectionOptions.connectionTimeoutMillis ?? 5_000 };
    },
  };
}

function sum(pools: pg.Pool[], count: (pool: pg.Pool) => number): number {
  return pools.reduce((total, p) => total + count(p), 0);
}
