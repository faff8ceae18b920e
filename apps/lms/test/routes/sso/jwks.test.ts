import t, { type Test } from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import {
  callback,
  type CallbackResult,
  jwksServer,
  localServer,
  makePartnerKey,
  registerPartner,
  ssoToken,
  withKid,
} from '../../helpers/sso.js';

// Partner JWKS against real HTTP servers on the loopback (port 0). The app's clock drives the
// cache (max age 1 h, kid-miss cooldown 30 s); the fetch timeout is shortened to 2000 ms.
let now = new Date('2026-11-22T10:00:00Z');
const nowS = () => Math.floor(now.getTime() / 1000);
const advance = (seconds: number) => {
  now = new Date(now.getTime() + seconds * 1000);
};
const { app } = await buildTestApp(t, { deps: { clock: () => now, partnerAuth: { jwks: { timeoutMs: 2000 } } } });
const db = app.db;
const key1 = await makePartnerKey('2026-01');
const key2 = await makePartnerKey('2026-02');

function accepted(t: Test, res: CallbackResult) {
  t.equal(res.status, 302, `accepted (got ${res.error}: ${res.reason})`);
  t.equal(res.location, '/dashboard');
  t.ok(res.sessionCookie);
}

function refused(t: Test, res: CallbackResult, reason: string | RegExp) {
  t.equal(res.status, 307);
  t.equal(res.error, 'invalid_token');
  t.match(res.reason, reason);
  t.equal(res.sessionCookie, undefined);
}

t.test('key rotation: a new kid is picked up without a restart', async (t) => {
  let published = [key1];
  const jwks = await jwksServer(t, () => published);
  await registerPartner(db, { issuer: 'rotating.test', jwksUrl: jwks.jwksUrl });
  accepted(t, await callback(app, ssoToken(key1, 'rotating.test', nowS())));
  t.equal(jwks.hits(), 1);

  // The partner publishes its next key next to the old one and starts signing with it.
  published = [key1, key2];
  advance(31);
  accepted(t, await callback(app, ssoToken(key2, 'rotating.test', nowS())));
  t.equal(jwks.hits(), 2, 'the unknown kid caused one refetch');
  // The old key still works while it is published.
  accepted(t, await callback(app, ssoToken(key1, 'rotating.test', nowS())));
  t.equal(jwks.hits(), 2);

  // The partner withdraws the old key. A sign-in once the keys are 50 minutes old (5/6 of the
  // max age) is answered at once and refreshes them in the background; then the old kid is refused.
  published = [key2];
  advance(3001);
  accepted(t, await callback(app, ssoToken(key2, 'rotating.test', nowS())));
  await app.partnerKeys.jwks.refreshing(jwks.jwksUrl);
  t.equal(jwks.hits(), 3, 'refreshed');
  refused(t, await callback(app, ssoToken(key1, 'rotating.test', nowS())), 'No key with kid "2026-01" for SSO issuer: rotating.test.');
  accepted(t, await callback(app, ssoToken(key2, 'rotating.test', nowS())));
});

t.test('unknown kids within the cooldown do not refetch the JWKS', async (t) => {
  const jwks = await jwksServer(t, () => [key1]);
  await registerPartner(db, { issuer: 'cooldown.test', jwksUrl: jwks.jwksUrl });
  accepted(t, await callback(app, ssoToken(key1, 'cooldown.test', nowS())));
  for (let i = 0; i < 20; i += 1) {
    refused(t, await callback(app, ssoToken(withKid(key1, `bogus-${i}`), 'cooldown.test', nowS())), /^No key with kid "bogus-\d+"/);
  }
  t.equal(jwks.hits(), 1, 'a flood of unknown kids costs the partner nothing');
  advance(30);
  refused(t, await callback(app, ssoToken(withKid(key1, 'bogus-late'), 'cooldown.test', nowS())), /^No key with kid/);
  t.equal(jwks.hits(), 2, 'after the cooldown one refetch is allowed');
});

t.test('100 logins cost one JWKS fetch', async (t) => {
  const jwks = await jwksServer(t, () => [key1]);
  await registerPartner(db, { issuer: 'busy.test', jwksUrl: jwks.jwksUrl });
  let signedIn = 0;
  for (let i = 0; i < 100; i += 1) {
    const res = await callback(app, ssoToken(key1, 'busy.test', nowS()));
    if (res.status === 302 && res.sessionCookie) signedIn += 1;
  }
  t.equal(signedIn, 100, 'all 100 signed in');
  t.equal(jwks.hits(), 1);
});

