import { sessions, usedTokenIds, users } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { purgeUsedTokenIds } from '../../../src/domain/partner-tokens.js';
import { buildTestApp } from '../../helpers/app.js';
import { countQueries } from '../../helpers/query-counter.js';
import { callback, makePartnerKey, registerPartner, ssoToken } from '../../helpers/sso.js';

// A token works once: its jti is recorded atomically (unique insert), on PGlite or PostgreSQL
// (TEST_DATABASE_URL), so concurrent uses of one token open exactly one session.
const now = new Date('2026-11-22T10:00:00Z');
const NOW_S = now.getTime() / 1000;
const { app } = await buildTestApp(t, { deps: { clock: () => now } });
const key = await makePartnerKey('replay-1');
await registerPartner(app.db, { issuer: 'replay.test', pemKeys: [key] });

async function sessionsOf(email: string): Promise<number> {
  const rows = await app.db
    .select({ token: sessions.tokenHash })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(users.email, email));
  return rows.length;
}

t.test('the same token twice: the second is refused', async (t) => {
  const email = 'twice@example.test';
  const token = ssoToken(key, 'replay.test', NOW_S, { email });
  const first = await callback(app, token);
  t.equal(first.status, 302);
  t.ok(first.sessionCookie);
  const second = await callback(app, token);
  t.equal(second.status, 307);
  t.equal(second.error, 'invalid_token');
  t.equal(second.reason, 'Token has already been used.');
  t.equal(second.sessionCookie, undefined);
  t.equal(await sessionsOf(email), 1);
});

t.test('the same jti from another issuer is a different token', async (t) => {
  const other = await makePartnerKey('other-1');
  await registerPartner(app.db, { issuer: 'other.test', pemKeys: [other] });
  const jti = 'shared-jti-value';
  t.equal((await callback(app, ssoToken(key, 'replay.test', NOW_S, { jti }))).status, 302);
  t.equal((await callback(app, ssoToken(other, 'other.test', NOW_S, { jti }))).status, 302);
});

t.test('50 concurrent callbacks with one token make exactly one session', async (t) => {
  const email = 'crowd@example.test';
  const token = ssoToken(key, 'replay.test', NOW_S, { email });
  const results = await Promise.all(Array.from({ length: 50 }, () => callback(app, token)));
  const winners = results.filter((r) => r.status === 302 && r.sessionCookie);
  t.equal(winners.length, 1, 'one sign-in');
  t.equal(results.filter((r) => r.status === 307 && r.reason === 'Token has already been used.' && !r.sessionCookie).length, 49);
  t.equal(await sessionsOf(email), 1, 'one session row');
  const created = await app.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  t.equal(created.length, 1, 'one user');
});

t.test('the used jti is kept until exp + tolerance, then purged (purgeUsedTokenIds, run by the housekeeping plugin)', async (t) => {
  const token = ssoToken(key, 'replay.test', NOW_S, { jti: 'kept-jti', exp: NOW_S + 120 });
  t.equal((await callback(app, token)).status, 302);
  const [row] = await app.db.select().from(usedTokenIds).where(eq(usedTokenIds.jti, 'kept-jti'));
  t.equal(row?.expiresAt.toISOString(), new Date((NOW_S + 120 + 30) * 1000).toISOString());
  await purgeUsedTokenIds(app.db, new Date((NOW_S + 149) * 1000));
  t.equal(
    (await app.db.select().from(usedTokenIds).where(eq(usedTokenIds.jti, 'kept-jti'))).length,
    1,
    'kept while the token could still pass',
  );
  await purgeUsedTokenIds(app.db, new Date((NOW_S + 151) * 1000));
  t.equal((await app.db.select().from(usedTokenIds).where(eq(usedTokenIds.jti, 'kept-jti'))).length, 0, 'purged once it cannot');
});

t.test('a sign-in costs 2 statements for a returning member and 3 for a new one; the jti and the session are one', async (t) => {
  const counter = countQueries(app.db);
  t.teardown(() => counter.restore());
  const statements = async (token: string) => {
    counter.reset();
    const res = await callback(app, token);
    t.equal(res.status, 302);
    // Expired token ids are purged by the housekeeping plugin's timer, never by a sign-in.
    return counter.statements;
  };
  const claims = { email: 'counted@example.test', membershipId: 'M-COUNTED' };
  const first = await statements(ssoToken(key, 'replay.test', NOW_S, claims));
  t.equal(first.length, 3, `new member: ${first.length} statements (find, create, token + session)`);
  const again = await statements(ssoToken(key, 'replay.test', NOW_S, claims));
  t.equal(again.length, 2, `returning member, nothing changed: ${again.length} statements (find, token + session)`);
  t.match(
    again[1],
    /insert into "used_token_ids".*insert into "sessions".*from spent/is,
    'the jti is spent and the session opened by one statement',
  );
});

t.test('a deactivated member is refused before the token is spent', async (t) => {
  const email = 'paused@example.test';
  const token = ssoToken(key, 'replay.test', NOW_S, { email, membershipId: 'M-PAUSED' });
  t.equal((await callback(app, token)).status, 302);
  await app.db.update(users).set({ isActive: false }).where(eq(users.email, email));
  const fresh = ssoToken(key, 'replay.test', NOW_S, { email, membershipId: 'M-PAUSED', jti: 'paused-second' });
  const refused = await callback(app, fresh);
  t.equal(refused.reason, 'member_inactive');
  t.equal((await app.db.select().from(usedTokenIds).where(eq(usedTokenIds.jti, 'paused-second'))).length, 0, 'not spent');
  await app.db.update(users).set({ isActive: true }).where(eq(users.email, email));
  t.equal((await callback(app, fresh)).status, 302, 'reactivated within the token lifetime: the same token signs in');
  t.equal((await callback(app, fresh)).reason, 'Token has already been used.', 'once');
  t.equal(await sessionsOf(email), 2);
});

t.test('a replayed token changes nothing, not even the tier: an older sub cannot be brought back', async (t) => {
  const email = 'regraded@example.test';
  const claims = { email, membershipId: 'M-REGRADED' };
  // The partner regrades the member within one token lifetime: the older token says mahasiswa.
  const older = ssoToken(key, 'replay.test', NOW_S, { ...claims, sub: 'mahasiswa' });
  t.equal((await callback(app, older)).status, 302);
  t.equal((await callback(app, ssoToken(key, 'replay.test', NOW_S, { ...claims, sub: 'umum' }))).status, 302);
  const tier = async () => (await app.db.select({ tier: users.tier }).from(users).where(eq(users.email, email)))[0]?.tier;
  t.equal(await tier(), 'umum');
  const replayed = await callback(app, older);
  t.equal(replayed.reason, 'Token has already been used.');
  t.equal(await tier(), 'umum', 'the replay did not bring back the older (cheaper) tier');
});
