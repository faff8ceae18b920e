import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { JwksCache, PartnerKeyRegistry, type PartnerRecord, PartnerTokenError, Reasons, verifyPartnerToken } from '../src/index.js';
import { makePartnerKey, partnerClaims, signPartnerToken, withKid } from '../src/testing.js';

// The package on its own: token purposes, the partner cache TTL, and the JWKS cache's clock.
const key = await makePartnerKey('k1');
let nowMs = Date.parse('2026-11-22T10:00:00Z');
const now = () => new Date(nowMs);
const partnersByIssuer = new Map<string, PartnerRecord>();
let lookups = 0;
const registry = new PartnerKeyRegistry({
  directory: {
    async findPartner(issuer) {
      lookups += 1;
      return partnersByIssuer.get(issuer) ?? null;
    },
  },
  now,
  partnerCacheTtlMs: 10_000,
});
partnersByIssuer.set('p.test', { issuer: 'p.test', isActive: true, jwksUrl: null, pemKeys: [{ kid: 'k1', publicKeyPem: key.publicPem }] });

const sign = (claims: Record<string, unknown>, kid = 'k1') =>
  signPartnerToken(withKid(key, kid), partnerClaims('p.test', claims, Math.floor(nowMs / 1000)));

t.test('a bearer token needs no email or membershipId; an sso token does', async (t) => {
  const token = await sign({});
  const bearer = await verifyPartnerToken(token, { purpose: 'bearer', registry, now });
  t.match(bearer, { issuer: 'p.test', kid: 'k1', subject: 'member' });
  t.notOk('tier' in bearer, 'a bearer token has no member tier');
  await t.rejects(verifyPartnerToken(token, { purpose: 'sso', registry, now }), { code: 'sso_failed', reason: 'missing_email' });
  const full = await verifyPartnerToken(await sign({ email: 'a@b.test', membershipId: 'M1', name: ' Ana ' }), {
    purpose: 'sso',
    registry,
    now,
  });
  t.match(full, { email: 'a@b.test', membershipId: 'M1', name: 'Ana', tier: 'anggota' });
});

t.test('token kinds: a sign-in token is refused as a bearer token, whatever email and membershipId hold', async (t) => {
  const reason = Reasons.ssoTokenAsBearer;
  for (const claims of [
    { email: 'a@b.test', membershipId: 'M1' },
    { email: 'a@b.test' },
    { membershipId: 'M1' },
    { email: '' },
    { membershipId: null },
  ]) {
    await t.rejects(
      verifyPartnerToken(await sign(claims), { purpose: 'bearer', registry, now }),
      { code: 'invalid_token', reason },
      JSON.stringify(claims),
    );
  }
});

t.test("a bearer token's sub names the calling system; an sso token's sub must be a tier", async (t) => {
  const system = await sign({ sub: 'course-sync' });
  t.match(await verifyPartnerToken(system, { purpose: 'bearer', registry, now }), { subject: 'course-sync' });
  t.match(await verifyPartnerToken(await sign({ sub: 's'.repeat(100) }), { purpose: 'bearer', registry, now }), {
    subject: 's'.repeat(100),
  });
  await t.rejects(verifyPartnerToken(await sign({ sub: 's'.repeat(101) }), { purpose: 'bearer', registry, now }), {
    code: 'invalid_token',
    reason: '"sub" claim is longer than 100 characters',
  });
  await t.rejects(verifyPartnerToken(await sign({ sub: ' ' }), { purpose: 'bearer', registry, now }), {
    code: 'invalid_token',
    reason: Reasons.bearerSubject,
  });
  await t.rejects(verifyPartnerToken(await sign({ sub: 7 }), { purpose: 'bearer', registry, now }), {
    code: 'invalid_token',
    reason: '"sub" claim must be a string',
  });
  // The same system token at a sign-in: its sub is no tier.
  await t.rejects(
    verifyPartnerToken(await sign({ sub: 'course-sync', email: 'a@b.test', membershipId: 'M1' }), { purpose: 'sso', registry, now }),
    {
      code: 'invalid_token',
      reason: 'The "sub" claim must be one of: member, umum, mahasiswa.',
    },
  );
});

t.test('bearer tokens follow the same header and claim rules', async (t) => {
  const err = await verifyPartnerToken(await sign({ aud: 'Terang.ai' }), { purpose: 'bearer', registry, now }).catch((e) => e);
  t.ok(err instanceof PartnerTokenError);
  t.match(err, { code: 'invalid_token', reason: 'unexpected "aud" claim value' });
});

t.test('partners are cached for the TTL; forget() drops them at once', async (t) => {
  const before = lookups;
  await verifyPartnerToken(await sign({}), { purpose: 'bearer', registry, now });
  await verifyPartnerToken(await sign({}), { purpose: 'bearer', registry, now });
  t.equal(lookups, before, 'answered from the cache');
  partnersByIssuer.set('p.test', { ...partnersByIssuer.get('p.test')!, isActive: false });
  await verifyPartnerToken(await sign({}), { purpose: 'bearer', registry, now });
  registry.forget('p.test');
  await t.rejects(verifyPartnerToken(await sign({}), { purpose: 'bearer', registry, now }), {
    name: 'PartnerTokenError',
    message: 'Unsupported SSO issuer: p.test',
  });
  partnersByIssuer.set('p.test', { ...partnersByIssuer.get('p.test')!, isActive: true });
  nowMs += 10_000;
  await verifyPartnerToken(await sign({}), { purpose: 'bearer', registry, now });
  t.equal(lookups, before + 2);
});

t.test('the JWKS cache: max age, cooldown and stale keys follow the injected clock', async (t) => {
  const jwk = withKid(key, 'j1').publicJwk;
  let up = true;
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    if (!up) return void res.writeHead(503).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  let clock = 0;
  const warnings: string[] = [];
  const cache = new JwksCache({
    now: () => clock,
    maxAgeMs: 1000,
    cooldownMs: 100,
    logger: { info() {}, warn: (_o, m) => warnings.push(m) },
  });

  t.ok(await cache.getKey(url, 'j1'));
  t.equal(await cache.getKey(url, 'other'), null, 'unknown kid within the cooldown: no refetch');
  t.equal(hits, 1);
  clock = 100;
  t.equal(await cache.getKey(url, 'other'), null);
  t.equal(hits, 2, 'refetched once the cooldown passed');
  up = false;
  clock = 1200;
  t.ok(await cache.getKey(url, 'j1'), 'stale keys served at once, refreshed in the background');
  await cache.refreshing(url);
  t.equal(hits, 3);
  t.match(warnings, ['partner JWKS fetch failed; keeping the last good keys']);
  t.same(cache.stats, { fetches: 3, failures: 1, staleServed: 1, kidMissesWithoutRefetch: 1 });
  t.ok(await cache.getKey(url, 'j1'), 'the last good keys keep being served');
  t.equal(cache.refreshing(url), null, 'no new attempt within the cooldown');
  up = true;
  clock = 1300;
  t.ok(await cache.getKey(url, 'j1'));
  await cache.refreshing(url);
  t.equal(hits, 4, 'retried after the cooldown');
  t.equal(cache.stats.staleServed, 3);
  clock = 1400;
  t.ok(await cache.getKey(url, 'j1'));
  t.equal(cache.stats.staleServed, 3, 'and fresh again');
});
