import { hashToken, sessions } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { createSession } from '../../src/domain/sessions.js';
import { buildTestApp } from '../helpers/app.js';
import { makeUser } from '../helpers/fixtures.js';

// Only the configured cookie name is a session. Accepting "any name ending in session_token"
// let a cookie planted without Secure, by a sibling subdomain or a plain-http page (for instance
// `evil_session_token`, or `lms_session_token` next to `__Host-lms_session_token`), stand in for
// the real one: the `__Host-` prefix would mean nothing.

for (const publicUrl of ['http://localhost:3000', 'https://lms.example.test']) {
  t.test(`cookie names with PUBLIC_URL ${publicUrl}`, async (t) => {
    const { app, db } = await buildTestApp(t, { config: { PUBLIC_URL: publicUrl } });
    app.get('/whoami', { config: { auth: true } }, async (request) => ({ userId: request.caller!.userId }));
    await app.ready();
    const expected = publicUrl.startsWith('https:') ? '__Host-lms_session_token' : 'lms_session_token';
    t.equal(app.sessionCookieName, expected);

    const alice = await makeUser(db.db, { role: 'teacher' });
    const mallory = await makeUser(db.db, { role: 'teacher' });
    const aliceSession = await createSession(app.db, alice.id, app.clock(), 3_600_000);
    const mallorySession = await createSession(app.db, mallory.id, app.clock(), 3_600_000);
    const whoami = (cookie: string) => app.inject({ url: '/whoami', headers: { cookie } });

    const ok = await whoami(`${expected}=${aliceSession.token}`);
    t.equal(ok.statusCode, 200, 'the configured name works');
    t.equal(ok.json().userId, alice.id);

    const others = ['evil_session_token', 'session_token', 'x_lms_session_token'];
    if (expected !== 'lms_session_token') others.push('lms_session_token');
    for (const name of others) {
      const res = await whoami(`${name}=${aliceSession.token}`);
      t.equal(res.statusCode, 401, `${name} is not a session cookie`);
      t.same(res.json(), { success: false, error: 'Authentication required: send an x-api-key header or a session cookie' });
    }
    // A planted cookie next to the real one changes nothing: the configured one decides.
    const both = await whoami(`evil_session_token=${mallorySession.token}; ${expected}=${aliceSession.token}`);
    t.equal(both.json().userId, alice.id);

    // Sign-out ends exactly the session of the configured cookie, not the planted one.
    const out = await app.inject({
      method: 'POST',
      url: '/api/auth/sign-out',
      headers: { origin: publicUrl, cookie: `evil_session_token=${mallorySession.token}; ${expected}=${aliceSession.token}` },
    });
    t.equal(out.statusCode, 200, out.body);
    t.equal(
      (
        await app.db
          .select()
          .from(sessions)
          .where(eq(sessions.tokenHash, hashToken(aliceSession.token)))
      ).length,
      0,
      "alice's session is gone",
    );
    t.equal(
      (
        await app.db
          .select()
          .from(sessions)
          .where(eq(sessions.tokenHash, hashToken(mallorySession.token)))
      ).length,
      1,
      'the planted one is untouched',
    );
    t.equal((await whoami(`${expected}=${aliceSession.token}`)).statusCode, 401, 'the ended session no longer works');
    t.equal((await whoami(`${expected}=${mallorySession.token}`)).statusCode, 200);

    // Only a planted cookie: sign-out ends nothing.
    const planted = await app.inject({
      method: 'POST',
      url: '/api/auth/sign-out',
      headers: { origin: publicUrl, cookie: `evil_session_token=${mallorySession.token}` },
    });
    t.equal(planted.statusCode, 200);
    t.equal((await whoami(`${expected}=${mallorySession.token}`)).statusCode, 200, 'a cookie of another name is not signed out');
  });
}
