import { sql } from 'drizzle-orm';
import t from 'tap';
import { migrate } from '../src/migrate.js';
import { createTestDb } from '../src/testing.js';
import { dbError, testDatabaseUrl } from './helpers.js';

// Migration 0020 (credit evidence, issue 42) on a database filled at 0019: each course's value
// becomes an accreditation recorded by nobody, capped by its scheme (a teacher's 999,999.99 SKP
// becomes the scheme's 50); a scheme only a course named becomes a scheme that requires nothing;
// every credit already earned stays as it was, tied to its course's accreditation.

t.test('0020 turns each course value into a capped accreditation and keeps every credit', async (t) => {
  const h = await createTestDb(testDatabaseUrl, { migratedUpTo: '0019_refund_keeps_certificate_reason' });
  t.teardown(() => h.destroy());

  await h.db.execute(sql`insert into institutions (name) values ('Lembaga')`);
  await h.db.execute(sql`
    insert into users (id, email, name, role, institution_id) values
      ('u-teacher', 'teacher@example.test', 'Teacher', 'teacher', (select id from institutions limit 1)),
      ('u-member', 'member@example.test', 'Member', 'student', null)`);
  await h.db.execute(sql`
    insert into courses (name, teacher_id, institution_id, nilai_kum, credit_scheme)
    select s.name, 'u-teacher', (select id from institutions limit 1), s.kum, s.scheme
    from (values ('Dua KUM', 2.5, 'KUM'), ('Terlalu banyak', 999999.99, 'SKP'), ('Skema sendiri', 5, 'PKB-ABC'), ('Tanpa nilai', null, 'KUM'))
      as s(name, kum, scheme)`);
  await h.db.execute(sql`
    insert into certificates (user_id, course_id, kum, issued_at)
    select 'u-member', id, nilai_kum, '2025-03-01T00:00:00Z' from courses where nilai_kum is not null`);
  await h.db.execute(sql`
    insert into credits (user_id, course_id, certificate_id, scheme, amount, earned_at)
    select k.user_id, k.course_id, k.id, c.credit_scheme, k.kum, k.issued_at from certificates k join courses c on c.id = k.course_id`);
  const creditsBefore = await h.db.execute(
    sql`select id, user_id, course_id, certificate_id, scheme, amount::float8, earned_at from credits order by id`,
  );

  await migrate(h);

  const accreditations = await h.db.execute<{
    name: string;
    scheme: string;
    value: number;
    reference: string;
    recorded_by: string | null;
    valid_until: Date | null;
  }>(sql`
    select c.name, a.scheme, a.value::float8 as value, a.reference, a.recorded_by, a.valid_until
    from course_accreditations a join courses c on c.id = a.course_id order by c.name`);
  t.same(
    accreditations.rows.map((r) => [r.name, r.scheme, r.value, r.reference, r.recorded_by, r.valid_until]),
    [
      ['Dua KUM', 'KUM', 2.5, 'before-accreditation', null, null],
      ['Skema sendiri', 'PKB-ABC', 5, 'before-accreditation', null, null],
      ['Terlalu banyak', 'SKP', 50, 'before-accreditation', null, null],
    ],
    'one accreditation per valued course, capped by its scheme; none for a course without a value',
  );
  const shown = await h.db.execute<{ name: string; kum: number | null }>(
    sql`select name, nilai_kum::float8 as kum from courses order by name`,
  );
  t.same(
    shown.rows,
    [
      { name: 'Dua KUM', kum: 2.5 },
      { name: 'Skema sendiri', kum: 5 },
      { name: 'Tanpa nilai', kum: null },
      { name: 'Terlalu banyak', kum: 50 },
    ],
    'the catalog shows the accredited value',
  );
  const own = await h.db.execute<{ requires: boolean }>(sql`
    select (requires_pre_test or requires_evaluation or post_test_min_score is not null or min_minutes_share is not null) as requires
    from credit_schemes where code = 'PKB-ABC'`);
  t.same(own.rows, [{ requires: false }], "a course's own scheme exists and requires nothing");
  const shipped = await h.db.execute<{ code: string }>(sql`select code from credit_schemes where built_in order by code`);
  t.same(
    shipped.rows.map((r) => r.code),
    ['KUM', 'PKPA', 'SKP', 'SKP-IAI', 'SKP-IDI', 'SKP-KEMENKES'],
    'the shipped schemes',
  );

  const creditsAfter = await h.db.execute(
    sql`select id, user_id, course_id, certificate_id, scheme, amount::float8, earned_at from credits order by id`,
  );
  t.same(creditsAfter.rows, creditsBefore.rows, 'every credit as it was');
  const untied = await h.db.execute<{ n: number }>(sql`select count(*)::int as n from credits where accreditation_id is null`);
  t.equal(untied.rows[0]!.n, 0, 'each tied to its course accreditation');

  const err = await h.db.execute(sql`insert into credit_schemes (code, body, unit, max_per_course) values ('ABC', 'x', 'x', 1000.01)`).then(
    () => null,
    (e: unknown) => dbError(e),
  );
  t.equal(err?.constraint, 'credit_schemes_max_per_course', 'a scheme may not allow more than 1,000 per course');
});
