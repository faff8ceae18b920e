import { createServer, type AddressInfo } from 'node:net';
import { partners } from '@lms/db';
import { eq } from 'drizzle-orm';
import { createLocalJWKSet, jwtVerify } from 'jose';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { callback, localServer, makePartnerKey, registerPartner, signRaw, ssoClaims } from '../../helpers/sso.js';

// The member check at sign-in: the partner's member-status URL is asked, with a token the LMS
// signs (verified here against the LMS's own JWKS), whether the membershipId is active.

const ISSUER = 'members.example.org';
const nowSeconds = () => Math.floor(Date.now() / 1000);

t.test('member check at sign-in', async (t) => {
  // The partner's settings change between steps: read afresh each sign-in (settingsTtlMs 0).
  const { app, db } = await buildTestApp(t, {
    config: { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: true },
    deps: { memberCheck: { settingsTtlMs: 0 } },
  });
  const key = await makePartnerKey('mc-1');
  await registerPartner(db.db, { issuer: ISSUER, pemKeys: [key] });
  const token = (membershipId: string) =>
    signRaw(
      { alg: 'RS256', typ: 'JWT', kid: key.kid },
      ssoClaims(ISSUER, nowSeconds(), { membershipId, email: `${membershipId}@example.test` }),
      key,
    );

  const jwks = await app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
  t.equal(jwks.statusCode, 200, 'the JWKS is public');
  t.notOk(JSON.stringify(jwks.json()).includes('"d"'), 'no private part');
  const keySet = createLocalJWKSet(jwks.json());

  const status: Record<string, boolean> = { 'M-ACTIVE': true, 'M-GONE': false, 'M-CACHED': true };
  const asked: string[] = [];
  const bad: string[] = [];
  // As docs/architecture.md asks of a partner: a token's jti is kept until its exp, and used once.
  const usedJtis = new Set<string>();
  const tokens: string[] = [];
  const partner = await localServer(t, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { membershipId: string };
      try {
        const auth = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
        const { payload } = await jwtVerify(auth, keySet, { issuer: app.config.PUBLIC_URL, audience: ISSUER, algorithms: ['ES256'] });
        if (payload.sub !== body.membershipId) throw new Error('sub is not the member asked about');
        if ((payload.exp ?? 0) - (payload.iat ?? 0) > 60) throw new Error('a long-lived token');
        if (typeof payload.jti !== 'string') throw new Error('no jti');
        if (usedJtis.has(payload.jti)) throw new Error('a jti used before');
        usedJtis.add(payload.jti);
        tokens.push(auth);
      } catch (err) {
        bad.push((err as Error).message);
        res.statusCode = 401;
        return res.end();
      }
      asked.push(body.membershipId);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ active: status[body.membershipId] ?? false }));
    });
  });
  const configure = (fields: Partial<typeof partners.$inferInsert>) =>
    db.db.update(partners).set(fields).where(eq(partners.issuer, ISSUER));
  await configure({ memberCheckUrl: `${partner.url}/members/status`, memberCheckTtlSeconds: 300, memberCheckTimeoutMs: 500 });

  await t.test('an active member signs in; the partner verified the LMS token', async (t) => {
    const res = await callback(app, token('M-ACTIVE'));
    t.equal(res.location, '/dashboard');
    t.same(asked, ['M-ACTIVE']);
    t.same(bad, []);
  });

  await t.test('an inactive member is refused with member_inactive, no session', async (t) => {
    const res = await callback(app, token('M-GONE'));
    t.match(res, { error: 'sso_failed', reason: 'member_inactive', sessionCookie: undefined });
  });

  await t.test('each check carries a fresh jti: a replayed token is refused', async (t) => {
    t.equal(usedJtis.size, 2, 'the two checks so far, each with its own jti');
    for (const jti of usedJtis) t.match(jti, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a random UUID');
    // Someone who saw the LMS's request (a proxy's log) sends it again.
    const replay = await fetch(`${partner.url}/members/status`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens[0]}` },
      body: JSON.stringify({ membershipId: 'M-ACTIVE' }),
    });
    t.equal(replay.status, 401);
    t.same(bad, ['a jti used before']);
    bad.length = 0;
  });

  await t.test('the answer is cached for the TTL', async (t) => {
    t.equal((await callback(app, token('M-CACHED'))).location, '/dashboard');
    const before = partner.hits();
    status['M-CACHED'] = false; // the partner changes its mind; the LMS still holds the cached answer
    t.equal((await callback(app, token('M-CACHED'))).location, '/dashboard');
    t.equal(partner.hits(), before, 'the partner was not asked again');
    t.match(await callback(app, token('M-GONE')), { reason: 'member_inactive' });
    t.equal(partner.hits(), before, 'inactive answers are cached too');
  });

  await t.test('the partner down: the policy decides', async (t) => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as AddressInfo).port;
    await new Promise<void>((r) => srv.close(() => r()));
    await configure({ memberCheckUrl: `http://127.0.0.1:${port}/status`, memberCheckOnFailure: 'refuse' });
    t.match(await callback(app, token('M-NEW-1')), { error: 'sso_failed', reason: 'temporarily_unavailable', sessionCookie: undefined });
    await configure({ memberCheckOnFailure: 'allow' });
    t.equal((await callback(app, token('M-NEW-2'))).location, '/dashboard', 'allow lets the member in');
  });

  await t.test('a partner that does not answer in time: bounded, then the policy', async (t) => {
    const held: Array<() => void> = [];
    const slow = await localServer(t, (_req, res) => held.push(() => res.end('{"active":true}')));
    t.teardown(() => {
      for (const h of held) h();
    });
    await configure({ memberCheckUrl: slow.url, memberCheckTimeoutMs: 200, memberCheckOnFailure: 'refuse' });
    t.match(await callback(app, token('M-NEW-3')), { reason: 'temporarily_unavailable' });
    t.equal(slow.hits(), 1);
    await configure({ memberCheckOnFailure: 'allow' });
    t.equal((await callback(app, token('M-NEW-4'))).location, '/dashboard');
  });

  await t.test('a garbled answer is not an answer', async (t) => {
    const odd = await localServer(t, (_req, res) => res.end('{"status":"ok"}'));
    await configure({ memberCheckUrl: odd.url, memberCheckOnFailure: 'refuse' });
    t.match(await callback(app, token('M-NEW-5')), { reason: 'temporarily_unavailable' });
  });

  await t.test('a partner without a member check: nobody is asked', async (t) => {
    await configure({ memberCheckUrl: null });
    const before = partner.hits();
    t.equal((await callback(app, token('M-NEW-6'))).location, '/dashboard');
    t.equal(partner.hits(), before);
  });
});

t.test('a member-check URL on a private address is refused unless allowed', async (t) => {
  const { app, db } = await buildTestApp(t, { config: { WEBHOOK_ALLOW_HTTP: true, WEBHOOK_ALLOW_PRIVATE_ADDRESSES: false } });
  const key = await makePartnerKey('mc-2');
  await registerPartner(db.db, { issuer: ISSUER, pemKeys: [key] });
  const partner = await localServer(t, (_req, res) => res.end('{"active":true}'));
  await db.db
    .update(partners)
    .set({ memberCheckUrl: `http://localhost:${new URL(partner.url).port}/`, memberCheckOnFailure: 'refuse' })
    .where(eq(partners.issuer, ISSUER));
  const tok = signRaw({ alg: 'RS256', typ: 'JWT', kid: key.kid }, ssoClaims(ISSUER, nowSeconds()), key);
  t.match(await callback(app, tok), { reason: 'temporarily_unavailable' });
  t.equal(partner.hits(), 0, 'the loopback partner was never reached');
});
