import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Db } from './client.js';
import { isTransactionConflict } from './errors.js';

/** How many times a transaction is tried before its conflict is handed to the caller. */
export const TRANSACTION_ATTEMPTS = 3;

/**
 * `db.transaction(fn)`, tried again from the start when PostgreSQL rolled it back because of a
 * concurrent transaction (a deadlock, a serialization failure: isTransactionConflict), up to
 * TRANSACTION_ATTEMPTS times with a short random pause between tries, so that the two sides of a
 * deadlock do not meet again at once. `fn` must do nothing but database work on `tx` (it may run
 * more than once); a conflict after the last try is thrown as it came (the API answers it with a
 * 503 and `Retry-After`).
 *
 * Inside a transaction (`db` is itself a transaction) it only opens a savepoint: a conflict aborts
 * the whole outer transaction, so only the outermost one can be tried again.
 */
export async function inTransaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  if (isTransaction(db)) return db.transaction(fn);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction(fn);
    } catch (err) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isTransactionConflict(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}

/** Whether `db` is a transaction's handle (a plain boolean: narrowing `db` would lose its schema type). */
function isTransaction(db: Db): boolean {
  return db instanceof PgTransaction;
}
