import { createHash } from 'node:crypto';
import { type Db, idempotencyKeys } from '@lms/db';
import { and, eq, isNotNull, lte, sql } from 'drizzle-orm';
import { AppError, UnprocessableError } from '../errors.js';

/** How long a key and its first response are remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const WAIT_FOR_FIRST_MS = 15_000;
const POLL_MS = 25;
const KEPT_STATUSES = (status: number) => status < 400 || status === 400 || status === 422;

export interface StoredResponse {
  statusCode: number;
  body: unknown;
}

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
 * Runs `work` at most once per (issuer, key) within 24 hours and replays its response to every
 * retry with the same body. The first caller claims the key with an atomic insert; concurrent
 * retries wait for its response. The same key with another body is refused with 422. Only
 * answers about the request itself are kept (success, 400, 422); any other (a refused token, a
 * conflict, a 5xx) frees the key so the client may retry with it.
 */
export async function runIdempotent(
  db: Db,
  args: { issuer: string; key: string; requestHash: string; now: Date },
  work: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  const { issuer, key, requestHash, now } = args;
  const expiredBefore = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);

  // Claim the key: a new row, or take over one older than the window.
  const claimed = await db
    .insert(idempotencyKeys)
    .values({ issuer, key, requestHash, createdAt: now })
    .onConflictDoUpdate({
      target: [idempotencyKeys.issuer, idempotencyKeys.key],
      set: { requestHash, statusCode: null, responseBody: null, createdAt: now },
      setWhere: lte(idempotencyKeys.createdAt, expiredBefore),
    })
    .returning({ issuer: idempotencyKeys.issuer });

  if (claimed.length === 0) return { ...(await waitForFirst(db, args)), replayed: true };

  let result: StoredResponse;
  try {
    result = await work();
  } catch (err) {
    if (err instanceof AppError && err.statusCode < 500) {
      result = { statusCode: err.statusCode, body: { success: false, error: err.message } };
    } else {
      await release(db, issuer, key);
      throw err;
    }
  }
  if (!KEPT_STATUSES(result.statusCode)) {
    await release(db, issuer, key);
  } else {
    await db
      .update(idempotencyKeys)
      .set({ statusCode: result.statusCode, responseBody: result.body })
      .where(and(eq(idempotencyKeys.issuer, issuer), eq(idempotencyKeys.key, key)));
  }
  return { ...result, replayed: false };
}

async function waitForFirst(
  db: Db,
  args: { issuer: string; key: string; requestHash: string },
): Promise<StoredResponse> {
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const [row] = await db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.issuer, args.issuer), eq(idempotencyKeys.key, args.key)))
      .limit(1);
    if (row && row.requestHash !== args.requestHash) {
      throw new UnprocessableError('Idempotency-Key was already used with a different request body');
    }
    if (row && row.statusCode !== null) return { statusCode: row.statusCode, body: row.responseBody };
    if (!row) throw new AppError(409, 'The first request with this Idempotency-Key failed; retry it');
    if (Date.now() > deadline) {
      throw new AppError(409, 'A request with this Idempotency-Key is still being processed; retry later');
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function release(db: Db, issuer: string, key: string): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.issuer, issuer), eq(idempotencyKeys.key, key), sql`${idempotencyKeys.statusCode} is null`));
}

/** Forget records older than the window (called opportunistically). */
export async function purgeExpiredIdempotencyKeys(db: Db, now: Date): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(and(lte(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)), isNotNull(idempotencyKeys.statusCode)));
}
