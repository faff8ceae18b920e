import { identities, users } from '@lms/db';
import { DEMO_TEACHER_EMAIL, seedDemo } from '@lms/db/seed';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { startDemoPartner, startLms } from './helpers/services.js';

// The whole SSO chain with real HTTP servers on the loopback and a browser-like cookie jar:
// partner backend → gateway 302 → LMS /sso/verify 307 → callback 302 (cookie) → /dashboard.

/** A browser that keeps cookies per origin and follows no redirect by itself. */
function browser() {
  const jar = new Map<string, Map<string, string>>();
  return {
    async get(url: string) {
      const origin = new URL(url).origin;
      const cookies = jar.get(origin);
      const res = await fetch(url, {
        redirect: 'manual',
        headers: cookies ? { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {},
      });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const [name, value] = pair!.split('=') as [string, string];
        if (!jar.has(origin)) jar.set(origin, new Map());
        jar.get(origin)!.set(name.trim(), value);
      }
      return res;
    },
    cookiesOf(origin: string) {
      return jar.get(origin) ?? new Map();
    },
  };
}

t.test('a member goes from the partner site to the LMS dashboard', async (t) => {
  const lms = await startLms(t);
  const { partnerUrl } = await startDemoPartner(t, lms.url, lms.db.db);

  const b = browser();
  const login = await b.get(
    `${partnerUrl}/login?${new URLSearchParams({ email: 'Siti.Rahma@example.org', name: 'Siti Rahma', membershipId: 'IAI-000123', tier: 'member' })}`,
  );
  t.equal(login.status, 302, 'the partner answers the browser with the gateway\'s Location');
  const atLms = login.headers.get('location')!;
  t.match(atLms, `${lms.url}/sso/verify?token=`);

  const verify = await b.get(atLms);
  t.equal(verify.status, 307);
  const callbackUrl = new URL(verify.headers.get('location')!, lms.url).toString();
  t.match(callbackUrl, `${lms.url}/api/auth/sso/callback?token=`);

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
  t.match(await lms.db.db.select().from(identities).where(eq(identities.userId, user!.id)), [{ issuer: 'demo-partner.local', membershipId: 'IAI-000123' }]);

  // The same link again is a replay: refused, no new session.
  const replay = await b.get(callbackUrl);
  t.equal(replay.status, 307);
  t.match(replay.headers.get('location'), /^\/sign-in\?error=invalid_token/);
});

t.test("README walk-through: the demo teacher signs in through the demo partner's form under STAFF-001 only", async (t) => {
  const lms = await startLms(t);
  const { partnerUrl } = await startDemoPartner(t, lms.url, lms.db.db);
  // seed demo finds the demo partner registered and links the demo staff to it.
  await seedDemo(lms.db.db);

  /** The partner's form submitted, and every hop followed as a browser would. */
  async function throughPartner(member: Record<string, string>) {
    const b = browser();
    const login = await b.get(`${partnerUrl}/login?${new URLSearchParams({ tier: 'member', ...member })}`);
    const verify = await b.get(login.headers.get('location')!);
    const callback = await b.get(new URL(verify.headers.get('location')!, lms.url).toString());
    return { b, callback };
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
