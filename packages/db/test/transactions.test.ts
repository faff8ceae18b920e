import { sql } from 'drizzle-orm';
import t from 'tap';
import { createDb, type Db } from '../src/client.js';
import { isTransactionConflict, sqlStateOf } from '../src/errors.js';
import { createTestDb } from '../src/testing.js';
import { inTransaction, TRANSACTION_ATTEMPTS } from '../src/transactions.js';
import { failure, postgresUrl } from './helpers.js';

// inTransaction on the machine's PostgreSQL whatever TEST_DATABASE_URL says: a deadlock takes two
// connections, which the embedded database does not have.
const base = await createTestDb(postgresUrl);
t.teardown(() => base.destroy());
const handle = createDb({ databaseUrl: base.url, poolMax: 4 });
t.teardown(() => handle.close());
const { db } = handle;
await db.execute(sql`create table counters (id int primary key, n int not null default 0)`);
await db.execute(sql`insert into counters (id) values (1), (2)`);

const conflicts = () => handle.stats().errors?.conflict ?? 0;

/** A statement the server fails with the given SQLSTATE (PostgreSQL's own error, as a deadlock's). */
const failWith = (state: string) => sql.raw(`do $$ begin raise exception 'failing on purpose' using errcode = '${state}'; end $$`);

t.test('a real deadlock: PostgreSQL aborts one side, which is tried again, and both commit', async (t) => {
  const before = conflicts();
  let calls = 0;
  // Each side locks its first row, waits until the other holds its own, then asks for the
  // other's: a cycle, which PostgreSQL breaks by aborting one side after deadlock_timeout (1 s).
  let held = 0;
  let bothHold!: () => void;
  const barrier = new Promise<void>((resolve) => (bothHold = resolve));
  const side = (first: number, second: number) =>
    inTransaction(db, async (tx: Db) => {
      calls += 1;
      await tx.execute(sql`update counters set n = n + 1 where id = ${first}`);
      if (calls <= 2) {
        held += 1;
        if (held === 2) bothHold();
        await barrier;
      }
      await tx.execute(sql`update counters set n = n + 1 where id = ${second}`);
      return first;
    });
  const results = await Promise.all([side(1, 2), side(2, 1)]);
  t.same(results, [1, 2], 'both sides answered');
  t.equal(calls, 3, 'one side ran twice: its first try was the deadlock victim');
  t.equal(conflicts() - before, 1, 'the driver counted one conflict');
  const { rows } = await db.execute<{ id: number; n: number }>(sql`select id, n from counters order by id`);
  t.same(
    rows,
    [
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ],
    'each side counted once: the aborted try left nothing',
  );
});

for (const state of ['40P01', '40001']) {
  t.test(`SQLSTATE ${state} every time: tried ${TRANSACTION_ATTEMPTS} times, then the error is thrown`, async (t) => {
    const before = conflicts();
    let calls = 0;
    const err = await failure(() =>
      inTransaction(db, async (tx: Db) => {
        calls += 1;
        await tx.execute(sql`update counters set n = n + 100 where id = 1`);
        await tx.execute(failWith(state));
      }),
    );
    t.equal(calls, TRANSACTION_ATTEMPTS);
    t.equal(sqlStateOf(err), state, 'the last try’s error, as the server gave it');
    t.ok(isTransactionConflict(err));
    t.equal(conflicts() - before, TRANSACTION_ATTEMPTS);
    const { rows } = await db.execute<{ n: number }>(sql`select n from counters where id = 1`);
    t.equal(rows[0]?.n, 2, 'nothing of the failed tries was kept');
  });
}

t.test('any other error is thrown at once, not tried again', async (t) => {
  let calls = 0;
  const err = await failure(() =>
    inTransaction(db, async (tx: Db) => {
      calls += 1;
      await tx.execute(failWith('23505'));
    }),
  );
  t.equal(calls, 1);
  t.equal(sqlStateOf(err), '23505');
  t.notOk(isTransactionConflict(err));
  let thrown = 0;
  await failure(() =>
    inTransaction(db, async () => {
      thrown += 1;
      throw new Error('not the database');
    }),
  );
  t.equal(thrown, 1, 'an error of the callback itself: once');
});

t.test('nested: the inner one is a savepoint, the outermost transaction is the one tried again', async (t) => {
  let outer = 0;
  let inner = 0;
  const err = await failure(() =>
    inTransaction(db, async (tx: Db) => {
      outer += 1;
      await inTransaction(tx, async (savepoint: Db) => {
        inner += 1;
        await savepoint.execute(failWith('40P01'));
      });
    }),
  );
  t.equal(sqlStateOf(err), '40P01', 'a conflict, not "current transaction is aborted" from retrying inside it');
  t.equal(outer, TRANSACTION_ATTEMPTS, 'the outer transaction was tried again');
  t.equal(inner, TRANSACTION_ATTEMPTS, 'the inner one once per outer try');
});
