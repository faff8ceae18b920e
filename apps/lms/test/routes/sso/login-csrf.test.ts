import { sessions } from '@lms/db';
import { hashToken } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { callback, callbackUrl, makePartnerKey, registerPartner, ssoToken } from '../../helpers/sso.js';

// Login CSRF, as the trust review found it: the gateway's Location (a sign-in link with its proof,
// valid 120 s) handed to a victim signed the victim's browser in as the attacker at once, and the
// victim went on working (buying, taking quizzes) in the attacker's account. Now a browser that
// holds another person's session is asked first; the link's token is not spent until it answers
// from the LMS's own page.

const now = new Date('2026-11-22T10:00:00Z');
const NOW_S = now.getTime() / 1000;
const ORIGIN = 'http://localhost:3000';
const { app } = await buildTestApp(t, { deps: { clock: () => now } });
const key = await makePartnerKey('csrf-1');
await registerPartner(app.db, { issuer: 'partner.test', pemKeys: [key] });

const signedIn = async (email: string, name: string) => {
  const result = await callback(app, ssoToken(key, 'partner.test', NOW_S, { email, name, membershipId: email }));
  t.equal(result.status, 302, `${email} signs in`);
  return result.sessionCookie!;
};
const victim = await signedIn('victim@example.test', 'Vera Victim');
const attackerLink = () =>
  callbackUrl(app, ssoToken(key, 'partner.test', NOW_S, { email: 'mallory@example.test', name: 'Mallory', membershipId: 'M-1' }));
const sessionAlive = async (cookie: string) =>
  (
    await app.db
      .select()
      .from(sessions)
      .where(eq(sessions.tokenHash, hashToken(cookie.split('=')[1]!)))
  ).length === 1;

function form(url: string, cookie: string, origin: string | null) {
  const query = new URL(url, ORIGIN).searchParams;
  return app.inject({
    method: 'POST',
    url: '/api/auth/sso/callback',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...(origin ? { origin } : {}) },
    payload: new URLSearchParams({ token: query.get('token')!, proof: query.get('proof')! }).toString(),
  });
}

t.test("attacker: the attacker's link opened in the victim's signed-in browser asks before switching", async (t) => {
  const link = attackerLink();
  const res = await app.inject({ url: link, headers: { cookie: `${victim}; lms_lang=en` } });
  t.equal(res.statusCode, 200, 'a question, not a sign-in');
  t.match(res.body, 'In this browser you are signed in as Vera Victim.');
  t.match(res.body, 'The link you opened would sign you in as a new account for mallory@example.test.');
  t.match(res.body, 'do not continue');
  t.notOk(
    res.cookies.some((c) => c.name === app.sessionCookieName),
    'no cookie is set',
  );
  t.ok(await sessionAlive(victim), "the victim's session is untouched");
  t.match(res.headers['content-security-policy'], "form-action 'self'", 'the answer can only go to the LMS');

  // The answer must come from the LMS's own page.
  t.equal((await form(link, victim, 'https://evil.example')).statusCode, 403, 'from another site: 403');
  t.equal((await form(link, victim, null)).statusCode, 403, 'without Origin: 403');
  t.ok(await sessionAlive(victim));

  // The victim, knowingly, continues: the token was not spent by the question.
  const answered = await form(link, victim, ORIGIN);
  t.equal(answered.statusCode, 303);
  t.equal(answered.headers.location, '/dashboard');
  t.ok(
    answered.cookies.some((c) => c.name === app.sessionCookieName && c.value !== ''),
    'the new session',
  );
  t.notOk(await sessionAlive(victim), "the previous person's session ended server-side");
  const replay = await form(link, victim, ORIGIN);
  t.match(replay.headers.location, /error=invalid_token/, 'the link works once');
});

t.test('no question where none is needed', async (t) => {
  const own = await signedIn('owner@example.test', 'Olga Owner');
  const again = await app.inject({
    url: callbackUrl(app, ssoToken(key, 'partner.test', NOW_S, { email: 'owner@example.test', membershipId: 'owner@example.test' })),
    headers: { cookie: own },
  });
  t.equal(again.statusCode, 302, 'the same person signing in again');
  t.equal(
    (await app.inject({ url: attackerLink(), headers: { cookie: 'lms_session_token=stale-unknown' } })).statusCode,
    302,
    'a stale cookie is no session',
  );
  // What is left (README): a browser with no session at all is signed in at once, as a partner's
  // link must do; the pages always say who is signed in.
  t.equal((await app.inject({ url: attackerLink() })).statusCode, 302, 'no session: signed in at once');
});
