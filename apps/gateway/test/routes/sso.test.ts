import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { GATEWAY_PROOF_TTL_SECONDS, signGatewayProof, verifyGatewayProof } from '@lms/partner-auth';
import { buildGateway } from '../../src/app.js';
import { TEST_GATEWAY_SECRET, testConfig } from '../../src/testing.js';
import { logCapture, rawToken, signPartnerToken, writePartnersFile } from '../helpers/partners.js';

const PARTNERS = {
  partners: [
    { iss: 'partner-a.example', allowedIps: ['127.0.0.0/8', '::1'], lmsUrl: 'http://lms-a.example:3000/' },
    { iss: 'partner-b.example', allowedIps: ['198.51.100.0/24', '2001:db8:b::/48'], lmsUrl: 'https://lms-b.example/base' },
  ],
};

const verify = (token: string) => `/sso/verify?token=${encodeURIComponent(token)}`;

const NOW = new Date('2026-11-22T10:00:00Z');
const NOW_S = NOW.getTime() / 1000;
/** The Location the gateway gives at NOW: the partner's LMS, the token, and the gateway's proof for it. */
const lmsVerify = (lmsUrl: string, token: string) =>
  `${lmsUrl}/sso/verify?${new URLSearchParams({ token, proof: signGatewayProof(TEST_GATEWAY_SECRET, token, NOW_S) })}`;

/** A Location given by a gateway on the real clock: the LMS's /sso/verify with the token and a proof valid now. */
function checkLocation(t: Test, location: string | null | undefined, lmsUrl: string, token: string) {
  t.ok(location?.startsWith(`${lmsUrl}/sso/verify?`), `to ${lmsUrl}/sso/verify`);
  const params = new URL(location!).searchParams;
  t.equal(params.get('token'), token);
  t.match(verifyGatewayProof(TEST_GATEWAY_SECRET, token, params.get('proof'), Date.now() / 1000), { ok: true }, 'with a valid proof');
}