t.test('concurrent logins on a cold cache share one JWKS fetch', async (t) => {
  const jwks = await jwksServer(t, () => [key1]);
  await registerPartner(db, { issuer: 'crowd.test', jwksUrl: jwks.jwksUrl });
  const results = await Promise.all(Array.from({ length: 10 }, () => callback(app, ssoToken(key1, 'crowd.test', nowS()))));
  t.same([...new Set(results.map((r) => r.reason))], [null], 'no refusal');
  t.equal(results.filter((r) => r.status === 302 && r.sessionCookie).length, 10, 'all 10 signed in');
  t.equal(jwks.hits(), 1);
});

t.test('keys are used for up to one hour, refreshed in the background from 50 minutes on', async (t) => {
  const jwks = await jwksServer(t, () => [key1]);
  await registerPartner(db, { issuer: 'hourly.test', jwksUrl: jwks.jwksUrl });
  accepted(t, await callback(app, ssoToken(key1, 'hourly.test', nowS())));
  advance(2999);
  accepted(t, await callback(app, ssoToken(key1, 'hourly.test', nowS())));
  t.equal(jwks.hits(), 1, 'still cached at 49:59');
  advance(1);
  accepted(t, await callback(app, ssoToken(key1, 'hourly.test', nowS())));
  await app.partnerKeys.jwks.refreshing(jwks.jwksUrl);
  t.equal(jwks.hits(), 2, 'fetched again at 50:00, after the sign-in was answered');
  advance(3000);
  accepted(t, await callback(app, ssoToken(key1, 'hourly.test', nowS())));
  await app.partnerKeys.jwks.refreshing(jwks.jwksUrl);
  t.equal(jwks.hits(), 3, 'and 50 minutes after that');
});

t.test('URL down with a warm cache: the last good keys keep working', async (t) => {
  const jwks = await jwksServer(t, () => [key1]);
  await registerPartner(db, { issuer: 'flaky.test', jwksUrl: jwks.jwksUrl });
  accepted(t, await callback(app, ssoToken(key1, 'flaky.test', nowS())));
  const failuresBefore = app.partnerKeys.jwks.stats.failures;
  const staleBefore = app.partnerKeys.jwks.stats.staleServed;
  jwks.server.closeAllConnections();
  await new Promise<void>((resolve) => jwks.server.close(() => resolve()));

  advance(2 * 3600); // well past the cache's max age: a refetch is due and fails
  accepted(t, await callback(app, ssoToken(key1, 'flaky.test', nowS())));
  await app.partnerKeys.jwks.refreshing(jwks.jwksUrl);
  t.equal(app.partnerKeys.jwks.stats.failures, failuresBefore + 1, 'the refetch failed');
  t.equal(app.partnerKeys.jwks.stats.staleServed, staleBefore + 1, 'and the stale keys were served (also logged)');
  accepted(t, await callback(app, ssoToken(key1, 'flaky.test', nowS())));
  t.equal(app.partnerKeys.jwks.stats.failures, failuresBefore + 1, 'no new attempt within the cooldown');
});

t.test('URL down with a cold cache: refused within the timeout with a clear reason', async (t) => {
  // Accepts the connection and never answers.
  const silent = await localServer(t, () => {});
  await registerPartner(db, { issuer: 'silent.test', jwksUrl: `${silent.url}/jwks.json` });
  refused(
    t,
    await callback(app, ssoToken(key1, 'silent.test', nowS())),
    'The JWKS of SSO issuer silent.test could not be fetched: no answer within 2000 ms.',
  );
  t.equal(silent.hits(), 1);
  // Within the cooldown the next attempt fails at once with the same reason, without a request.
  refused(t, await callback(app, ssoToken(key1, 'silent.test', nowS())), /could not be fetched: no answer within 2000 ms/);
  t.equal(silent.hits(), 1);
});

