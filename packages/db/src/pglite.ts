import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { fromPglite } from 'pg-boss';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { Db, DbHandle } from './client.js';
import { lockDataDir } from './data-dir-lock.js';
import * as schema from './schema/index.js';

// The embedded backend of createDb: PGlite in this process, in a data directory or in memory.

export function createPglite(dataDir: string | undefined, snapshot: Blob | undefined): DbHandle {
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
    jobsConnection() {
      // The client's own methods, taken now: what wraps `client.query` later (the tests' statement
      // counter) sees the app's statements, not the queue's polls.
      const own = { query: client.query.bind(client), exec: client.exec.bind(client), listen: client.listen.bind(client) };
      return { db: fromPglite(own), backend: 'pglite' };
    },
  };
}
