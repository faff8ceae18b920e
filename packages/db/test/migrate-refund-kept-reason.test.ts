import { sql } from 'drizzle-orm';
import t from 'tap';
import { migrate } from '../src/migrate.js';
import { createTestDb } from '../src/testing.js';
import { dbError, testDatabaseUrl } from './helpers.js';

// Migration 0016 (purchases.certificate_kept_reason, issue 40 finding 12) on a database filled at
// 0015: every purchase, refunded ones included, is kept as it was, with no kept reason; the new
// check allows a reason on a refunded purchase only, 1 to 500 characters.

t.test('0016 keeps every purchase and allows a kept reason on refunded ones only', async (t) => {
  const h = await createTestDb(testDatabaseUrl, { migratedUpTo: '0018_deliveries_wait_for_disabled_endpoints' });
  t.teardown(() => h.destroy());
  const columns = async () =>
    (
      await h.db.execute<{ column_name: string }>(
        sql`select column_name from information_schema.columns where table_name = 'purchases' order by column_name`,
      )
    ).rows.map((r) => r.column_name);
  t.notOk((await columns()).includes('certificate_kept_reason'), 'the database starts at 0015');

  await h.db.execute(sql`insert into users (id, email, name, role) values ('u-buyer', 'buyer@example.test', 'Buyer', 'student')`);
  await h.db.execute(sql`insert into institutions (name) values ('Lembaga')`);
  await h.db.execute(sql`
    insert into users (id, email, name, role, institution_id)
    values ('u-teacher', 'teacher@example.test', 'Teacher', 'teacher', (select id from institutions limit 1))`);
  await h.db.execute(sql`
    insert into courses (name, teacher_id, institution_id, is_purchasable, price)
    values ('Etika', 'u-teacher', (select id from institutions limit 1), true, 90000)`);
  await h.db.execute(sql`
    insert into purchases (user_id, course_id, amount, status, paid_at, closed_at, close_reason, reference)
    select 'u-buyer', c.id, 90000, s.status::purchase_status, s.paid_at, s.closed_at, s.reason, s.reference
    from courses c, (values
      ('paid', now(), null::timestamptz, null, 'LMS-AAAAA-00001'),
      ('refunded', now() - interval '2 days', now() - interval '1 day', 'Dibatalkan', 'LMS-AAAAA-00002'),
      ('pending', null, null, null, 'LMS-AAAAA-00003')
    ) as s(status, paid_at, closed_at, reason, reference)`);
  const before = await h.db.execute(
    sql`select id, user_id, course_id, amount, status, paid_at, closed_at, close_reason, reference from purchases order by id`,
  );

  await migrate(h);

  t.ok((await columns()).includes('certificate_kept_reason'), 'the column is there');
  const after = await h.db.execute(
    sql`select id, user_id, course_id, amount, status, paid_at, closed_at, close_reason, reference from purchases order by id`,
  );
  t.same(after.rows, before.rows, 'every purchase as it was');
  const kept = await h.db.execute<{ n: number }>(sql`select count(*)::int as n from purchases where certificate_kept_reason is not null`);
  t.equal(kept.rows[0]!.n, 0, 'no kept reason on any of them');

  await h.db.execute(sql`update purchases set certificate_kept_reason = 'Sudah lulus' where status = 'refunded'`);
  for (const [what, statement] of [
    ['on a paid purchase', sql`update purchases set certificate_kept_reason = 'x' where status = 'paid'`],
    ['empty', sql`update purchases set certificate_kept_reason = '' where status = 'refunded'`],
    ['over 500 characters', sql`update purchases set certificate_kept_reason = ${'x'.repeat(501)} where status = 'refunded'`],
  ] as const) {
    const err = await h.db.execute(statement).then(
      () => null,
      (e: unknown) => dbError(e),
    );
    t.equal(err?.constraint, 'purchases_certificate_kept_reason_refunded', `${what}: refused by the check`);
  }
});
