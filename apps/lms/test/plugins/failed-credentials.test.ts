import { randomBytes } from 'node:crypto';
import { apiKeys } from '@lms/db';
import { eq } from 'drizzle-orm';
import t, { type Test } from 'tap';
import type { LmsConfig } from '../../src/config.js';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { countQueries } from '../helpers/query-counter.js';
import { redisForTest, testRedisUrl } from '../helpers/redis.js';
import { callbackUrl, makePartnerKey, registerPartner, ssoToken } from '../helpers/sso.js';

// Failed credentials are limited per client IP: past FAILED_AUTH_PER_MINUTE in a sliding minute
// the IP gets 429 with Retry-After, and its credentials are no longer looked up at all (counted
// with the statements the database receives). Successful requests never count.

const LIMIT = 20;
const unknownKey = () => `lms_key_${randomBytes(32).toString('base64url')}`;

async function setup(t: Test, config: Partial<LmsConfig> = {}) {
  const time = manualClock();
  const { app, db } = await buildTestApp(t, { config: { FAILED_AUTH_PER_MINUTE: LIMIT, ...config }, deps: { clock: time.clock } });
  const queries = countQueries(db.db);
  t.teardown(() => queries.restore());
  return { app, db, time, queries };
}

t.test('a flood of unknown API keys from one IP', async (t) => {
  const { app, db, time, queries } = await setup(t);
  const teacher = await makeUser(db.db, { role: 'teacher' });
  const valid = await apiKeyFor(db.db, teacher.id);
  const get = (key: string, ip: string) => app.inject({ url: '/api/courses?limit=1', headers: { 'x-api-key': key }, remoteAddress: ip });
  const ATTACKER = '198.51.100.7';

  time.at(1);
  queries.reset();
  for (let i = 0; i < LIMIT; i += 1) {
    const res = await get(unknownKey(), ATTACKER);
    if (res.statusCode !== 401) t.fail(`failure ${i + 1} got ${res.statusCode}`);
  }
  t.equal(queries.statements.length, LIMIT, `each of the first ${LIMIT} unknown keys was looked up once`);
  time.at(5);
  const over = await get(unknownKey(), ATTACKER);
  t.equal(over.statusCode, 429, 'the failure past the limit is a 429');
  t.same(over.json(), { success: false, error: 'Too many failed authentication attempts from this address; try again later' });
  t.equal(over.headers['retry-after'], '56', 'until the oldest failure leaves the window');

  queries.reset();
  for (let i = 0; i < 200; i += 1) {
    const res = await get(unknownKey(), ATTACKER);
    if (res.statusCode !== 429) t.fail(`request ${i + 1} of the flood got ${res.statusCode}`);
  }
  const withValidKey = await get(valid, ATTACKER);
  t.equal(withValidKey.statusCode, 429, 'even a valid key from that IP is refused unseen');
  t.equal(queries.statements.length, 0, 'the database was asked nothing during the flood');

  t.equal((await get(unknownKey(), '203.0.113.20')).statusCode, 401, 'another IP has its own count');
  for (let i = 0; i < LIMIT * 2; i += 1) {
    const res = await get(valid, '203.0.113.30');
    if (res.statusCode !== 200) t.fail(`valid request ${i + 1} got ${res.statusCode}`);
  }
  t.equal((await get(unknownKey(), '203.0.113.30')).statusCode, 401, 'successful requests never count');

  time.at(61.001);
  t.equal((await get(valid, ATTACKER)).statusCode, 200, 'once the oldest failure left the window the IP is served again');
  t.equal((await get(unknownKey(), ATTACKER)).statusCode, 401, 'and a failure is a plain 401 again');
});

t.test('malformed and revoked keys count too', async (t) => {
  const { app, db, time } = await setup(t);
  const teacher = await makeUser(db.db, { role: 'teacher' });
  const revoked = await apiKeyFor(db.db, teacher.id);
  await db.db.update(apiKeys).set({ revokedAt: time.clock() }).where(eq(apiKeys.userId, teacher.id));
  const get = (key: string) => app.inject({ url: '/api/lms-progress', headers: { 'x-api-key': key }, remoteAddress: '192.0.2.44' });
  for (let i = 0; i < LIMIT; i += 1) {
    const res = await get(i % 2 === 0 ? `not-a-key-${i}` : revoked);
    if (res.statusCode !== 401) t.fail(`failure ${i + 1} got ${res.statusCode}`);
  }
  t.equal((await get(revoked)).statusCode, 429);
});

