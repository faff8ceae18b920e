import { sql } from 'drizzle-orm';
import pg from 'pg';
import t from 'tap';
import type { Db } from '../src/client.js';
import { migrate } from '../src/migrate.js';
import { categories } from '../src/schema/index.js';
import { createTestDb } from '../src/testing.js';
import { postgresUrl } from './helpers.js';

// CI runs this file once (not again in the PostgreSQL pass): PostgreSQL's template databases, whatever TEST_DATABASE_URL says.

// createTestDb on a PostgreSQL server copies a migrated template database instead of running
// the migrations for every test database. The copies must be what the migrations make, and each
// its own. On the machine's server whatever TEST_DATABASE_URL says: PGlite has no templates.

async function adminQuery<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The schema as the catalog sees it: columns, constraints, indexes, triggers, functions. */
async function shapeOf(db: Db): Promise<string[]> {
  const rows = await db.execute<{ item: string }>(sql`
    select 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as item
      from information_schema.columns where table_schema in ('public', 'drizzle')
    union all select 'constraint ' || conrelid::regclass || ' ' || pg_get_constraintdef(oid) from pg_constraint where connamespace = 'public'::regnamespace
    union all select 'index ' || indexdef from pg_indexes where schemaname = 'public'
    union all select 'trigger ' || tgname from pg_trigger where not tgisinternal
    union all select 'function ' || p.oid::regprocedure::text from pg_proc p where pronamespace = 'public'::regnamespace
    union all select 'extension ' || extname from pg_extension
    order by 1`);
  return rows.rows.map((r) => r.item);
}

t.test('test databases on PostgreSQL: copies of one migrated template, each its own', async (t) => {
  const [a, b] = await Promise.all([createTestDb(postgresUrl), createTestDb(postgresUrl)]);
  t.teardown(async () => {
    await a.destroy();
    await b.destroy();
  });
  t.not(a.url, b.url, 'two databases');

  const templates = await adminQuery<{ datname: string; connections: number }>(
    `select datname, (select count(*)::int from pg_stat_activity s where s.datname = d.datname) as connections
       from pg_database d where datname like 'lms\\_test\\_template\\_%' and shobj_description(oid, 'pg_database') is not null`,
  );
  t.ok(templates.length >= 1, 'a template built from the migrations is on the server');
  t.ok(
    templates.every((x) => x.connections === 0),
    'nobody stays connected to a template (CREATE DATABASE ... TEMPLATE needs it free)',
  );

  // What the migrations make, from scratch: the same shape as the copy.
  const fresh = await createTestDb(postgresUrl, { migratedUpTo: '0000_extensions' });
  t.teardown(() => fresh.destroy());
  await migrate(fresh);
  t.same(await shapeOf(a.db), await shapeOf(fresh.db), 'a copy has exactly the schema the migrations make');
  const applied = async (db: Db) =>
    (await db.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`)).rows[0]!.n;
  const migrations = await applied(fresh.db);
  t.equal(await applied(a.db), migrations, 'and records every migration as applied');

  await a.db.insert(categories).values({ name: 'only in a', code: 'only-a' });
  const inB = await b.db.execute<{ n: number }>(sql`select count(*)::int as n from categories where code = 'only-a'`);
  t.equal(inB.rows[0]!.n, 0, 'a write to one copy is not in the other');
  await migrate(a);
  t.equal(await applied(a.db), migrations, 'migrate() on a copy applies nothing more');
});
