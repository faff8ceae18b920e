import { sql } from 'drizzle-orm';
import t from 'tap';
import { migrate } from '../src/migrate.js';
import { createTestDb } from '../src/testing.js';
import { testDatabaseUrl } from './helpers.js';

t.test('a migrated database', async (t) => {
  const h = await createTestDb(testDatabaseUrl);
  t.teardown(() => h.destroy());

  const applied = async () =>
    (await h.db.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`)).rows[0]!.n;
  const before = await applied();
  t.ok(before >= 3, 'every committed migration is recorded');
  await migrate(h);
  t.equal(await applied(), before, 'migrating again applies nothing');

  const ext = await h.db.execute<{ extname: string }>(sql`select extname from pg_extension where extname = 'pg_trgm'`);
  t.equal(ext.rows.length, 1, 'pg_trgm is installed (catalog search index)');
  const idx = await h.db.execute<{ n: number }>(sql`select count(*)::int as n from pg_indexes where indexname = 'courses_search_trgm_idx'`);
  t.equal(idx.rows[0]!.n, 1);
  const triggers = await h.db.execute<{ tgname: string }>(
    sql`select tgname from pg_trigger where not tgisinternal and tgenabled <> 'D' order by tgname`,
  );
  t.same(
    triggers.rows.map((r) => r.tgname),
    [
      'certificates_count_trg',
      'chapter_completions_count_trg',
      'chapter_completions_no_move_trg',
      'chapters_count_trg',
      'courses_deleting_trg',
      'courses_move_participants_trg',
      'enrollments_before_insert_trg',
      'enrollments_count_trg',
      'enrollments_no_move_trg',
      'modules_count_trg',
      'purchases_count_insert_delete_trg',
      'purchases_count_update_trg',
    ],
    'the counter triggers are installed and enabled',
  );
});