t.test('GET /sso/verify without a trusted proxy', async (t) => {
  const file = await writePartnersFile(t, PARTNERS);
  let now = NOW;
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false, clock: () => now });
  t.teardown(() => app.close());
  const tokenA = await signPartnerToken('partner-a.example');
  const tokenB = await signPartnerToken('partner-b.example');

  const call = (url: string, remoteAddress = '127.0.0.1', headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, remoteAddress, headers });

  const expectError = async (t: Test, res: Awaited<ReturnType<typeof call>>, status: number, error: string) => {
    t.equal(res.statusCode, status);
    t.same(res.json(), { error });
    t.match(res.headers['content-type'], /application\/json/);
    t.equal(res.headers['cache-control'], 'no-store');
    t.notOk(res.headers.location);
  };

  t.test('a registered partner calling from its allowlist is sent to its LMS with the token and the proof', async (t) => {
    const res = await call(verify(tokenA));
    t.equal(res.statusCode, 302);
    t.equal(res.headers.location, lmsVerify('http://lms-a.example:3000', tokenA));
    t.equal(res.headers['cache-control'], 'no-store');
    t.equal(res.body, '');

    const b = await call(verify(tokenB), '198.51.100.23');
    t.equal(b.statusCode, 302);
    t.equal(b.headers.location, lmsVerify('https://lms-b.example/base', tokenB), 'path prefix kept');
  });

  t.test('the proof is bound to the token and lives 120 s from the redirect', async (t) => {
    const res = await call(verify(tokenA));
    const proof = new URL(res.headers.location as string).searchParams.get('proof')!;
    t.equal(proof.split('.')[0], String(NOW_S + GATEWAY_PROOF_TTL_SECONDS));
    t.match(verifyGatewayProof(TEST_GATEWAY_SECRET, tokenA, proof, NOW_S), { ok: true });
    t.match(verifyGatewayProof(TEST_GATEWAY_SECRET, tokenB, proof, NOW_S), { ok: false, problem: 'mismatch' }, "not another token's");
    t.match(verifyGatewayProof(TEST_GATEWAY_SECRET, tokenA, proof, NOW_S + 200), { ok: false, problem: 'expired' });
    now = new Date(NOW.getTime() + 60_000);
    const later = new URL((await call(verify(tokenA))).headers.location as string).searchParams.get('proof')!;
    now = NOW;
    t.equal(later.split('.')[0], String(NOW_S + 60 + GATEWAY_PROOF_TTL_SECONDS), "the gateway's clock dates it");
  });

  t.test('token text cannot break the Location', async (t) => {
    // Not a JWT a partner would send, but the gateway must never let token text break the URL.
    const odd = rawToken({ alg: 'RS256' }, { iss: 'partner-a.example' }, 'c2ln');
    const res = await call(`/sso/verify?token=${encodeURIComponent(odd)}&next=/evil`);
    t.equal(res.statusCode, 302);
    const location = new URL(res.headers.location as string);
    t.equal(location.origin, 'http://lms-a.example:3000');
    t.equal(location.pathname, '/sso/verify');
    t.same([...location.searchParams.keys()], ['token', 'proof'], 'nothing but the token and its proof is forwarded');
    t.equal(location.searchParams.get('token'), odd);
    t.match(verifyGatewayProof(TEST_GATEWAY_SECRET, odd, location.searchParams.get('proof'), NOW_S), { ok: true });
  });

  // The Location carries the token unescaped: only a token of base64url segments and dots gets
  // one. A partner's real header is kept after its first token (readUnverifiedToken), so these
  // reuse it and hide in the payload or signature the characters that would add a parameter
  // (a second proof), end the query (#) or change the path, decoded from the query string.
  t.test('a token with URL characters in it gets no Location, even behind a header seen before', async (t) => {
    t.equal((await call(verify(tokenA))).statusCode, 302, 'tokenA’s header is now kept');
    const [header, payload, signature] = tokenA.split('.') as [string, string, string];
    const crafted = [
      `${header}.${payload}.${signature}&proof=1.AAAA`,
      `${header}.${payload}&proof=1.AAAA.${signature}`,
      `${header}.${payload}.${signature}#fragment`,
      `${header}.${payload}.${signature}/../../evil`,
      `${header}.${payload}.${signature}?next=/evil`,
      `${header}.${payload}.${signature}%2Fevil`,
      `${header}.${payload}.${signature} x`,
      `${header}.${payload}.${signature}+x`,
      `${header}&proof=1.AAAA.${payload}.${signature}`,
    ];
    for (const token of crafted) await expectError(t, await call(verify(token)), 400, 'invalid token format');
  });

  t.test('400 token is required: no token, an empty token', async (t) => {
    await expectError(t, await call('/sso/verify'), 400, 'token is required');
    await expectError(t, await call('/sso/verify?token='), 400, 'token is required');
  });

  t.test('400 invalid token format', async (t) => {
    for (const token of ['abc', 'a.b', `${tokenA}.extra`, 'not base64!.eyJpc3MiOiJ4In0.c2ln', rawToken({ alg: 'RS256' }, ['array'])]) {
      await expectError(t, await call(verify(token)), 400, 'invalid token format');
    }
    // A repeated parameter is not one token.
    await expectError(t, await call(`${verify(tokenA)}&token=${encodeURIComponent(tokenA)}`), 400, 'invalid token format');
    // Over 8 KB: refused before anything is decoded, even with a registered iss inside.
    const huge = rawToken({ alg: 'RS256' }, { iss: 'partner-a.example', pad: 'x'.repeat(8 * 1024) });
    await expectError(t, await call(verify(huge)), 400, 'invalid token format');
  });

  t.test('400 missing issuer (iss) claim: absent, empty, not a string', async (t) => {
    for (const payload of [{ sub: 'member' }, { iss: '' }, { iss: 42 }, { iss: ['partner-a.example'] }]) {
      await expectError(t, await call(verify(rawToken({ alg: 'RS256' }, payload))), 400, 'missing issuer (iss) claim');
    }
  });

  t.test('401 unknown issuer: <iss>', async (t) => {
    const token = await signPartnerToken('stranger.example');
    await expectError(t, await call(verify(token)), 401, 'unknown issuer: stranger.example');
    // Issuers compare exactly: the registry's iss in another case is a different issuer.
    await expectError(t, await call(verify(await signPartnerToken('Partner-A.example'))), 401, 'unknown issuer: Partner-A.example');
  });

  t.test('403 IP <ip> is not whitelisted for issuer <iss>', async (t) => {
    await expectError(t, await call(verify(tokenA), '203.0.113.9'), 403, 'IP 203.0.113.9 is not whitelisted for issuer partner-a.example');
  });

  t.test("partner A's iss from partner B's IP is refused", async (t) => {
    await expectError(
      t,
      await call(verify(tokenA), '198.51.100.23'),
      403,
      'IP 198.51.100.23 is not whitelisted for issuer partner-a.example',
    );
    await expectError(t, await call(verify(tokenB), '127.0.0.1'), 403, 'IP 127.0.0.1 is not whitelisted for issuer partner-b.example');
  });

  t.test('an IPv4-mapped IPv6 caller matches an IPv4 range and is named as IPv4', async (t) => {
    const ok = await call(verify(tokenA), '::ffff:127.0.0.1');
    t.equal(ok.statusCode, 302);
    await expectError(t, await call(verify(tokenA), '::ffff:10.0.0.1'), 403, 'IP 10.0.0.1 is not whitelisted for issuer partner-a.example');
  });

  t.test('IPv6 ranges and hosts', async (t) => {
    t.equal((await call(verify(tokenB), '2001:db8:b:ffff::5')).statusCode, 302, 'inside 2001:db8:b::/48');
    t.equal((await call(verify(tokenA), '::1')).statusCode, 302, 'a bare ::1 is ::1/128');
    await expectError(
      t,
      await call(verify(tokenB), '2001:db8:c::5'),
      403,
      'IP 2001:db8:c::5 is not whitelisted for issuer partner-b.example',
    );
    await expectError(t, await call(verify(tokenA), '::2'), 403, 'IP ::2 is not whitelisted for issuer partner-a.example');
  });

  t.test('X-Forwarded-For from an untrusted peer is ignored', async (t) => {
    const res = await call(verify(tokenA), '203.0.113.9', { 'x-forwarded-for': '127.0.0.1' });
    await expectError(t, res, 403, 'IP 203.0.113.9 is not whitelisted for issuer partner-a.example');
    const forwarded = await call(verify(tokenA), '203.0.113.9', { forwarded: 'for=127.0.0.1', 'x-real-ip': '127.0.0.1' });
    await expectError(t, forwarded, 403, 'IP 203.0.113.9 is not whitelisted for issuer partner-a.example');
  });

  t.test('errors of other routes keep the API shape; no-store is only on /sso/verify', async (t) => {
    const res = await call('/nowhere');
    t.equal(res.statusCode, 404);
    t.same(res.json(), { success: false, error: 'Route GET /nowhere not found' });
    t.notOk(res.headers['cache-control']);
  });
});

