import { identities, users } from '@lms/db';
import { DEMO_TEACHER_EMAIL, seedDemo } from '@lms/db/seed';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { cookieBrowser, signInThroughPartner } from './helpers/cookie-browser.js';
import { startDemoPartner, startLms } from './helpers/services.js';

// The whole SSO chain with real HTTP servers on the loopback and a browser-like cookie jar:
// partner backend → gateway 302 → LMS /sso/verify 307 → callback 302 (cookie) → /dashboard.

t.test('a member goes from the partner site to the LMS dashboard', async (t) => {
  const lms = await startLms(t);
  const { partnerUrl } = await startDemoPartner(t, lms.url, lms.db.db);

  const b = cookieBrowser();
  const login = await b.get(
    `${partnerUrl}/login?${new URLSearchParams({ email: 'Siti.Rahma@example.org', name: 'Siti Rahma', membershipId: 'IAI-000123', tier: 'member' })}`,
  );
  t.equal(login.status, 302, "the partner answers the browser with the gateway's Location");
  const atLms = login.headers.get('location')!;
  t.match(atLms, `${lms.url}/sso/verify?token=`);
  t.match(atLms, /&proof=\d+\.[\w-]{43}$/, "with the gateway's proof");

  const verify = await b.get(atLms);
  t.equal(verify.status, 307);
  const callbackUrl = new URL(verify.headers.get('location')!, lms.url).toString();
  t.match(callbackUrl, `${lms.url}/api/auth/sso/callback?token=`);
  t.equal(new URL(callbackUrl).searchParams.get('proof'), new URL(atLms).searchParams.get('proof'), 'the LMS carries the proof along');

  const callback = await b.get(callbackUrl);
  t.equal(callback.status, 302);
  t.equal(callback.headers.get('location'), '/dashboard');
  t.ok(b.cookiesOf(lms.url).get(lms.app.sessionCookieName), 'the session cookie is set on the LMS origin');
  t.equal(b.cookiesOf(partnerUrl).size, 0, 'and not on the partner backend');

  const dashboard = await b.get(`${lms.url}/dashboard`);
  t.equal(dashboard.status, 200);
  const html = await dashboard.text();
  t.match(html, 'Siti Rahma');
  t.match(html, 'IAI-000123');

  const [user] = await lms.db.db.select().from(users).where(eq(users.email, 'siti.rahma@example.org'));
  t.match(user, { name: 'Siti Rahma', tier: 'anggota', membershipId: 'IAI-000123', role: 'student' });
  t.match(await lms.db.db.select().from(identities).where(eq(identities.userId, user!.id)), [
    { issuer: 'demo-partner.local', membershipId: 'IAI-000123' },
  ]);

  // The same link again is a replay: refused, no new session.
  const replay = await b.get(callbackUrl);
  t.equal(replay.status, 307);
  t.match(replay.headers.get('location'), /^\/sign-in\?error=invalid_token/);
});

t.test("a valid partner token sent straight to the LMS, without the gateway's proof, is refused", async (t) => {
  const lms = await startLms(t);
  const { partnerUrl } = await startDemoPartner(t, lms.url, lms.db.db);

  // A real token of the partner: the one its backend just got through the gateway, taken out of
  // the Location (as anyone who sees the URL could) and sent to the LMS without the proof.
  const b = cookieBrowser();
  const login = await b.get(
    `${partnerUrl}/login?${new URLSearchParams({ email: 'budi@example.org', membershipId: 'IAI-000777', tier: 'member' })}`,
  );
  const viaGateway = new URL(login.headers.get('location')!);
  t.ok(viaGateway.searchParams.get('proof'), "the gateway's Location carries a proof");
  const token = viaGateway.searchParams.get('token')!;

  const straight = await b.get(`${lms.url}/sso/verify?${new URLSearchParams({ token })}`);
  t.equal(straight.status, 307);
  const callback = await b.get(new URL(straight.headers.get('location')!, lms.url).toString());
  t.equal(callback.status, 307, 'refused: back to the sign-in page');
  const refused = new URL(callback.headers.get('location')!, lms.url);
  t.equal(refused.pathname, '/sign-in');
  t.equal(refused.searchParams.get('error'), 'invalid_token');
  t.equal(refused.searchParams.get('reason'), 'The sign-in did not come through the gateway: no gateway proof.');
  t.equal(b.cookiesOf(lms.url).size, 0, 'no session cookie');
  t.equal((await lms.db.db.select().from(users).where(eq(users.email, 'budi@example.org'))).length, 0, 'no account created');

  // With another token's proof (a real one, from an earlier sign-in through the gateway): refused too.
  const other = new URL(
    (
      await b.get(`${partnerUrl}/login?${new URLSearchParams({ email: 'ani@example.org', membershipId: 'IAI-000778', tier: 'member' })}`)
    ).headers.get('location')!,
  );
  const borrowed = await b.get(
    `${lms.url}/api/auth/sso/callback?${new URLSearchParams({ token, proof: other.searchParams.get('proof')! })}`,
  );
  t.match(new URL(borrowed.headers.get('location')!, lms.url).searchParams.get('reason'), /does not match this token/);

  // The same token as the gateway handed it on still signs in: the refusals spent nothing.
  const verify = await b.get(viaGateway.toString());
  const signedIn = await b.get(new URL(verify.headers.get('location')!, lms.url).toString());
  t.equal(signedIn.status, 302);
  t.equal(signedIn.headers.get('location'), '/dashboard');
});

t.test("README walk-through: the demo teacher signs in through the demo partner's form under STAFF-001 only", async (t) => {
  const lms = await startLms(t);
  const { partnerUrl } = await startDemoPartner(t, lms.url, lms.db.db);
  // seed demo finds the demo partner registered and links the demo staff to it.
  await seedDemo(lms.db.db);

  /** The partner's form submitted, and every hop followed as a browser would. */
  async function throughPartner(member: Record<string, string>) {
    const b = cookieBrowser();
    return { b, ...(await signInThroughPartner(b, partnerUrl, member)) };
  }

  const teacher = await throughPartner({ email: DEMO_TEACHER_EMAIL, membershipId: 'STAFF-001' });
  t.equal(teacher.callback.status, 302);
  t.equal(teacher.callback.headers.get('location'), '/dashboard');
  const dashboard = await teacher.b.get(`${lms.url}/dashboard`);
  t.equal(dashboard.status, 200);
  t.match(await dashboard.text(), 'Budi Santoso', "the demo teacher's own dashboard");
  const [account] = await lms.db.db.select().from(users).where(eq(users.email, DEMO_TEACHER_EMAIL));
  t.equal(account!.role, 'teacher');

  const other = await throughPartner({ email: DEMO_TEACHER_EMAIL, membershipId: 'STAFF-999' });
  t.equal(other.callback.status, 307, 'the same e-mail under another membership ID is refused');
  t.equal(other.callback.headers.get('location'), '/sign-in?error=sso_failed&reason=email_in_use');
  t.equal(other.b.cookiesOf(lms.url).get(lms.app.sessionCookieName), undefined);
});
