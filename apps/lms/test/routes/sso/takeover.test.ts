import { setTimeout as delay } from 'node:timers/promises';
import { createDb, hashToken, identities, sessions, users } from '@lms/db';
import { and, eq, inArray, sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { findAnswerKeys } from '../../helpers/answer-keys.js';
import { buildTestApp } from '../../helpers/app.js';
import { makeCourse, makeCourseTree } from '../../helpers/catalog-fixtures.js';
import { cliFor } from '../../helpers/cli.js';
import { makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { type CallbackResult, callback, makePartnerKey, registerPartner, ssoToken } from '../../helpers/sso.js';
import { beforeStatement } from '../../helpers/statement-hook.js';

// Account takeover through SSO (issue 12, docs/architecture.md, "Identity on SSO"): a registered
// partner's token reaches an account only through an identity of that partner, (iss, membershipId).
// An e-mail is never a key: a token carrying a staff member's, or another partner's member's,
// e-mail is refused (sso_failed / email_in_use) and the account is left exactly as it was. Staff
// sign in through a partner only by an operator's `lms-admin user link`. Every attack goes through
// the callback, as a partner's browser hand-off would.
const now = new Date('2026-11-22T10:00:00Z');
const NOW_S = now.getTime() / 1000;
const { app, db: testDb } = await buildTestApp(t, { deps: { clock: () => now } });
const db = testDb.db;
const cli = cliFor(testDb);

const A = 'partner-a.test';
const B = 'partner-b.test';
const keyA = await makePartnerKey('a-1');
const keyB = await makePartnerKey('b-1');
await registerPartner(db, { issuer: A, pemKeys: [keyA] });
await registerPartner(db, { issuer: B, pemKeys: [keyB] });
const tokenA = (claims: Record<string, unknown>) => ssoToken(keyA, A, NOW_S, claims);
const tokenB = (claims: Record<string, unknown>) => ssoToken(keyB, B, NOW_S, claims);

// The platform's staff, and a draft course with answer keys only they may see.
const institutionId = await makeInstitution(db);
const superAdmin = await makeUser(db, { role: 'super_admin', email: 'root@lms.test', name: 'Root Operator' });
const teacher = await makeUser(db, { role: 'teacher', email: 'guru@lms.test', name: 'Guru Pemilik', institutionId });
const draft = await makeCourse(db, { institutionId, teacherId: teacher.id, isPublished: false, name: 'Unreleased exam prep' });
await makeCourseTree(db, draft.id, [1]);

const userRow = async (id: string) => (await db.select().from(users).where(eq(users.id, id)))[0];
const userByEmail = async (email: string) => (await db.select().from(users).where(eq(users.email, email)))[0];
const identitiesOf = (userId: string) =>
  db
    .select({ issuer: identities.issuer, membershipId: identities.membershipId, origin: identities.origin })
    .from(identities)
    .where(eq(identities.userId, userId));
const sessionCount = async (userId: string) => (await db.select().from(sessions).where(eq(sessions.userId, userId))).length;
/** The account a session cookie ("name=token") opened a session for. */
async function sessionUser(cookie: string | undefined): Promise<string | undefined> {
  if (!cookie) return undefined;
  const [row] = await db
    .select({ userId: sessions.userId })
    .from(sessions)
    .where(eq(sessions.tokenHash, hashToken(cookie.slice(cookie.indexOf('=') + 1))));
  return row?.userId;
}
/** What the draft's detail gives to whoever holds the callback's cookie (nothing is sent without one). */
const draftWith = (res: CallbackResult) =>
  app.inject({ url: `/api/courses/${draft.id}`, headers: res.sessionCookie ? { cookie: res.sessionCookie } : {} });

function assertRefused(t: Test, res: CallbackResult, reason = 'email_in_use') {
  t.equal(res.status, 307, 'redirected to the sign-in page');
  t.equal(res.error, 'sso_failed');
  t.equal(res.reason, reason);
  t.equal(res.sessionCookie, undefined, 'no session cookie');
}

t.test('(a) a registered partner puts a staff e-mail in its token: refused, the account unchanged, nothing to use', async (t) => {
  for (const target of [superAdmin, teacher]) {
    const before = await userRow(target.id);
    const identitiesBefore = await db.select().from(identities);
    for (const email of [target.email, target.email.toUpperCase()]) {
      const res = await callback(app, tokenA({ email, membershipId: 'EVIL-1', name: 'Attacker', sub: 'mahasiswa' }));
      assertRefused(t, res);
      t.same(await userRow(target.id), before, `${target.role} (${email}): role, tier, membershipId, name as they were`);
      t.same(await identitiesOf(target.id), [], `${target.role}: no identity added`);
      t.equal(await sessionCount(target.id), 0, `${target.role}: no session`);
      t.same(await db.select().from(identities), identitiesBefore, 'no identity at all was made for the token');

      // Whatever the attacker holds after the hand-off opens nothing: no draft, no answer key.
      const detail = await draftWith(res);
      t.equal(detail.statusCode, 401);
      t.same(findAnswerKeys(detail.json()), []);
      t.notMatch(detail.body, 'Unreleased exam prep');
    }
  }
  // The account list is unchanged too: no look-alike account was created for the token.
  t.equal(
    (
      await db
        .select()
        .from(users)
        .where(inArray(users.membershipId, ['EVIL-1']))
    ).length,
    0,
  );
});

t.test('(a) the refusal lands on a sign-in page that says why in plain words', async (t) => {
  const res = await callback(app, tokenA({ email: superAdmin.email, membershipId: 'EVIL-2' }));
  // In English, by the language cookie (the page is Indonesian by default: test/pages/languages.test.ts).
  const page = await app.inject({ url: res.location!, headers: { cookie: 'lms_lang=en' } });
  t.equal(page.statusCode, 200);
  t.match(page.body, 'An account with your e-mail address already exists here, but it is not connected to your organisation');
  t.match(page.body, 'nothing about it was changed');
});

t.test("(b) partner B cannot take over partner A's member", async (t) => {
  const first = await callback(app, tokenA({ email: 'siti@members-a.test', name: 'Siti A', membershipId: 'A-100', sub: 'member' }));
  t.equal(first.status, 302, "A's member signs in through A");
  const siti = await userByEmail('siti@members-a.test');
  t.equal(await sessionUser(first.sessionCookie), siti!.id);
  const sitiBefore = await userRow(siti!.id);

  // B's token with A's member's e-mail (any membershipId of B's).
  for (const membershipId of ['B-1', 'A-100']) {
    const res = await callback(app, tokenB({ email: 'siti@members-a.test', name: 'Not Siti', membershipId, sub: 'umum' }));
    assertRefused(t, res);
  }
  t.same(await userRow(siti!.id), sitiBefore, "A's member unchanged (tier, membershipId, name)");
  t.same(await identitiesOf(siti!.id), [{ issuer: A, membershipId: 'A-100', origin: 'sso' }], 'still only her identity of A');
  t.equal(await sessionCount(siti!.id), 1, 'no session but her own');

  // B's token with A's member's membershipId and B's own e-mail: another person, another account.
  const other = await callback(app, tokenB({ email: 'budi@members-b.test', membershipId: 'A-100', sub: 'umum' }));
  t.equal(other.status, 302);
  const otherId = await sessionUser(other.sessionCookie);
  t.ok(otherId);
  t.not(otherId, siti!.id, "never A's member's account");
  t.same(await identitiesOf(otherId!), [{ issuer: B, membershipId: 'A-100', origin: 'sso' }]);
  // From now on B's (B, A-100) leads to B's own member, whatever e-mail B puts in: still never Siti.
  const again = await callback(app, tokenB({ email: 'siti@members-a.test', membershipId: 'A-100' }));
  t.equal(await sessionUser(again.sessionCookie), otherId);
  t.same(await userRow(siti!.id), sitiBefore);
  t.equal(await sessionCount(siti!.id), 1);
});

t.test('(c) a staff account linked by an operator signs in through that partner only', async (t) => {
  const link = await cli('user', 'link', '--email', teacher.email, '--iss', A, '--membership-id', 'STAFF-9');
  t.equal(link.code, 0, link.err);
  t.same(await identitiesOf(teacher.id), [{ issuer: A, membershipId: 'STAFF-9', origin: 'operator' }]);

  const res = await callback(app, tokenA({ email: teacher.email, name: 'Ignored', membershipId: 'STAFF-9', sub: 'mahasiswa' }));
  t.equal(res.status, 302);
  t.equal(res.location, '/dashboard');
  t.equal(await sessionUser(res.sessionCookie), teacher.id, 'signed in as the teacher');
  t.match(
    await userRow(teacher.id),
    { role: 'teacher', name: 'Guru Pemilik', tier: 'mahasiswa', email: teacher.email },
    'role and name kept, tier from sub',
  );
  const detail = await draftWith(res);
  t.equal(detail.statusCode, 200, 'a real session: the owner sees the draft');
  t.ok(findAnswerKeys(detail.json()).length > 0, 'with its answer keys');

  // Partner Y with the same membership id and e-mail gets nothing.
  const afterA = await userRow(teacher.id);
  const sessionsBefore = await sessionCount(teacher.id);
  assertRefused(t, await callback(app, tokenB({ email: teacher.email, membershipId: 'STAFF-9', sub: 'member' })));
  t.same(await userRow(teacher.id), afterA, 'tier not touched by B');
  t.same(await identitiesOf(teacher.id), [{ issuer: A, membershipId: 'STAFF-9', origin: 'operator' }]);
  t.equal(await sessionCount(teacher.id), sessionsBefore);
});

t.test('(d) after user unlink the link no longer signs in', async (t) => {
  const signedIn = await callback(app, tokenA({ email: teacher.email, membershipId: 'STAFF-9' }));
  t.equal(signedIn.status, 302);
  const unlink = await cli('user', 'unlink', '--email', teacher.email, '--iss', A);
  t.equal(unlink.code, 0, unlink.err);
  t.match(unlink.out, /membership id STAFF-9, origin operator\); \d+ sessions? ended/);
  t.equal(await sessionCount(teacher.id), 0, "the teacher's sessions ended");
  t.equal((await draftWith(signedIn)).statusCode, 401, 'the session opened through the link is over');

  const before = await userRow(teacher.id);
  assertRefused(t, await callback(app, tokenA({ email: teacher.email, membershipId: 'STAFF-9', sub: 'umum' })));
  t.same(await userRow(teacher.id), before);
  t.same(await identitiesOf(teacher.id), []);
});

t.test('(d) an unlink that lands between finding the account and opening the session leaves no session', async (t) => {
  const second = await makeUser(db, { role: 'teacher', email: 'guru2@lms.test' });
  t.equal((await cli('user', 'link', '--email', second.email, '--iss', A, '--membership-id', 'STAFF-RACE')).code, 0);
  let unlinked = '';
  const hook = beforeStatement(db, /insert into "used_token_ids"/i, async () => {
    unlinked = (await cli('user', 'unlink', '--email', second.email, '--iss', A)).out;
  });
  t.teardown(() => hook.restore());
  const res = await callback(app, tokenA({ email: second.email, membershipId: 'STAFF-RACE' }));
  t.ok(hook.happened(), 'the unlink ran between the two statements of the sign-in');
  t.match(unlinked, 'Unlinked guru2@lms.test');
  assertRefused(t, res);
  t.equal(await sessionCount(second.id), 0, 'no session outlives the unlink');
});

// Two transactions at once need PostgreSQL (PGlite has one connection, where the two cannot overlap).
if (testDb.url) {
  t.test('(d) PostgreSQL: a sign-in whose session statement meets an unlink in progress waits for it, then opens nothing', async (t) => {
    const third = await makeUser(db, { role: 'teacher', email: 'guru3@lms.test' });
    t.equal((await cli('user', 'link', '--email', third.email, '--iss', A, '--membership-id', 'STAFF-LOCK')).code, 0);
    const operator = createDb({ databaseUrl: testDb.url, poolMax: 1 });
    t.teardown(() => operator.close());
    let signIn: Promise<CallbackResult> | undefined;
    let waited = false;
    // The operator's unlink, statement by statement: the identity goes first (uncommitted) ...
    await operator.db.transaction(async (tx) => {
      await tx.delete(identities).where(eq(identities.userId, third.id));
      let settled = false;
      signIn = callback(app, tokenA({ email: third.email, membershipId: 'STAFF-LOCK' })).finally(() => {
        settled = true;
      });
      // ... the sign-in still finds the account (the delete is not committed), and its session
      // statement must wait on the identity's row lock rather than open a session ...
      while (!settled && !waited) {
        const { rows } = await db.execute<{ n: number }>(
          sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        waited = rows[0]!.n > 0;
        if (!waited) await delay(5);
      }
      // ... then the sessions, and the commit.
      await tx.delete(sessions).where(eq(sessions.userId, third.id));
    });
    t.ok(waited, 'the session statement waited for the unlink');
    assertRefused(t, await signIn!);
    t.equal(await sessionCount(third.id), 0, 'no session outlives the unlink');
  });
}

t.test('(e) 20 concurrent first sign-ins of one new identity: one account, one identity, all signed in to it', async (t) => {
  const claims = { email: 'crowd@members-a.test', membershipId: 'A-CROWD', name: 'Crowd Member' };
  const results = await Promise.all(Array.from({ length: 20 }, () => callback(app, tokenA(claims))));
  t.same(
    results.map((r) => r.status),
    Array(20).fill(302),
    'every one signed in',
  );
  const accounts = await db.select().from(users).where(eq(users.email, 'crowd@members-a.test'));
  t.equal(accounts.length, 1, 'one account');
  const userIds = new Set(await Promise.all(results.map((r) => sessionUser(r.sessionCookie))));
  t.same([...userIds], [accounts[0]!.id], 'every session is of that account');
  t.same(await identitiesOf(accounts[0]!.id), [{ issuer: A, membershipId: 'A-CROWD', origin: 'sso' }], 'one identity');
  t.equal(await sessionCount(accounts[0]!.id), 20);
});

t.test('(f) concurrent first sign-ins with one e-mail under different membership ids: one account, the others refused', async (t) => {
  const ids = Array.from({ length: 10 }, (_, i) => `A-SAME-${i}`);
  const results = await Promise.all(ids.map((membershipId) => callback(app, tokenA({ email: 'same@members-a.test', membershipId }))));
  const winners = results.filter((r) => r.status === 302);
  t.equal(winners.length, 1, 'one signed in');
  t.equal(
    results.filter((r) => r.status === 307 && r.error === 'sso_failed' && r.reason === 'email_in_use' && !r.sessionCookie).length,
    9,
    'the others refused with email_in_use',
  );
  const accounts = await db.select().from(users).where(eq(users.email, 'same@members-a.test'));
  t.equal(accounts.length, 1, 'one account');
  t.equal(await sessionUser(winners[0]!.sessionCookie), accounts[0]!.id);
  const made = await db
    .select()
    .from(identities)
    .where(and(eq(identities.issuer, A), inArray(identities.membershipId, ids)));
  t.equal(made.length, 1, 'one identity, of that account');
  t.equal(made[0]!.userId, accounts[0]!.id);
  t.equal(accounts[0]!.membershipId, made[0]!.membershipId, "the account's member number is the winning token's");
});

t.test('a first sign-in that loses its identity to a concurrent one (another e-mail) lands on the account that won', async (t) => {
  // The losing statement creates the user and then violates the identity's primary key: the
  // whole statement is undone (no stray account), the violation comes wrapped by Drizzle, and
  // the sign-in looks again and finds the identity.
  let winner: CallbackResult | undefined;
  const hook = beforeStatement(db, /insert into "users"/i, async () => {
    winner = await callback(app, tokenA({ email: 'new.address@members-a.test', membershipId: 'A-MOVED' }));
  });
  t.teardown(() => hook.restore());
  const loser = await callback(app, tokenA({ email: 'old.address@members-a.test', membershipId: 'A-MOVED' }));
  t.ok(hook.happened());
  t.equal(winner?.status, 302);
  t.equal(loser.status, 302);
  const account = await userByEmail('new.address@members-a.test');
  t.equal(await sessionUser(winner?.sessionCookie), account!.id);
  t.equal(await sessionUser(loser.sessionCookie), account!.id, 'the same person, through the same identity');
  t.equal(await userByEmail('old.address@members-a.test'), undefined, 'no account half-made for the losing e-mail');
});