t.test('a refused connection with a cold cache is refused with the cause', async (t) => {
  const gone = await localServer(t, () => {});
  await new Promise<void>((resolve) => gone.server.close(() => resolve()));
  await registerPartner(db, { issuer: 'gone.test', jwksUrl: `${gone.url}/jwks.json` });
  refused(
    t,
    await callback(app, ssoToken(key1, 'gone.test', nowS())),
    /^The JWKS of SSO issuer gone\.test could not be fetched: request failed \(.*ECONNREFUSED/,
  );
});

t.test('a JWKS URL answering 500 with a cold cache is refused with the status', async (t) => {
  const broken = await localServer(t, (_req, res) => {
    res.writeHead(500).end('oops');
  });
  await registerPartner(db, { issuer: 'broken.test', jwksUrl: `${broken.url}/jwks.json` });
  refused(
    t,
    await callback(app, ssoToken(key1, 'broken.test', nowS())),
    'The JWKS of SSO issuer broken.test could not be fetched: HTTP 500.',
  );
});

t.test('keys in the JWKS that are not RS256 signing keys are not trusted', async (t) => {
  const encKey = { ...withKid(key2, 'enc-1').publicJwk, use: 'enc' };
  const rs512Key = { ...withKid(key2, 'rs512-1').publicJwk, alg: 'RS512' };
  const srv = await localServer(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [encKey, rs512Key, key1.publicJwk] }));
  });
  await registerPartner(db, { issuer: 'mixed.test', jwksUrl: `${srv.url}/jwks.json` });
  accepted(t, await callback(app, ssoToken(key1, 'mixed.test', nowS())));
  refused(t, await callback(app, ssoToken(withKid(key2, 'enc-1'), 'mixed.test', nowS())), /^No key with kid "enc-1"/);
  refused(t, await callback(app, ssoToken(withKid(key2, 'rs512-1'), 'mixed.test', nowS())), /^No key with kid "rs512-1"/);
});

t.test('a partner with a PEM key and a JWKS URL: both are its keys, the PEM key needs no fetch', async (t) => {
  const jwks = await jwksServer(t, () => [key2]);
  await registerPartner(db, { issuer: 'both.test', jwksUrl: jwks.jwksUrl, pemKeys: [key1] });
  accepted(t, await callback(app, ssoToken(key1, 'both.test', nowS())));
  t.equal(jwks.hits(), 0);
  accepted(t, await callback(app, ssoToken(key2, 'both.test', nowS())));
  t.equal(jwks.hits(), 1);
});

t.test('a sign-in with a known kid completes while a refetch of the hanging JWKS URL is pending', async (t) => {
  let hang = false;
  const held: import('node:http').ServerResponse[] = [];
  const answer = (res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [key1.publicJwk] }));
  };
  const srv = await localServer(t, (_req, res) => (hang ? held.push(res) : answer(res)));
  const jwksUrl = `${srv.url}/jwks.json`;
  await registerPartner(db, { issuer: 'hanging.test', jwksUrl });
  accepted(t, await callback(app, ssoToken(key1, 'hanging.test', nowS())));

  // Someone sends a token with a made-up kid as the partner's URL starts hanging: a refetch starts.
  hang = true;
  advance(31);
  let missSettled = false;
  const miss = callback(app, ssoToken(withKid(key1, 'made-up'), 'hanging.test', nowS())).finally(() => (missSettled = true));
  for (let i = 0; i < 200 && srv.hits() < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  t.equal(srv.hits(), 2, 'the refetch reached the partner');

  accepted(t, await callback(app, ssoToken(key1, 'hanging.test', nowS())));
  t.notOk(missSettled, 'the member signed in while the refetch was still pending');
  t.ok(app.partnerKeys.jwks.refreshing(jwksUrl));
  for (const res of held.splice(0)) answer(res);
  refused(t, await miss, /^No key with kid "made-up"/);
});

t.test('tokens whose iss is not a registered partner never make the LMS fetch a JWKS', async (t) => {
  const jwks = await jwksServer(t, () => [key1]);
  await registerPartner(db, { issuer: 'real.test', jwksUrl: jwks.jwksUrl });
  const fetchesBefore = app.partnerKeys.jwks.stats.fetches;
  for (let i = 0; i < 10; i += 1) {
    refused(t, await callback(app, ssoToken(withKid(key1, `kid-${i}`), `real.test.attacker-${i}`, nowS())), /issuer/);
  }
  t.equal(jwks.hits(), 0);
  t.equal(app.partnerKeys.jwks.stats.fetches, fetchesBefore, 'no JWKS fetched at all');
});
