import { hashToken, migrate, sessions, users } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { testDatabaseUrl } from '../../helpers/database.js';
import { eq, sql } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { cliFor } from '../../helpers/cli.js';
import { callback, makePartnerKey, registerPartner, ssoToken } from '../../helpers/sso.js';

// An LMS upgraded across migration 0004 (identities): members who signed in before keep signing
// in, to the same account; a staff account a partner had stamped before does not (until an
// operator links it).
const now = new Date('2026-11-22T10:00:00Z');
const NOW_S = now.getTime() / 1000;
const handle = await createTestDb(testDatabaseUrl, { migratedUpTo: '0003_progress_aggregates' });
t.teardown(() => handle.destroy());

// Users as the LMS before 0004 kept them: the partner's issuer stamped on the user row.
await handle.db.execute(sql`
  insert into users (id, email, name, role, tier, membership_id, issuer) values
    ('old-member', 'old.member@example.test', 'Old Member', 'student', 'anggota', 'A-7', 'partner-a.test'),
    ('old-teacher', 'old.teacher@example.test', 'Old Teacher', 'teacher', 'anggota', 'T-7', 'partner-a.test')`);
await migrate(handle);

const { app } = await buildTestApp(t, { db: handle, deps: { clock: () => now } });
const key = await makePartnerKey('a-1');
await registerPartner(app.db, { issuer: 'partner-a.test', pemKeys: [key] });
const sessionUser = async (cookie: string | undefined) =>
  cookie
    ? (
        await app.db
          .select({ userId: sessions.userId })
          .from(sessions)
          .where(eq(sessions.tokenHash, hashToken(cookie.slice(cookie.indexOf('=') + 1))))
      )[0]?.userId
    : undefined;

t.test('a member who signed in before the migration signs in to the same account', async (t) => {
  const res = await callback(
    app,
    ssoToken(key, 'partner-a.test', NOW_S, { email: 'old.member@example.test', membershipId: 'A-7', sub: 'mahasiswa' }),
  );
  t.equal(res.status, 302);
  t.equal(await sessionUser(res.sessionCookie), 'old-member');
  const [row] = await app.db.select().from(users).where(eq(users.id, 'old-member'));
  t.match(row, { name: 'Old Member', membershipId: 'A-7', tier: 'mahasiswa', role: 'student' });
  t.equal((await app.db.select().from(users)).length, 2, 'no new account');
});

t.test('a staff account a partner stamped before the migration is reached only after an operator links it', async (t) => {
  const token = () => ssoToken(key, 'partner-a.test', NOW_S, { email: 'old.teacher@example.test', membershipId: 'T-7' });
  const refused = await callback(app, token());
  t.equal(refused.status, 307);
  t.equal(refused.reason, 'email_in_use');
  t.equal(refused.sessionCookie, undefined);

  const cli = cliFor(handle);
  t.equal((await cli('user', 'link', '--email', 'old.teacher@example.test', '--iss', 'partner-a.test', '--membership-id', 'T-7')).code, 0);
  const linked = await callback(app, token());
  t.equal(linked.status, 302);
  t.equal(await sessionUser(linked.sessionCookie), 'old-teacher');
});
