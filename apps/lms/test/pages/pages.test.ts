import { chapterCompletions, chapters, courses, enrollments, modules, sessions, users } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { makeInstitution, makeUser } from '../helpers/fixtures.js';
import { callback, makePartnerKey, registerPartner, ssoToken } from '../helpers/sso.js';

// The sign-in page, the dashboard and sign-out, through HTTP with the cookie the callback set.
// The texts are checked in English, chosen by the language cookie (the Indonesian default and the
// choice of language: languages.test.ts).
const ENGLISH = 'lms_lang=en';
const now = new Date('2026-11-22T10:00:00Z');
const NOW_S = now.getTime() / 1000;
const { app } = await buildTestApp(t, { deps: { clock: () => now } });
const db = app.db;
const key = await makePartnerKey('pages-1');
await registerPartner(db, { issuer: 'pages.test', pemKeys: [key] });
const ORIGIN = 'http://localhost:3000'; // PUBLIC_URL of the test config

async function signIn(claims: Record<string, unknown> = {}): Promise<string> {
  const res = await callback(app, ssoToken(key, 'pages.test', NOW_S, claims));
  if (!res.sessionCookie) throw new Error(`sign-in failed: ${res.error} ${res.reason}`);
  return res.sessionCookie;
}

t.test('the dashboard without a session redirects to /sign-in', async (t) => {
  const none = await app.inject('/dashboard');
  t.equal(none.statusCode, 302);
  t.equal(none.headers.location, '/sign-in');
  const bogus = await app.inject({ url: '/dashboard', headers: { cookie: 'lms_session_token=not-a-session' } });
  t.equal(bogus.statusCode, 302);
  t.equal(bogus.headers.location, '/sign-in');
});

t.test('the dashboard shows the signed-in member and their courses with progress', async (t) => {
  const cookie = await signIn({ email: 'dewi@example.test', name: 'Dewi <Lestari>', membershipId: 'IAI-42', sub: 'member' });
  const user = (await db.select().from(users).where(eq(users.email, 'dewi@example.test')))[0]!;
  const teacher = await makeUser(db, { role: 'teacher' });
  const institutionId = await makeInstitution(db);
  const [course] = await db.insert(courses).values({ name: 'Audit & Assurance', teacherId: teacher.id, institutionId }).returning();
  const [mod] = await db.insert(modules).values({ courseId: course!.id, name: 'M1' }).returning();
  const chapterRows = await db
    .insert(chapters)
    .values([1, 2, 3, 4].map((i) => ({ moduleId: mod!.id, courseId: course!.id, name: `C${i}`, orderIndex: i })))
    .returning();
  await db.insert(enrollments).values({ userId: user.id, courseId: course!.id });
  await db.insert(chapterCompletions).values({ userId: user.id, chapterId: chapterRows[0]!.id, courseId: course!.id });

  const res = await app.inject({ url: '/dashboard', headers: { cookie: `${cookie}; ${ENGLISH}` } });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/html/);
  t.equal(res.headers['cache-control'], 'no-store');
  const html = res.body;
  t.match(html, 'Dewi &lt;Lestari&gt;', 'the name, escaped');
  t.notMatch(html, '<Lestari>');
  t.match(html, 'dewi@example.test');
  t.match(html, '<dt>Tier</dt><dd>Member</dd>');
  t.match(html, 'IAI-42');
  t.match(html, 'Audit &amp; Assurance');
  t.match(html, '1 / 4');
  t.match(html, 'aria-valuenow="25"', 'a progress bar at 25%');
  t.match(html, 'action="/api/auth/sign-out"');
  t.notMatch(html, /<script|https?:\/\//, "a learner's dashboard is self-contained: no script, nothing from elsewhere");
  t.match(res.headers['content-security-policy'], "script-src 'self'");
});

t.test('a member without courses is told so', async (t) => {
  const cookie = await signIn();
  const res = await app.inject({ url: '/dashboard', headers: { cookie: `${cookie}; ${ENGLISH}` } });
  t.equal(res.statusCode, 200);
  t.match(res.body, 'You are not enrolled in any course yet.');
});

