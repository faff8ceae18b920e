import { sql } from 'drizzle-orm';
import t from 'tap';
import { migrate } from '../src/migrate.js';
import { createTestDb } from '../src/testing.js';
import { testDatabaseUrl } from './helpers.js';

// Migration 0004 on a database as it was before it (0003): the (issuer, membership_id) stamped on
// each *student* becomes that account's SSO identity; staff links are not carried over (any partner
// could have stamped them by putting the staff e-mail in a token); nobody is lost. On PGlite, or
// on PostgreSQL with TEST_DATABASE_URL.

const before = [
  {
    id: 'u-member-a',
    email: 'member.a@example.test',
    role: 'student',
    tier: 'anggota',
    membershipId: 'A-1',
    issuer: 'a.test',
    isActive: true,
  },
  // The same membership number at another partner is another person.
  {
    id: 'u-member-b',
    email: 'member.b@example.test',
    role: 'student',
    tier: 'umum',
    membershipId: 'A-1',
    issuer: 'b.test',
    isActive: true,
  },
  {
    id: 'u-inactive',
    email: 'inactive@example.test',
    role: 'student',
    tier: 'mahasiswa',
    membershipId: 'A-2',
    issuer: 'a.test',
    isActive: false,
  },
  { id: 'u-local', email: 'local@example.test', role: 'student', tier: null, membershipId: null, issuer: null, isActive: true },
  {
    id: 'u-teacher',
    email: 'teacher@example.test',
    role: 'teacher',
    tier: 'anggota',
    membershipId: 'T-1',
    issuer: 'a.test',
    isActive: true,
  },
  { id: 'u-admin', email: 'admin@example.test', role: 'admin', tier: null, membershipId: null, issuer: null, isActive: true },
  { id: 'u-super', email: 'super@example.test', role: 'super_admin', tier: 'umum', membershipId: 'SA-1', issuer: 'b.test', isActive: true },
] as const;

t.test('0004 moves the students’ SSO links into identities, drops the staff ones, keeps every user', async (t) => {
  const h = await createTestDb(testDatabaseUrl, { migratedUpTo: '0003_progress_aggregates' });
  t.teardown(() => h.destroy());

  const columns = async () =>
    (
      await h.db.execute<{ column_name: string }>(
        sql`select column_name from information_schema.columns where table_name = 'users' order by column_name`,
      )
    ).rows.map((r) => r.column_name);
  t.ok((await columns()).includes('issuer'), 'the database starts at 0003: users still have an issuer');
  const tables = async () =>
    (await h.db.execute<{ n: number }>(sql`select count(*)::int as n from information_schema.tables where table_name = 'identities'`))
      .rows[0]!.n;
  t.equal(await tables(), 0, 'and no identities table');

  for (const u of before) {
    await h.db.execute(sql`
      insert into users (id, email, name, role, tier, membership_id, issuer, is_active, created_at)
      values (${u.id}, ${u.email}, ${`Name of ${u.id}`}, ${u.role}, ${u.tier}, ${u.membershipId}, ${u.issuer}, ${u.isActive},
              ${'2026-01-02T03:04:05Z'}::timestamptz)`);
  }
  // Sessions hang on users: they must survive too.
  await h.db.execute(sql`
    insert into sessions (token_hash, user_id, expires_at)
    values ('hash-member', 'u-member-a', now() + interval '1 day'), ('hash-teacher', 'u-teacher', now() + interval '1 day')`);
  const usersBefore = await h.db.execute(
    sql`select id, email, name, role, tier, membership_id, is_active, created_at from users order by id`,
  );

  await migrate(h);

  t.notOk((await columns()).includes('issuer'), 'users.issuer is gone');
  const usersAfter = await h.db.execute(
    sql`select id, email, name, role, tier, membership_id, is_active, created_at from users order by id`,
  );
  t.equal(usersAfter.rows.length, before.length, 'nobody is lost');
  // Staff rows lose what a partner's token wrote on them (membership_id, tier); students keep theirs.
  const stamped = new Set<string>(before.filter((u) => u.role !== 'student' && u.issuer !== null).map((u) => u.id));
  t.ok(stamped.size > 0, 'the data set has staff a partner stamped');
  t.same(
    usersAfter.rows,
    usersBefore.rows.map((u) => (stamped.has(u.id as string) ? { ...u, membership_id: null, tier: null } : u)),
    'every user row is as it was (membership_id kept as the profile number), but for the staff: no stamped membership_id or tier',
  );
  t.equal((await h.db.execute(sql`select token_hash from sessions`)).rows.length, 2, 'sessions kept');

  const ids = await h.db.execute<{ issuer: string; membership_id: string; user_id: string; origin: string; created_at: unknown }>(
    sql`select issuer, membership_id, user_id, origin::text as origin, created_at from identities order by user_id`,
  );
  const students = before.filter((u) => u.role === 'student' && u.issuer !== null);
  t.equal(ids.rows.length, students.length, 'one identity per student who came through SSO, and no other');
  t.same(
    ids.rows.map((r) => ({ issuer: r.issuer, membershipId: r.membership_id, userId: r.user_id, origin: r.origin })),
    [
      { issuer: 'a.test', membershipId: 'A-2', userId: 'u-inactive', origin: 'sso' },
      { issuer: 'a.test', membershipId: 'A-1', userId: 'u-member-a', origin: 'sso' },
      { issuer: 'b.test', membershipId: 'A-1', userId: 'u-member-b', origin: 'sso' },
    ],
  );
  t.equal(
    new Date(ids.rows[0]!.created_at as string).toISOString(),
    '2026-01-02T03:04:05.000Z',
    'an identity dates from the account it was stamped on',
  );
  const staff = await h.db.execute<{ n: number }>(
    sql`select count(*)::int as n from identities i join users u on u.id = i.user_id where u.role <> 'student'`,
  );
  t.equal(staff.rows[0]!.n, 0, 'no staff account keeps the link a partner stamped on it');

  const applied = async () =>
    (await h.db.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`)).rows[0]!.n;
  const n = await applied();
  await migrate(h);
  t.equal(await applied(), n, 'migrating again applies nothing');
});
