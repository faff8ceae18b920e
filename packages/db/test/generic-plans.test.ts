import { sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { createDb, type DbHandle } from '../src/client.js';
import { genericPlanName, poolSizes } from '../src/generic-plans.js';
import { createTestDb } from '../src/testing.js';
import { postgresUrl } from './helpers.js';

// Statements named with GENERIC_PLAN_PREFIX run on connections of their own that plan them once
// (plan_cache_mode = force_generic_plan), the others as PostgreSQL decides. On the machine's
// PostgreSQL whatever TEST_DATABASE_URL says (the embedded database has one connection).
const base = await createTestDb(postgresUrl);
t.teardown(() => base.destroy());

function open(t: Test, poolMax: number, statementTimeoutMs = 0): DbHandle {
  const handle = createDb({ databaseUrl: base.url, poolMax, statementTimeoutMs });
  t.teardown(() => handle.close());
  return handle;
}

/** The pool behind Drizzle: prepared statements reach it as `query({ name, text, values })`. */
type Pool = { query(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: Record<string, unknown>[] }> };
const poolOf = (handle: DbHandle) => (handle.db as unknown as { $client: Pool }).$client;

t.test('DB_POOL_MAX is the total: a fifth (at least one) for generic plans, none out of one connection', async (t) => {
  t.same(poolSizes(1), { main: 1, generic: 0 });
  t.same(poolSizes(2), { main: 1, generic: 1 });
  t.same(poolSizes(10), { main: 8, generic: 2 });
  t.same(poolSizes(20), { main: 16, generic: 4 });
});

t.test('a statement named for a generic plan runs on a generic-plan connection; others do not', async (t) => {
  const h = open(t, 2, 1_500);
  const pool = poolOf(h);
  const mode = 'select current_setting($1) as mode';
  const generic = await pool.query({ name: genericPlanName('mode_probe'), text: mode, values: ['plan_cache_mode'] });
  t.same(generic.rows, [{ mode: 'force_generic_plan' }]);
  const named = await pool.query({ name: 'mode_probe', text: mode, values: ['plan_cache_mode'] });
  t.same(named.rows, [{ mode: 'auto' }], 'a named statement without the prefix');
  const unnamed = await pool.query({ text: mode, values: ['plan_cache_mode'] });
  t.same(unnamed.rows, [{ mode: 'auto' }], 'an unnamed statement');
  const timeout = await pool.query({ name: genericPlanName('timeout_probe'), text: mode, values: ['statement_timeout'] });
  t.same(timeout.rows, [{ mode: '1500ms' }], 'the generic-plan connections carry the same statement_timeout');

  // Inside a transaction every statement runs on the transaction's connection.
  const inTx = await h.db.transaction(async (tx) => {
    const client = (tx as unknown as { session: { client: Pool } }).session.client;
    return client.query({ name: genericPlanName('mode_probe'), text: mode, values: ['plan_cache_mode'] });
  });
  t.same(inTx.rows, [{ mode: 'auto' }], 'a transaction keeps its own connection');
});

t.test('PostgreSQL plans such a statement once, generically, not per execution', async (t) => {
  // Two connections: one for generic plans, so both statements below meet on it.
  const h = open(t, 2);
  const pool = poolOf(h);
  const name = genericPlanName('plus_one');
  for (let i = 0; i < 3; i += 1) {
    const r = await pool.query({ name, text: 'select $1::int + 1 as n', values: [i] });
    t.same(r.rows, [{ n: i + 1 }]);
  }
  const plans = await pool.query({
    name: genericPlanName('plans_of'),
    text: 'select generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements where name = $1',
    values: [name],
  });
  t.same(plans.rows, [{ generic: 3, custom: 0 }]);
});

t.test('stats count both pools against DB_POOL_MAX; close ends both', async (t) => {
  const counted = sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  const watcher = open(t, 1);
  const count = async () => (await watcher.db.execute<{ n: number }>(counted)).rows[0]?.n ?? -1;
  const others = await count();
  const h = createDb({ databaseUrl: base.url, poolMax: 2 });
  const pool = poolOf(h);
  await Promise.all([
    pool.query({ text: 'select pg_sleep(0.05)' }),
    pool.query({ name: genericPlanName('sleep'), text: 'select pg_sleep(0.05)' }),
  ]);
  t.match(h.stats().pool, { total: 2, max: 2 });
  t.equal(await count(), others + 2, 'one connection of each pool is open');
  await h.close();
  let after = await count();
  for (let i = 0; i < 40 && after > others; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    after = await count();
  }
  t.equal(after, others, 'close ended both');
});
