import { Writable } from 'node:stream';
import t from 'tap';
import { startDemoPartner, startLms } from './helpers/services.js';

// A partner's SSO token is a bearer credential until it expires, and it travels in URLs:
// `{lms}/sso/verify?token=` and `{lms}/api/auth/sso/callback?token=`. The LMS's own log output
// (pino, as the server writes it) for a whole sign-in must not contain it.

t.test('the LMS logs a whole SSO sign-in without the token', async (t) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const lms = await startLms(t, {}, 0, { level: 'info', stream });
  const { partnerUrl } = await startDemoPartner(t, lms.url, lms.db.db);

  const login = await fetch(
    `${partnerUrl}/login?${new URLSearchParams({ email: 'logged@example.org', name: 'Log Test', membershipId: 'LOG-1', tier: 'member' })}`,
    {
      redirect: 'manual',
    },
  );
  const atLms = login.headers.get('location')!;
  const token = new URL(atLms).searchParams.get('token')!;
  t.ok(token.split('.').length === 3, 'the partner sent the browser on with a JWT');

  const verify = await fetch(atLms, { redirect: 'manual' });
  t.equal(verify.status, 307);
  const callback = await fetch(new URL(verify.headers.get('location')!, lms.url), { redirect: 'manual' });
  t.equal(callback.status, 302);
  t.equal(callback.headers.get('location'), '/dashboard', 'signed in');
  // A replay and a broken token are logged too (refusals), still without the token.
  t.equal((await fetch(new URL(verify.headers.get('location')!, lms.url), { redirect: 'manual' })).status, 307);
  t.equal((await fetch(`${lms.url}/api/auth/sso/callback?TOKEN=${token}x&token=${token}`, { redirect: 'manual' })).status, 307);

  const logged = lines.join('\n');
  t.ok(lines.length >= 8, `the requests were logged (${lines.length} lines)`);
  t.match(
    logged,
    /"url":"\/sso\/verify\?token=\[redacted\]&proof=\[redacted\]"/,
    'the verify request is logged, redacted (token and gateway proof)',
  );
  t.match(logged, /"url":"\/api\/auth\/sso\/callback\?token=\[redacted\]&proof=\[redacted\]"/, 'so is the callback');
  for (const [i, part] of token.split('.').entries()) t.notOk(logged.includes(part), `no segment ${i} of the token in any line`);
});
