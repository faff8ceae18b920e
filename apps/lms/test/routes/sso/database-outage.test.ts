import { usedTokenIds, users } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { DEBUG, outageApp } from '../../helpers/database-outage.js';
import { callback, makePartnerKey, registerPartner, ssoClaims, signRaw } from '../../helpers/sso.js';

// CI runs this file once (not again in the PostgreSQL pass): a PostgreSQL server behind a proxy it cuts, whatever TEST_DATABASE_URL says (test/helpers/database-outage.ts).

// SSO sign-ins while the database is cut or stalled (through the TCP proxy of the fault tests):
// the member lands on /sign-in with sso_failed / temporarily_unavailable, nothing is kept (no
// account, no spent jti), the same link works once the database is back, and the member's e-mail
// and membership id appear in no log line above debug.

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A token of the partner, with the claims it carries. */
function member(key: Awaited<ReturnType<typeof makePartnerKey>>, issuer: string, overrides: Record<string, unknown> = {}) {
  const claims = ssoClaims(issuer, nowSeconds(), overrides);
  return {
    claims: claims as { email: string; membershipId: string; jti: string },
    token: signRaw({ alg: 'RS256', typ: 'JWT', kid: key.kid }, claims, key),
  };
}

t.test('SSO during an outage: temporarily_unavailable, nothing kept, the same token works afterwards', async (t) => {
  const env = await outageApp(t);
  const key = await makePartnerKey('outage-1');
  const issuer = 'outage.test';
  await registerPartner(env.direct.db, { issuer, pemKeys: [key] });
  const kept = async (m: ReturnType<typeof member>) => ({
    users: (await env.direct.db.select().from(users).where(eq(users.email, m.claims.email.toLowerCase()))).length,
    jtis: (await env.direct.db.select().from(usedTokenIds).where(eq(usedTokenIds.jti, m.claims.jti))).length,
  });

  await t.test('the partner lookup fails (nothing cached): redirect, no cookie', async (t) => {
    const first = member(key, issuer);
    await env.proxy.cut();
    const res = await callback(env.app, first.token);
    await env.proxy.restore();
    t.equal(res.status, 307);
    t.equal(res.error, 'sso_failed');
    t.equal(res.reason, 'temporarily_unavailable');
    t.equal(res.sessionCookie, undefined, 'no cookie');
    t.same(await kept(first), { users: 0, jtis: 0 }, 'no account, no spent jti');
    const again = await callback(env.app, first.token);
    t.equal(again.location, '/dashboard', 'the same token signs in once the database is back');
    t.ok(again.sessionCookie);
  });

  await t.test('the partner is cached, the sign-in statements fail: new and returning members alike', async (t) => {
    const returning = member(key, issuer);
    t.equal((await callback(env.app, returning.token)).location, '/dashboard');
    const newcomer = member(key, issuer);
    const again = member(key, issuer, { email: returning.claims.email, membershipId: returning.claims.membershipId });
    await env.proxy.cut();
    const refusedNew = await callback(env.app, newcomer.token);
    const refusedReturning = await callback(env.app, again.token);
    await env.proxy.restore();
    for (const res of [refusedNew, refusedReturning]) {
      t.match(res, { status: 307, error: 'sso_failed', reason: 'temporarily_unavailable', sessionCookie: undefined });
    }
    t.same(await kept(newcomer), { users: 0, jtis: 0 }, 'no half-made account, no spent jti');
    t.same(await kept(again), { users: 1, jtis: 0 }, 'the returning member keeps their account, the jti is unspent');
    t.equal((await callback(env.app, newcomer.token)).location, '/dashboard', 'the newcomer signs in with the same token afterwards');
    t.equal((await callback(env.app, again.token)).location, '/dashboard');
  });

  await t.test('a stalled database: the same redirect once the timeouts run out', async (t) => {
    const stalled = member(key, issuer);
    env.proxy.stall();
    const started = performance.now();
    const res = await callback(env.app, stalled.token);
    const ms = performance.now() - started;
    env.proxy.resume();
    t.match(res, { status: 307, error: 'sso_failed', reason: 'temporarily_unavailable' });
    t.comment(`SSO callback during a stall answered after ${ms.toFixed(0)} ms (connect 500 ms, statement 500 ms + 1 s)`);
    t.same(await kept(stalled), { users: 0, jtis: 0 });
  });

  await t.test("the members' e-mails and membership ids are in no log line above debug", async (t) => {
    const debugLines = env.logs.filter((l) => l.level === DEBUG && /database unavailable/.test(l.msg ?? ''));
    t.ok(debugLines.length > 0, 'the failed sign-ins were logged, at debug');
    const leaks = env.logs.filter((l) => l.level > DEBUG && /@example\.test|"M-[0-9a-f-]{36}/.test(l.text));
    t.same(
      leaks.map((l) => l.msg),
      [],
    );
  });

  t.test('the sign-in page tells the member to try again shortly', async (t) => {
    const page = await env.app.inject('/sign-in?error=sso_failed&reason=temporarily_unavailable');
    t.equal(page.statusCode, 200);
    t.match(page.body, /gangguan sementara[^<]*coba lagi dalam beberapa menit/, 'in Indonesian by default');
    const english = await env.app.inject({ url: '/sign-in?error=sso_failed&reason=temporarily_unavailable', cookies: { lms_lang: 'en' } });
    t.match(english.body, /temporary problem[^<]*try again in a few minutes/, 'and in English');
  });
});
