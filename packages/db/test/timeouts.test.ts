import { createServer } from 'node:net';
import { sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { createDb } from '../src/client.js';
import { isDatabaseUnavailable } from '../src/errors.js';
import { createTestDb } from '../src/testing.js';
import { dbError, failure, postgresUrl } from './helpers.js';

// The PostgreSQL pool's time limits and what counts as "the database is unavailable", on the
// machine's PostgreSQL whatever TEST_DATABASE_URL says (the embedded database has no pool).
const base = await createTestDb(postgresUrl);
t.teardown(() => base.destroy());

/** A handle on the test database with the given limits, closed with the test. */
function bounded(t: Test, statementTimeoutMs: number) {
  const handle = createDb({ databaseUrl: base.url, connectTimeoutMs: 1_000, statementTimeoutMs, poolMax: 3 });
  t.teardown(() => handle.close());
  return handle;
}

t.test('the pool sessions carry statement_timeout and idle_in_transaction_session_timeout', async (t) => {
  const h = bounded(t, 1_500);
  const settings = await h.db.execute<{ statement: string; idle: string }>(
    sql`select current_setting('statement_timeout') as statement, current_setting('idle_in_transaction_session_timeout') as idle`,
  );
  t.same(settings.rows, [{ statement: '1500ms', idle: '1500ms' }]);
  const none = createDb({ databaseUrl: base.url });
  t.teardown(() => none.close());
  const unset = await none.db.execute<{ statement: string }>(sql`select current_setting('statement_timeout') as statement`);
  t.same(unset.rows, [{ statement: '0' }], 'without statementTimeoutMs: the server default (none)');
});

t.test('a statement past statement_timeout fails with 57014, which counts as unavailable', async (t) => {
  const h = bounded(t, 200);
  const err = await failure(() => h.db.execute(sql`select pg_sleep(2)`));
  t.equal(dbError(err).code, '57014');
  t.ok(isDatabaseUnavailable(err));
  t.same((await h.db.execute<{ n: number }>(sql`select 1 as n`)).rows, [{ n: 1 }], 'the pool goes on');
});

t.test('the exclusive lock is waited for beyond the statement timeout (migrations, seeds)', async (t) => {
  const h = bounded(t, 200);
  const holder = bounded(t, 0);
  const lockId = 990_001;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const first = holder.withExclusiveLock(lockId, async () => {
    holding();
    await released;
  });
  await held;
  let ran = false;
  const second = h.withExclusiveLock(lockId, async () => {
    ran = true;
  });
  // Longer than the statement timeout (200 ms) and the client's (1.2 s).
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  t.equal(ran, false, 'still waiting for the lock');
  release();
  await first;
  await second;
  t.equal(ran, true, 'and it ran once the lock was free, without a timeout');
});

t.test('tryExclusiveLock: taken by one process, the others skip at once; freed when fn ends, throws, or its process dies', async (t) => {
  const first = bounded(t, 200);
  const second = bounded(t, 200);
  const lockId = 990_002;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const holder = first.tryExclusiveLock(lockId, async () => {
    holding();
    await released;
    return 'done';
  });
  await held;
  t.same(await second.tryExclusiveLock(lockId, async () => 'ran'), { acquired: false }, 'the other handle does not run, nor wait');
  release();
  t.same(await holder, { acquired: true, result: 'done' });
  t.same(await second.tryExclusiveLock(lockId, async () => 'ran'), { acquired: true, result: 'ran' }, 'free again');

  await t.rejects(
    first.tryExclusiveLock(lockId, async () => {
      throw new Error('purge failed');
    }),
    /purge failed/,
  );
  t.same(await second.tryExclusiveLock(lockId, async () => 'ran'), { acquired: true, result: 'ran' }, 'free after a failure');

  // The lock's session ends while fn still runs (its process killed with SIGKILL, its network cut): the server frees it.
  const meanwhile = await first.tryExclusiveLock(lockId, async () => {
    await first.db.execute(sql`select pg_terminate_backend(pid, 5000) from pg_locks where locktype = 'advisory' and objid = ${lockId}`);
    return second.tryExclusiveLock(lockId, async () => 'ran');
  });
  t.same(meanwhile, { acquired: true, result: { acquired: true, result: 'ran' } }, 'free once its session is gone');
});

t.test('tryExclusiveLock on the embedded database: one holder at a time within the process', async (t) => {
  const h = createDb({});
  t.teardown(() => h.close());
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const holder = h.tryExclusiveLock(1, () => released.then(() => 'done'));
  t.same(await h.tryExclusiveLock(1, async () => 'ran'), { acquired: false });
  t.same(await h.tryExclusiveLock(2, async () => 'ran'), { acquired: true, result: 'ran' }, 'another lock id is another lock');
  release();
  t.same(await holder, { acquired: true, result: 'done' });
  t.same(await h.tryExclusiveLock(1, async () => 'ran'), { acquired: true, result: 'ran' });
});

t.test('what counts as "unavailable"', async (t) => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as { port: number };
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const nowhere = createDb({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/x`, connectTimeoutMs: 500 });
  t.teardown(() => nowhere.close());
  const refused = await failure(() => nowhere.db.execute(sql`select 1`));
  t.ok(isDatabaseUnavailable(refused), `connection refused (${dbError(refused).message || String(dbError(refused))})`);

  const h = bounded(t, 1_000);
  const divisionByZero = await failure(() => h.db.execute(sql`select 1 / 0`));
  t.equal(dbError(divisionByZero).code, '22012');
  t.notOk(isDatabaseUnavailable(divisionByZero), 'a statement the server refuses is not');
  const missing = await failure(() => h.db.execute(sql`select * from no_such_table`));
  t.notOk(isDatabaseUnavailable(missing), 'nor a missing table');
  t.ok(
    isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
    'a server shutting down is',
  );
  t.ok(
    isDatabaseUnavailable(new Error('x', { cause: new AggregateError([Object.assign(new Error('y'), { code: 'ECONNREFUSED' })]) })),
    'an AggregateError of refusals, as a cause, is',
  );
  t.notOk(isDatabaseUnavailable(new TypeError('not a database error')));
  t.notOk(isDatabaseUnavailable(undefined));
});

t.test('availability: one change when the database goes away, one when it is back', async (t) => {
  // The pool points at a local port that refuses, then at a forwarder to the real server there.
  const target = new URL(base.url!);
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const viaPort = new URL(base.url!);
  viaPort.hostname = '127.0.0.1';
  viaPort.port = String(port);
  const h = createDb({ databaseUrl: viaPort.toString(), connectTimeoutMs: 500, statementTimeoutMs: 500 });
  t.teardown(() => h.close());
  const changes: boolean[] = [];
  h.onAvailabilityChange(({ available }) => changes.push(available));

  for (let i = 0; i < 3; i += 1) await failure(() => h.db.execute(sql`select 1`));
  t.same(changes, [false], 'three refused calls: one change');

  const { connect } = await import('node:net');
  const forwarder = createServer((socket) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => forwarder.listen(port, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => forwarder.close(() => resolve())));
  for (let i = 0; i < 3; i += 1) await h.db.execute(sql`select 1`);
  t.same(changes, [false, true], 'then three answered calls: one change back');
  await h.close();
});