t.test('sign-out ends the session server-side and clears the cookie', async (t) => {
  const cookie = await signIn({ email: 'leaving@example.test' });
  const user = (await db.select().from(users).where(eq(users.email, 'leaving@example.test')))[0]!;
  t.equal((await db.select().from(sessions).where(eq(sessions.userId, user.id))).length, 1);

  const res = await app.inject({ method: 'POST', url: '/api/auth/sign-out', headers: { cookie, origin: ORIGIN } });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { success: true });
  const cleared = res.cookies.find((c) => c.name === 'lms_session_token');
  t.equal(cleared?.value, '', 'the cookie is cleared');
  t.equal((await db.select().from(sessions).where(eq(sessions.userId, user.id))).length, 0, 'the session row is gone');
  const after = await app.inject({ url: '/dashboard', headers: { cookie } });
  t.equal(after.statusCode, 302, 'the old cookie no longer opens the dashboard');
  t.equal(after.headers.location, '/sign-in');
});

t.test('the dashboard form signs out with a 303 to /sign-in', async (t) => {
  const cookie = await signIn();
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/sign-out',
    // What a browser sends for the dashboard's form: an empty urlencoded body.
    headers: { cookie, origin: ORIGIN, accept: 'text/html,application/xhtml+xml', 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  t.equal(res.statusCode, 303);
  t.equal(res.headers.location, '/sign-in');
  t.equal((await app.inject({ url: '/dashboard', headers: { cookie } })).statusCode, 302, 'signed out');
});

t.test('sign-out from another origin, or without Origin, is refused (CSRF) and keeps the session', async (t) => {
  const cookie = await signIn();
  const foreign = await app.inject({ method: 'POST', url: '/api/auth/sign-out', headers: { cookie, origin: 'https://evil.example' } });
  t.equal(foreign.statusCode, 403);
  t.equal(foreign.json().success, false);
  const bare = await app.inject({ method: 'POST', url: '/api/auth/sign-out', headers: { cookie } });
  t.equal(bare.statusCode, 403);
  const sameSite = await app.inject({ method: 'POST', url: '/api/auth/sign-out', headers: { cookie, 'sec-fetch-site': 'same-site' } });
  t.equal(sameSite.statusCode, 403);
  t.equal((await app.inject({ url: '/dashboard', headers: { cookie } })).statusCode, 200, 'still signed in');
  const fetchSameOrigin = await app.inject({
    method: 'POST',
    url: '/api/auth/sign-out',
    headers: { cookie, 'sec-fetch-site': 'same-origin' },
  });
  t.equal(fetchSameOrigin.statusCode, 200);
});

t.test('/sign-in explains errors in plain words, escaped', async (t) => {
  const get = (url: string) => app.inject({ url, headers: { cookie: ENGLISH } });
  const expired = await get(`/sign-in?error=invalid_token&reason=${encodeURIComponent('"exp" claim timestamp check failed')}`);
  t.equal(expired.statusCode, 200);
  t.match(expired.headers['content-type'], /^text\/html/);
  t.match(expired.body, 'The sign-in link has expired');
  t.match(expired.body, '&quot;exp&quot; claim timestamp check failed', 'the technical reason, escaped');

  const inactive = await get('/sign-in?error=sso_failed&reason=member_inactive');
  t.match(inactive.body, 'Your account is not active');
  const missing = await get('/sign-in?error=missing_token');
  t.match(missing.body, 'did not carry a sign-in token');
  const replay = await get(`/sign-in?error=invalid_token&reason=${encodeURIComponent('Token has already been used.')}`);
  t.match(replay.body, 'has already been used');

  const hostile = await get(
    `/sign-in?error=invalid_token&reason=${encodeURIComponent('Unsupported SSO issuer: <script>alert(1)</script>')}`,
  );
  t.match(hostile.body, 'not registered for signing in here');
  t.notMatch(hostile.body, '<script>');
  t.match(hostile.body, '&lt;script&gt;alert(1)&lt;/script&gt;');

  const plain = await get('/sign-in');
  t.equal(plain.statusCode, 200);
  t.notMatch(plain.body, 'role="alert"', 'no error block without an error');
});

t.test('a failed sign-in lands on a page that explains it (following the redirect)', async (t) => {
  const res = await callback(app, ssoToken(key, 'pages.test', NOW_S, { aud: 'evil.example' }));
  const page = await app.inject({ url: res.location!, headers: { cookie: ENGLISH } });
  t.equal(page.statusCode, 200);
  t.match(page.body, 'The sign-in link was not meant for this site.');
});
