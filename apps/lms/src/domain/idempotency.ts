import { createHash } from 'node:crypto';
import { affectedRows, type Db, idempotencyKeys, inTransaction, sqlStateOf } from '@lms/db';
import { and, eq, isNull, lte, or, sql } from 'drizzle-orm';
import { AppError, ConflictError, errorBody, UnprocessableError } from '../errors.js';
import { PURGE_BATCH_ROWS } from './purge.js';

/** How long a key and its first response are remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * How long one statement of a creation may wait for a lock (`lock_timeout`): a retry waiting for
 * the first request with its key, or an insert waiting for a table someone locked. Under the
 * gateway's UPSTREAM_TIMEOUT_MS (10 s by default), so the partner gets our answer, not a 504.
 */
export const CREATION_LOCK_WAIT_MS = 5_000;
/** Retry-After (seconds) of the 409 sent when the first request with a key still holds it. */
export const STILL_RUNNING_RETRY_AFTER_SECONDS = 2;
/**
 * A committed claim without an answer is never written by this code (the claim, the work and the
 * answer commit together); one may be left by an earlier version that claimed in a statement of
 * its own and crashed. It is taken over once it is this old.
 */
const ABANDONED_CLAIM_MS = 30_000;
/** Answers about the request itself are kept and replayed; any other frees the key. */
const isKept = (status: number) => status < 400 || status === 400 || status === 422;

export interface StoredResponse {
  statusCode: number;
  body: unknown;
}

/** The work of one creation, run inside its transaction (`tx`). Domain 4xx errors may be thrown. */
export type CreationWork = (tx: Db) => Promise<StoredResponse>;

/** SHA-256 of a JSON value with object keys sorted, so formatting and key order do not matter. */
export function hashRequestBody(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Runs `work` in one transaction whose every lock wait is bounded (CREATION_LOCK_WAIT_MS). A
 * domain error under 500 thrown by the work becomes the answer and the transaction commits (the
 * token's jti, spent by the work, stays spent: a token is used once whatever the answer); any
 * other error rolls everything back, and so does a crash: nothing of the request is left.
 */
export async function runInCreationTransaction(db: Db, work: CreationWork): Promise<StoredResponse> {
  return inCreationTransaction(db, (tx) => answerOf(tx, work));
}

/**
 * Runs `work` at most once per (issuer, key) within 24 hours and replays its answer to every
 * retry with the same body; the same key with another body is refused with 422.
 *
 * Crash-safe by construction: the claim of the key, everything the work writes (the jti, the
 * course) and the recorded answer are one transaction. A crash before its COMMIT leaves nothing
 * (PostgreSQL rolls back when the connection dies; PGlite recovers uncommitted work away), so a
 * retry does the work; a crash after it leaves the answer, so a retry replays it. A concurrent
 * retry blocks on the claim row (the insert's conflict on (issuer, key)) until the first commits,
 * then replays, or rolls back, then does the work itself; after CREATION_LOCK_WAIT_MS it gets
 * 409 with Retry-After instead.
 *
 * Only answers about the request itself are kept (success, 400, 422). Any other (a replayed
 * token, a 403, a 409) deletes the claim in the same transaction, so the partner may retry with
 * the key once the cause is fixed; an error of 500 or more rolls back.
 *
 * `beforeReplay` runs in the transaction before a kept answer is given again (the route spends the
 * retry's own token there: a replay needs a fresh token like any request); what it throws is the
 * answer, and nothing is kept of it.
 */
export async function runIdempotent(
  db: Db,
  args: { issuer: string; key: string; requestHash: string; now: Date; beforeReplay?: (tx: Db) => Promise<void> },
  work: CreationWork,
): Promise<StoredResponse & { replayed: boolean }> {
  const { issuer, key } = args;
  const thisKey = and(eq(idempotencyKeys.issuer, issuer), eq(idempotencyKeys.key, key));
  return inCreationTransaction(db, async (tx) => {
    if (!(await claim(tx, args))) {
      await args.beforeReplay?.(tx);
      // Someone's committed answer (we now hold its row lock, so it cannot change under us).
      const [row] = await tx.select().from(idempotencyKeys).where(thisKey).limit(1);
      if (row && row.requestHash !== args.requestHash) {
        throw new UnprocessableError('Idempotency-Key was already used with a different request body');
      }
      if (!row || row.statusCode === null) throw stillRunning();
      return { statusCode: row.statusCode, body: row.responseBody, replayed: true };
    }
    const answer = await answerOf(tx, work);
    if (isKept(answer.statusCode)) {
      await tx.update(idempotencyKeys).set({ statusCode: answer.statusCode, responseBody: answer.body }).where(thisKey);
    } else {
      await tx.delete(idempotencyKeys).where(thisKey);
    }
    return { ...answer, replayed: false };
  });
}

/**
 * Claims the key for this transaction: a new row, or the row of an expired key or of an
 * abandoned claim taken over. False when a committed answer holds the key. Waits (bounded) while
 * another transaction holds it.
 */
async function claim(tx: Db, args: { issuer: string; key: string; requestHash: string; now: Date }): Promise<boolean> {
  const { issuer, key, requestHash, now } = args;
  const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
  const abandonedBefore = new Date(now.getTime() - ABANDONED_CLAIM_MS);
  try {
    const claimed = await tx
      .insert(idempotencyKeys)
      .values({ issuer, key, requestHash, createdAt: now })
      .onConflictDoUpdate({
        target: [idempotencyKeys.issuer, idempotencyKeys.key],
        set: { requestHash, statusCode: null, responseBody: null, createdAt: now },
        setWhere: or(
          lte(idempotencyKeys.createdAt, expiredBefore),
          and(isNull(idempotencyKeys.statusCode), lte(idempotencyKeys.createdAt, abandonedBefore)),
        ),
      })
      .returning({ issuer: idempotencyKeys.issuer });
    return claimed.length > 0;
  } catch (err) {
    if (sqlStateOf(err) === LOCK_NOT_AVAILABLE) throw stillRunning();
    throw err;
  }
}

function stillRunning(): ConflictError {
  return new ConflictError('A request with this Idempotency-Key is still being processed; retry later', STILL_RUNNING_RETRY_AFTER_SECONDS);
}

async function inCreationTransaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return inTransaction(db, async (tx) => {
    // SET LOCAL: for this transaction only, whatever the pool's connection is used for next.
    await tx.execute(sql`select set_config('lock_timeout', ${`${CREATION_LOCK_WAIT_MS}ms`}, true)`);
    return fn(tx);
  });
}

/** The work's answer, or the answer of the domain error it threw (under 500). */
async function answerOf(tx: Db, work: CreationWork): Promise<StoredResponse> {
  try {
    return await work(tx);
  } catch (err) {
    if (err instanceof AppError && err.statusCode < 500) {
      return { statusCode: err.statusCode, body: errorBody(err) };
    }
    throw err;
  }
}

const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Forgets at most `limit` keys older than the window (run by the housekeeping plugin, a batch at a
 * time, as purgeUsedTokenIds). Returns how many.
 */
export async function purgeExpiredIdempotencyKeys(db: Db, now: Date, limit = PURGE_BATCH_ROWS): Promise<number> {
  const expired = db
    .select({ issuer: idempotencyKeys.issuer, key: idempotencyKeys.key })
    .from(idempotencyKeys)
    .where(lte(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)))
    .limit(limit);
  return affectedRows(await db.delete(idempotencyKeys).where(sql`(${idempotencyKeys.issuer}, ${idempotencyKeys.key}) in ${expired}`));
}