t.test('GET /sso/verify behind a trusted proxy (TRUST_PROXY=10.0.0.0/8)', async (t) => {
  const file = await writePartnersFile(t, PARTNERS);
  const app = await buildGateway({
    config: testConfig({ PARTNERS_FILE: file, trustProxy: ['10.0.0.0/8'] }),
    logger: false,
  });
  t.teardown(() => app.close());
  const tokenA = await signPartnerToken('partner-a.example');
  const fromProxy = (xff: string) => app.inject({ url: verify(tokenA), remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': xff } });

  const allowed = await fromProxy('127.0.0.1');
  t.equal(allowed.statusCode, 302, 'the client named by our proxy is the caller');

  const twoProxies = await fromProxy('127.0.0.1, 10.9.9.9');
  t.equal(twoProxies.statusCode, 302, 'a chain of our own proxies is walked back to the client');

  // A client that writes its own X-Forwarded-For: our proxy appends the real peer, which is what counts.
  const spoofed = await fromProxy('127.0.0.1, 203.0.113.5');
  t.equal(spoofed.statusCode, 403);
  t.same(spoofed.json(), { error: 'IP 203.0.113.5 is not whitelisted for issuer partner-a.example' });

  const notAnIp = await fromProxy('garbage');
  t.equal(notAnIp.statusCode, 403, 'a forwarded value that is no IP matches nothing');
  t.same(notAnIp.json(), { error: 'IP garbage is not whitelisted for issuer partner-a.example' });

  const untrusted = await app.inject({ url: verify(tokenA), remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': '127.0.0.1' } });
  t.equal(untrusted.statusCode, 403, 'a peer outside TRUST_PROXY is still not believed');
  t.same(untrusted.json(), { error: 'IP 203.0.113.9 is not whitelisted for issuer partner-a.example' });
});

t.test('over a real socket: the TCP peer is the caller', async (t) => {
  const file = await writePartnersFile(t, {
    partners: [
      { iss: 'loopback-v4.example', allowedIps: ['127.0.0.0/8'], lmsUrl: 'http://lms.example' },
      { iss: 'elsewhere.example', allowedIps: ['192.0.2.0/24'], lmsUrl: 'http://lms.example' },
    ],
  });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false });
  t.teardown(() => app.close());
  // Listening on '::' makes IPv4 clients appear as ::ffff:127.0.0.1, as on a dual-stack host.
  await app.listen({ port: 0, host: '::' });
  const { port } = app.server.address() as AddressInfo;

  const token = await signPartnerToken('loopback-v4.example');
  const res = await fetch(`http://127.0.0.1:${port}${verify(token)}`, { redirect: 'manual' });
  t.equal(res.status, 302, '::ffff:127.0.0.1 matches 127.0.0.0/8');
  checkLocation(t, res.headers.get('location'), 'http://lms.example', token);
  t.equal(res.headers.get('cache-control'), 'no-store');

  const spoof = await fetch(`http://127.0.0.1:${port}${verify(await signPartnerToken('elsewhere.example'))}`, {
    redirect: 'manual',
    headers: { 'x-forwarded-for': '192.0.2.10' },
  });
  t.equal(spoof.status, 403);
  t.same(await spoof.json(), { error: 'IP 127.0.0.1 is not whitelisted for issuer elsewhere.example' });

  const v6 = await fetch(`http://[::1]:${port}${verify(token)}`, { redirect: 'manual' });
  t.equal(v6.status, 403, '::1 is not in 127.0.0.0/8');
  t.same(await v6.json(), { error: 'IP ::1 is not whitelisted for issuer loopback-v4.example' });
});

t.test('the token never reaches the logs', async (t) => {
  const file = await writePartnersFile(t, PARTNERS);
  const { lines, logger } = logCapture();
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger });
  t.teardown(() => app.close());
  const token = await signPartnerToken('partner-a.example');
  t.equal((await app.inject({ url: verify(token), remoteAddress: '127.0.0.1' })).statusCode, 302);
  t.equal((await app.inject({ url: `/other?x=1&token=${token}`, remoteAddress: '127.0.0.1' })).statusCode, 404);
  t.equal((await app.inject({ url: verify(token), remoteAddress: '203.0.113.9' })).statusCode, 403);
  const logged = lines.map((l) => JSON.stringify(l)).join('\n');
  t.match(logged, /"url":"\/sso\/verify\?token=\[redacted\]"/, 'requests are logged, without the token');
  t.match(logged, /"url":"\/other\?x=1&token=\[redacted\]"/);
  t.notOk(logged.includes(token.split('.')[2]!), 'no part of the signature in any line');
  t.notOk(logged.includes(token.split('.')[1]!), 'no part of the payload in any line');
});

