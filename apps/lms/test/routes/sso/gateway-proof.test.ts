import { signGatewayProof } from '@lms/partner-auth';
import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { TEST_GATEWAY_SECRET } from '../../../src/testing.js';
import { buildTestApp } from '../../helpers/app.js';
import { callback, type CallbackResult, gatewayProof, jwksServer, makePartnerKey, registerPartner, ssoToken } from '../../helpers/sso.js';

// docs/architecture.md, "SSO only through the gateway": the LMS signs in only with a token that
// came with the gateway's proof (an HMAC under GATEWAY_SECRET bound to that token, 120 s). Each way
// an attacker could skip the gateway (and with it the partner's IP allowlist), over HTTP.
const NOW = new Date('2026-11-22T10:00:00Z');
const NOW_S = NOW.getTime() / 1000;
let now = NOW;
const { app } = await buildTestApp(t, { deps: { clock: () => now } });
const key = await makePartnerKey('p-1');
await registerPartner(app.db, { issuer: 'partner.test', pemKeys: [key] });

const NOT_THROUGH_GATEWAY = /^The sign-in did not come through the gateway: /;

function accepted(t: Test, res: CallbackResult) {
  t.equal(res.status, 302, `accepted (got ${res.error}: ${res.reason})`);
  t.equal(res.location, '/dashboard');
  t.ok(res.sessionCookie);
}

function refused(t: Test, res: CallbackResult, reason: string | RegExp) {
  t.equal(res.status, 307);
  t.equal(res.error, 'invalid_token');
  if (typeof reason === 'string') t.equal(res.reason, reason);
  else t.match(res.reason, reason);
  t.equal(res.sessionCookie, undefined, 'no session');
}

t.test('a valid token sent straight to the LMS, without the proof, is refused; its jti is not spent', async (t) => {
  const token = ssoToken(key, 'partner.test', NOW_S);
  refused(t, await callback(app, token, { proof: null }), 'The sign-in did not come through the gateway: no gateway proof.');
  refused(t, await callback(app, token, { proof: '' }), 'The sign-in did not come through the gateway: no gateway proof.');
  // The same token as the gateway would hand it on signs in: nothing was spent by the refusals.
  accepted(t, await callback(app, token));
});

t.test("through the LMS's own /sso/verify without a proof: the 307 carries none and the callback refuses", async (t) => {
  const token = ssoToken(key, 'partner.test', NOW_S);
  const verify = await app.inject(`/sso/verify?token=${token}`);
  t.equal(verify.statusCode, 307);
  t.equal(verify.headers.location, `/api/auth/sso/callback?token=${token}`);
  const res = await app.inject(verify.headers.location as string);
  t.equal(res.statusCode, 307);
  const location = new URL(res.headers.location as string, 'http://lms.test');
  t.equal(location.pathname, '/sign-in');
  t.equal(location.searchParams.get('error'), 'invalid_token');
  t.match(location.searchParams.get('reason'), NOT_THROUGH_GATEWAY);
  t.notOk(
    res.cookies.some((c) => c.value !== ''),
    'no cookie',
  );
});

t.test('a forged proof, one under another secret, and one of another token are refused', async (t) => {
  const token = ssoToken(key, 'partner.test', NOW_S);
  const mismatch = 'The sign-in did not come through the gateway: the gateway proof does not match this token.';
  const exp = NOW_S + 120;
  refused(t, await callback(app, token, { proof: `${exp}.${randomBytes(32).toString('base64url')}` }), mismatch);
  refused(t, await callback(app, token, { proof: gatewayProof(app, token, 'not-the-gateway-secret-0123456789') }), mismatch);
  const other = ssoToken(key, 'partner.test', NOW_S);
  refused(t, await callback(app, token, { proof: gatewayProof(app, other) }), mismatch);
  // A valid proof with a later expiry written over it.
  const [, mac] = gatewayProof(app, token).split('.');
  refused(t, await callback(app, token, { proof: `${exp + 3600}.${mac}` }), mismatch);
  for (const malformed of ['yes', `${exp}`, `${exp}.${mac}.extra`, 'x'.repeat(5000)]) {
    refused(
      t,
      await callback(app, token, { proof: malformed }),
      'The sign-in did not come through the gateway: the gateway proof is malformed.',
    );
  }
  const twice = await app.inject(
    `/api/auth/sso/callback?token=${token}&proof=${gatewayProof(app, token)}&proof=${gatewayProof(app, token)}`,
  );
  t.match(new URL(twice.headers.location as string, 'http://lms.test').searchParams.get('reason'), /malformed/, 'a repeated proof');
  accepted(t, await callback(app, token));
});

t.test('an expired proof is refused: 120 s of life and 10 s of tolerance', async (t) => {
  const token = ssoToken(key, 'partner.test', NOW_S);
  const proof = gatewayProof(app, token);
  t.teardown(() => {
    now = NOW;
  });
  now = new Date(NOW.getTime() + 131_000);
  refused(t, await callback(app, token, { proof }), 'The sign-in did not come through the gateway: the gateway proof has expired.');
  now = new Date(NOW.getTime() + 130_000);
  accepted(t, await callback(app, token, { proof }));
});

t.test('the proof is checked before the key: no JWKS fetch, no issuer lookup for an unproven token', async (t) => {
  const jwksKey = await makePartnerKey('j-1');
  const jwks = await jwksServer(t, () => [jwksKey]);
  await registerPartner(app.db, { issuer: 'jwks-partner.test', jwksUrl: jwks.jwksUrl });
  refused(t, await callback(app, ssoToken(jwksKey, 'jwks-partner.test', NOW_S), { proof: null }), NOT_THROUGH_GATEWAY);
  refused(t, await callback(app, ssoToken(jwksKey, 'nobody.test', NOW_S), { proof: null }), NOT_THROUGH_GATEWAY);
  t.equal(jwks.hits(), 0, "the partner's JWKS was not fetched");
  accepted(t, await callback(app, ssoToken(jwksKey, 'jwks-partner.test', NOW_S)));
  t.equal(jwks.hits(), 1);
});

t.test('an LMS without GATEWAY_SECRET refuses every sign-in, saying why', async (t) => {
  const { app: bare } = await buildTestApp(t, { config: { GATEWAY_SECRET: undefined }, deps: { clock: () => NOW } });
  await registerPartner(bare.db, { issuer: 'partner.test', pemKeys: [key] });
  const token = ssoToken(key, 'partner.test', NOW_S);
  const reason = 'SSO is refused: GATEWAY_SECRET is not configured on this LMS.';
  refused(t, await callback(bare, token, { proof: null }), reason);
  refused(t, await callback(bare, token, { proof: signGatewayProof(TEST_GATEWAY_SECRET, token, NOW_S) }), reason);
  refused(t, await callback(bare, token, { proof: signGatewayProof('', token, NOW_S) }), reason);
});