t.test('session cookies that match no session', async (t) => {
  const { app, db, queries } = await setup(t);
  const teacher = await makeUser(db.db, { role: 'teacher' });
  const cookie = await sessionCookieFor(app, teacher.id);
  const get = (c: string, ip = '192.0.2.55') => app.inject({ url: '/api/api-keys', headers: { cookie: c }, remoteAddress: ip });
  const bogus = () => `${app.sessionCookieName}=${randomBytes(32).toString('base64url')}`;
  for (let i = 0; i < LIMIT; i += 1) {
    const res = await get(bogus());
    if (res.statusCode !== 401) t.fail(`failure ${i + 1} got ${res.statusCode}`);
  }
  const over = await get(bogus());
  t.equal(over.statusCode, 429);
  t.ok(Number(over.headers['retry-after']) >= 1);
  queries.reset();
  for (let i = 0; i < 100; i += 1) await get(bogus());
  t.equal((await get(cookie)).statusCode, 429, 'a real session from that IP waits too');
  t.equal(queries.statements.length, 0, 'no session lookup during the flood');
  t.equal((await get(cookie, '192.0.2.56')).statusCode, 200, 'the same session from elsewhere works');
  t.equal(
    (await app.inject({ url: '/api/courses?limit=1', remoteAddress: '192.0.2.55' })).statusCode,
    401,
    'a request without credentials is a plain 401',
  );
});

t.test('SSO callbacks with forged tokens', async (t) => {
  const { app, db, time, queries } = await setup(t);
  const key = await makePartnerKey('flood-1');
  await registerPartner(db.db, { issuer: 'real.partner.example', pemKeys: [key] });
  const forger = await makePartnerKey('flood-1');
  // Through the gateway (a valid proof), so each token reaches the partner and key checks.
  const callback = (token: string, ip = '198.51.100.99') => app.inject({ url: callbackUrl(app, token), remoteAddress: ip });
  const now = () => Math.floor(time.ms / 1000);

  for (let i = 0; i < LIMIT; i += 1) {
    // Half unknown issuers (each a partner lookup), half a known issuer with a forged signature.
    const token = i % 2 === 0 ? ssoToken(forger, `unknown-${i}.example`, now()) : ssoToken(forger, 'real.partner.example', now());
    const res = await callback(token);
    if (res.statusCode !== 307 || !String(res.headers.location).startsWith('/sign-in?error=invalid_token')) {
      t.fail(`failure ${i + 1} got ${res.statusCode} ${res.headers.location}`);
    }
  }
  const over = await callback(ssoToken(forger, 'unknown-over.example', now()));
  t.equal(over.statusCode, 429, 'the flood gets a 429, not a redirect');
  t.same(over.json(), { success: false, error: 'Too many failed authentication attempts from this address; try again later' });
  t.ok(over.headers['retry-after']);

  queries.reset();
  for (let i = 0; i < 100; i += 1) await callback(ssoToken(forger, `unknown-more-${i}.example`, now()));
  t.equal(queries.statements.length, 0, 'no partner lookup during the flood');
  const honest = await callback(ssoToken(key, 'real.partner.example', now()));
  t.equal(honest.statusCode, 429, 'a valid token from that IP waits too');

  const elsewhere = await callback(ssoToken(forger, 'real.partner.example', now()), '198.51.100.100');
  t.equal(elsewhere.statusCode, 307, 'a normal failure elsewhere stays a redirect');
  t.match(elsewhere.headers.location, /^\/sign-in\?error=invalid_token&reason=signature/);
  const signedIn = await callback(ssoToken(key, 'real.partner.example', now()), '198.51.100.100');
  t.equal(signedIn.statusCode, 302, 'and a valid token signs in');
});

