import t from 'tap';
import { sql } from 'drizzle-orm';
import { createTestDb } from '../src/testing.js';
import { courses } from '../src/index.js';

t.test('migrates and counts', async (t) => {
  const h = await createTestDb();
  t.teardown(() => h.destroy());
  const r = await h.db.execute<{ n: number }>(sql`select count(*)::int as n from ${courses}`);
  t.equal(r.rows[0]?.n, 0);
});
