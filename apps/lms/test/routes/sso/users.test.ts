import { identities, sessions, users } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeUser } from '../../helpers/fixtures.js';
import { callback, callbackUrl, makePartnerKey, registerPartner, ssoToken } from '../../helpers/sso.js';

// Who a valid token signs in (docs/architecture.md, "Identity on SSO"): the account of the identity
// (issuer, membershipId), else a new user with that identity, unless the e-mail is another
// account's (refused, nothing changed); name only on creation; tier from sub on every sign-in;
// inactive users refused.
const now = new Date('2026-11-22T10:00:00Z');
const NOW_S = now.getTime() / 1000;
const { app } = await buildTestApp(t, { deps: { clock: () => now }, config: { SESSION_TTL_HOURS: 10 } });
const db = app.db;
const key = await makePartnerKey('users-1');
await registerPartner(db, { issuer: 'assoc.test', pemKeys: [key] });
await registerPartner(db, { issuer: 'uni.test', pemKeys: [key] });

const userByEmail = async (email: string) => (await db.select().from(users).where(eq(users.email, email)))[0];

t.test('a new member gets a user with the name, tier and membershipId of the token, and the identity (issuer, membershipId)', async (t) => {
  const res = await callback(
    app,
    ssoToken(key, 'assoc.test', NOW_S, { email: 'New.Member@Example.test', name: 'Budi Santoso', membershipId: 'IAI-0001', sub: 'member' }),
  );
  t.equal(res.status, 302);
  t.equal(res.location, '/dashboard');
  const user = await userByEmail('new.member@example.test');
  t.match(user, { name: 'Budi Santoso', tier: 'anggota', membershipId: 'IAI-0001', role: 'student', isActive: true });
  const links = await db.select().from(identities).where(eq(identities.userId, user!.id));
  t.match(links, [{ issuer: 'assoc.test', membershipId: 'IAI-0001', origin: 'sso' }]);
  const [session] = await db.select().from(sessions).where(eq(sessions.userId, user!.id));
  t.equal(session!.expiresAt.getTime() - now.getTime(), 10 * 3_600_000, 'the session lasts SESSION_TTL_HOURS');
});

t.test('the session cookie is HttpOnly, SameSite=Lax, path /, and expires with the session', async (t) => {
  const res = await app.inject(callbackUrl(app, ssoToken(key, 'assoc.test', NOW_S)));
  const cookie = res.cookies.find((c) => c.name === 'lms_session_token');
  t.ok(cookie);
  t.equal(cookie!.httpOnly, true);
  t.equal(cookie!.sameSite, 'Lax');
  t.equal(cookie!.path, '/');
  t.equal((cookie!.expires as Date).getTime(), now.getTime() + 10 * 3_600_000);
});

t.test('without a name, the name is the local part of the e-mail', async (t) => {
  await callback(app, ssoToken(key, 'assoc.test', NOW_S, { email: 'siti.rahma@example.test', name: undefined }));
  t.equal((await userByEmail('siti.rahma@example.test'))?.name, 'siti.rahma');
});

t.test('a returning member is matched by (issuer, membershipId): same user, name kept, tier updated', async (t) => {
  await callback(
    app,
    ssoToken(key, 'assoc.test', NOW_S, { email: 'first@example.test', name: 'First Name', membershipId: 'RET-1', sub: 'member' }),
  );
  const before = await userByEmail('first@example.test');
  const res = await callback(
    app,
    ssoToken(key, 'assoc.test', NOW_S, { email: 'changed@example.test', name: 'Other Name', membershipId: 'RET-1', sub: 'mahasiswa' }),
  );
  t.equal(res.status, 302);
  const after = await userByEmail('first@example.test');
  t.equal(after?.id, before?.id, 'the same user');
  t.equal(after?.name, 'First Name', 'name is only used on creation');
  t.equal(after?.tier, 'mahasiswa', 'tier follows sub on every sign-in');
  t.equal(await userByEmail('changed@example.test'), undefined, 'no second user');
});

t.test('the same membershipId from another partner is another person', async (t) => {
  await callback(app, ssoToken(key, 'assoc.test', NOW_S, { email: 'a-side@example.test', membershipId: 'SAME-7' }));
  await callback(app, ssoToken(key, 'uni.test', NOW_S, { email: 'u-side@example.test', membershipId: 'SAME-7' }));
  const a = await userByEmail('a-side@example.test');
  const u = await userByEmail('u-side@example.test');
  t.ok(a && u);
  t.not(a!.id, u!.id);
});

t.test('an existing account with the e-mail but no identity of the partner is refused (email_in_use) and left as it was', async (t) => {
  const local = await makeUser(db, { email: 'teacher.local@example.test', name: 'Local Teacher', role: 'teacher' });
  const before = await userByEmail('teacher.local@example.test');
  const res = await callback(
    app,
    ssoToken(key, 'assoc.test', NOW_S, { email: 'Teacher.Local@example.test', name: 'Ignored', membershipId: 'T-9', sub: 'umum' }),
  );
  t.equal(res.status, 307);
  t.equal(res.error, 'sso_failed');
  t.equal(res.reason, 'email_in_use');
  t.equal(res.sessionCookie, undefined);
  t.same(await userByEmail('teacher.local@example.test'), before, 'the account is unchanged (tier, membershipId, name)');
  t.equal((await db.select().from(identities).where(eq(identities.userId, local.id))).length, 0, 'no identity was linked');
  t.equal((await db.select().from(sessions).where(eq(sessions.userId, local.id))).length, 0, 'no session');
});

t.test('an inactive user is refused with sso_failed / member_inactive and no session', async (t) => {
  const inactive = await makeUser(db, { email: 'gone@example.test', isActive: false });
  await db.insert(identities).values({ issuer: 'assoc.test', membershipId: 'GONE-1', userId: inactive.id, origin: 'sso' });
  const res = await callback(app, ssoToken(key, 'assoc.test', NOW_S, { email: 'gone@example.test', membershipId: 'GONE-1' }));
  t.equal(res.status, 307);
  t.equal(res.error, 'sso_failed');
  t.equal(res.reason, 'member_inactive');
  t.equal(res.sessionCookie, undefined);
  t.equal((await db.select().from(sessions).where(eq(sessions.userId, inactive.id))).length, 0);
});
