import type { Db } from '@lms/db';
import { type SQL, sql } from 'drizzle-orm';

/**
 * A transaction of the test's own, on a connection of its own, that runs some statements (takes
 * locks, inserts rows) and stays open until the test ends it: another instance in the middle of
 * its work, or an operator holding a table lock. PostgreSQL only (PGlite has one connection).
 */
export async function holdTransaction(
  db: Db,
  statements: SQL[],
): Promise<{ run(statement: SQL): Promise<unknown[]>; commit(): Promise<void>; rollback(): Promise<void> }> {
  let opened!: () => void;
  let failed!: (err: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    opened = resolve;
    failed = reject;
  });
  let end!: (commit: boolean) => void;
  const decided = new Promise<boolean>((resolve) => (end = resolve));
  let open!: Db;
  const done = db
    .transaction(async (tx) => {
      open = tx as unknown as Db;
      for (const statement of statements) await tx.execute(statement);
      opened();
      if (!(await decided)) tx.rollback();
    })
    .catch((err: unknown) => {
      // tx.rollback() ends the transaction by throwing; anything else is a real failure.
      if ((err as Error)?.name !== 'TransactionRollbackError') failed(err);
    });
  await ready;
  return {
    /** One more statement in the held transaction (it may wait for a lock): its rows. */
    async run(statement: SQL) {
      return (await open.execute(statement)).rows;
    },
    async commit() {
      end(true);
      await done;
    },
    async rollback() {
      end(false);
      await done;
    },
  };
}

/**
 * Resolves once `backends` backends of this database (default one) wait for a lock while running
 * a statement on `table`.
 */
export async function waitForLockWait(db: Db, table: string, backends = 1): Promise<void> {
  for (let i = 0; i < 800; i += 1) {
    const { rows } = await db.execute<{ n: number }>(
      sql`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query ilike ${`%${table}%`}`,
    );
    if (Number(rows[0]?.n) >= backends) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`fewer than ${backends} backends started waiting for a lock on ${table}`);
}

/**
 * Makes PostgreSQL abort the first try of a transaction under way, and lets its second try pass.
 * The held transaction (holdTransaction, with its own deadlock_timeout set past the test) holds a
 * row the caller's transaction needs; once that transaction waits for it (`firstTryWaitsOn`, a
 * fragment of its statement), `take` asks for a row the first try holds, closing the cycle.
 * PostgreSQL aborts the side that waited first, the first try, so `take` returns (its rows, which
 * the test asserts). Then, once the second try queues behind the held transaction
 * (`secondTryWaitsOn`), it commits. On any failure it rolls back, so a failing test never leaves
 * the transaction under way waiting.
 */
export async function abortFirstTryByDeadlock(
  db: Db,
  holder: Awaited<ReturnType<typeof holdTransaction>>,
  cycle: { firstTryWaitsOn: string; take: SQL; secondTryWaitsOn: string },
): Promise<unknown[]> {
  try {
    await waitForLockWait(db, cycle.firstTryWaitsOn);
    const taken = await holder.run(cycle.take);
    await waitForLockWait(db, cycle.secondTryWaitsOn);
    await holder.commit();
    return taken;
  } finally {
    // A no-op once committed.
    await holder.rollback();
  }
}