t.test('over a real socket behind a trusted local proxy on a dual-stack listener', async (t) => {
  // The peer is seen as ::ffff:127.0.0.1; TRUST_PROXY=127.0.0.1 must still recognise it as our proxy.
  const file = await writePartnersFile(t, PARTNERS);
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file, trustProxy: ['127.0.0.1/32'] }), logger: false });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '::' });
  const { port } = app.server.address() as AddressInfo;
  const tokenB = await signPartnerToken('partner-b.example');

  const forwarded = await fetch(`http://127.0.0.1:${port}${verify(tokenB)}`, {
    redirect: 'manual',
    headers: { 'x-forwarded-for': '198.51.100.23' },
  });
  t.equal(forwarded.status, 302, "the client named by our proxy is in partner B's range");
  checkLocation(t, forwarded.headers.get('location'), 'https://lms-b.example/base', tokenB);

  const direct = await fetch(`http://127.0.0.1:${port}${verify(tokenB)}`, { redirect: 'manual' });
  t.equal(direct.status, 403, 'without X-Forwarded-For the proxy itself is the caller');
  t.same(await direct.json(), { error: 'IP 127.0.0.1 is not whitelisted for issuer partner-b.example' });
});

t.test('without GATEWAY_SECRET the gateway cannot prove a sign-in: 503 after the usual checks, no redirect', async (t) => {
  const file = await writePartnersFile(t, PARTNERS);
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file, GATEWAY_SECRET: undefined }), logger: false });
  t.teardown(() => app.close());
  const token = await signPartnerToken('partner-a.example');
  const res = await app.inject({ url: verify(token), remoteAddress: '127.0.0.1' });
  t.equal(res.statusCode, 503);
  t.same(res.json(), { error: 'SSO is not configured on this gateway (GATEWAY_SECRET is not set)' });
  t.notOk(res.headers.location);
  t.equal(res.headers['cache-control'], 'no-store');
  // The partner's own mistakes are still named first.
  t.equal((await app.inject({ url: verify(token), remoteAddress: '203.0.113.9' })).statusCode, 403);
  t.equal((await app.inject({ url: '/sso/verify', remoteAddress: '127.0.0.1' })).statusCode, 400);
});