t.test('SSO callbacks sent round the gateway (no proof) count as failed credentials too', async (t) => {
  const { app, db, time, queries } = await setup(t);
  const key = await makePartnerKey('round-1');
  await registerPartner(db.db, { issuer: 'real.partner.example', pemKeys: [key] });
  const straight = (token: string) =>
    app.inject({ url: `/api/auth/sso/callback?${new URLSearchParams({ token })}`, remoteAddress: '198.51.100.77' });
  const now = () => Math.floor(time.ms / 1000);
  for (let i = 0; i < LIMIT; i += 1) {
    const res = await straight(ssoToken(key, 'real.partner.example', now()));
    t.equal(res.statusCode, 307, `refusal ${i + 1} is a redirect`);
  }
  queries.reset();
  const over = await straight(ssoToken(key, 'real.partner.example', now()));
  t.equal(over.statusCode, 429, 'past the limit: 429');
  t.ok(over.headers['retry-after']);
  t.equal(queries.statements.length, 0, 'nothing looked up');
});

t.test("a flood on the dashboard pages gets a 429 page with Retry-After, in the page's language", async (t) => {
  const { app } = await setup(t);
  const page = (lang: string) =>
    app.inject({
      url: '/dashboard',
      headers: { cookie: `${app.sessionCookieName}=forged-${randomBytes(8).toString('hex')}; lms_lang=${lang}` },
      remoteAddress: '198.51.100.31',
    });
  for (let i = 0; i < LIMIT; i += 1) t.equal((await page('en')).statusCode, 302, `failure ${i + 1}: to the sign-in page`);
  const over = await page('en');
  t.equal(over.statusCode, 429);
  t.match(over.headers['content-type'], /text\/html/);
  t.ok(Number(over.headers['retry-after']) > 0, 'Retry-After');
  t.match(over.body, 'Too many requests');
  t.match((await page('id')).body, 'Terlalu banyak permintaan');
});

t.test('behind a trusted proxy the client is the one it names', async (t) => {
  const { app } = await setup(t, { trustProxy: ['10.0.0.1/32'] });
  const get = (client: string) =>
    app.inject({ url: '/api/courses', headers: { 'x-api-key': unknownKey(), 'x-forwarded-for': client }, remoteAddress: '10.0.0.1' });
  for (let i = 0; i < LIMIT; i += 1) await get('203.0.113.1');
  t.equal((await get('203.0.113.1')).statusCode, 429, 'the client over the limit');
  t.equal((await get('203.0.113.2')).statusCode, 401, 'another client behind the same proxy is not');
});

t.test('a client that is not a trusted proxy cannot escape the limit by naming other addresses in X-Forwarded-For', async (t) => {
  const { app } = await setup(t, { trustProxy: ['10.0.0.0/8'] });
  const get = (i: number) =>
    app.inject({
      url: '/api/courses',
      headers: { 'x-api-key': unknownKey(), 'x-forwarded-for': `203.0.113.${i % 250}, 10.0.0.${i % 250}` },
      remoteAddress: '198.51.100.9',
    });
  for (let i = 0; i < LIMIT; i += 1) {
    const res = await get(i);
    if (res.statusCode !== 401) t.fail(`failure ${i + 1} got ${res.statusCode}`);
  }
  t.equal((await get(LIMIT)).statusCode, 429, 'every failure counted against the peer itself, whatever the header named');
});

t.test("two instances sharing Redis count one IP's failures together", async (t) => {
  const { keyPrefix } = redisForTest(t, 'failed-auth');
  const time = manualClock();
  const config = { REDIS_URL: testRedisUrl, FAILED_AUTH_PER_MINUTE: LIMIT };
  // A long command timeout: a busy test process must not turn a slow reply into a fallback to memory.
  const deps = { clock: time.clock, failedCredentials: { redisKeyPrefix: keyPrefix, redisCommandTimeoutMs: 5_000 } };
  const { app: first, db } = await buildTestApp(t, { config, deps });
  const { app: second } = await buildTestApp(t, { config, deps, db });
  const get = (app: typeof first) =>
    app.inject({ url: '/api/courses', headers: { 'x-api-key': unknownKey() }, remoteAddress: '198.51.100.77' });
  time.at(1);
  for (let i = 0; i < LIMIT; i += 1) {
    const res = await get(i % 2 === 0 ? first : second);
    if (res.statusCode !== 401) t.fail(`failure ${i + 1} got ${res.statusCode}`);
  }
  t.equal((await get(second)).statusCode, 429, 'the limit is for both instances together, not each');
  t.equal((await get(first)).statusCode, 429, 'the other instance learns it at its next failure');
  t.equal((await get(first)).statusCode, 429);
});
