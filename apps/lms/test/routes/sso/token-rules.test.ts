import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import {
  callback,
  type CallbackResult,
  gatewayProof,
  jwksServer,
  localServer,
  makePartnerKey,
  registerPartner,
  signRaw,
  ssoClaims,
  ssoToken,
  withKid,
} from '../../helpers/sso.js';

// Every rule of the spec's SSO JWT section, one case each, through the callback over HTTP.
// One app and database for the file; the clock is fixed (the tolerance on exp/iat is 30 s).
const NOW = new Date('2026-11-22T10:00:00Z');
const NOW_S = NOW.getTime() / 1000;
let now = NOW;
const { app } = await buildTestApp(t, { deps: { clock: () => now } });
const db = app.db;

const A = 'partner-a.test';
const B = 'partner-b.test';
const keyA = await makePartnerKey('a-1');
const keyB1 = await makePartnerKey('b-1');
const keyB2 = withKid(keyA, 'b-2'); // B's second key (material reused: key generation is slow)
const attacker = await makePartnerKey('a-1');
const longKid = 'k'.repeat(128);
const longIssuer = `${'i'.repeat(249)}.com`; // 253 characters
await registerPartner(db, { issuer: A, pemKeys: [keyA, withKid(keyA, longKid)] });
await registerPartner(db, { issuer: B, pemKeys: [keyB1, keyB2] });
await registerPartner(db, { issuer: 'nokeys.test' });
await registerPartner(db, { issuer: 'inactive.test', pemKeys: [keyA], isActive: false });
await registerPartner(db, { issuer: longIssuer, pemKeys: [keyA] });

function accepted(t: Test, res: CallbackResult) {
  t.equal(res.status, 302, `accepted (got ${res.error}: ${res.reason})`);
  t.equal(res.location, '/dashboard');
  t.ok(res.sessionCookie, 'a session cookie is set');
}

function refused(t: Test, res: CallbackResult, error: string, reason: string | RegExp | null) {
  t.equal(res.status, 307, 'redirected to the sign-in page');
  t.match(res.location, /^\/sign-in\?/);
  t.equal(res.error, error);
  if (reason === null) t.equal(res.reason, null, 'no reason');
  else if (typeof reason === 'string') t.equal(res.reason, reason);
  else t.match(res.reason, reason);
  t.equal(res.sessionCookie, undefined, 'no session cookie');
}

const ALG = '"alg" (Algorithm) Header Parameter value not allowed';
const header = (extra: Record<string, unknown> = {}) => ({ alg: 'RS256', typ: 'JWT', kid: 'a-1', ...extra });

t.test('a valid token of a PEM-registered partner signs the member in: 302 to /dashboard with a cookie', async (t) => {
  accepted(t, await callback(app, ssoToken(keyA, A, NOW_S)));
});

t.test("GET /sso/verify sends the browser on to the callback with the token and the gateway's proof (307)", async (t) => {
  const token = ssoToken(keyA, A, NOW_S);
  const proof = gatewayProof(app, token);
  const res = await app.inject(`/sso/verify?token=${encodeURIComponent(token)}&proof=${proof}`);
  t.equal(res.statusCode, 307);
  t.equal(res.headers.location, `/api/auth/sso/callback?token=${token}&proof=${proof}`);
  t.equal(res.headers['set-cookie'], undefined);
  accepted(t, await callback(app, token, { proof: new URL(res.headers.location as string, 'http://lms.test').searchParams.get('proof') }));
});

t.test('no token: missing_token without a reason, from /sso/verify and from the callback', async (t) => {
  const verify = await app.inject('/sso/verify');
  t.equal(verify.statusCode, 307);
  t.equal(verify.headers.location, '/sign-in?error=missing_token');
  refused(t, await callback(app, undefined), 'missing_token', null);
  refused(t, await callback(app, ''), 'missing_token', null);
});

t.test('token kinds: a course-creation (bearer) token is refused at the callback', async (t) => {
  // As a partner signs it for POST /api/courses: no email, no membershipId, sub names its system.
  const bearer = ssoToken(keyA, A, NOW_S, { email: undefined, membershipId: undefined, name: undefined, sub: 'course-sync' });
  refused(t, await callback(app, bearer), 'invalid_token', 'The "sub" claim must be one of: member, umum, mahasiswa.');
  // The same with a tier for sub: still no e-mail, the spec's sso_failed.
  const tiered = ssoToken(keyA, A, NOW_S, { email: undefined, membershipId: undefined, name: undefined, sub: 'member' });
  refused(t, await callback(app, tiered), 'sso_failed', 'missing_email');
});

t.test('a repeated token parameter is refused as malformed', async (t) => {
  const token = ssoToken(keyA, A, NOW_S);
  const res = await app.inject(`/api/auth/sso/callback?token=${token}&token=${token}&proof=${gatewayProof(app, token)}`);
  t.equal(res.statusCode, 307);
  t.match(res.headers.location, /error=invalid_token/);
});

t.test('alg none is refused', async (t) => {
  const token = signRaw(header({ alg: 'none' }), ssoClaims(A, NOW_S), keyA, 'none');
  refused(t, await callback(app, token), 'invalid_token', ALG);
});

t.test('HS256 signed with the partner public key as the secret is refused', async (t) => {
  const token = signRaw(header({ alg: 'HS256' }), ssoClaims(A, NOW_S), keyA, { hs256Secret: keyA.publicPem });
  refused(t, await callback(app, token), 'invalid_token', ALG);
});

t.test('RS512 is refused', async (t) => {
  const token = signRaw(header({ alg: 'RS512' }), ssoClaims(A, NOW_S), keyA, 'RS512');
  refused(t, await callback(app, token), 'invalid_token', ALG);
});

t.test('PS256 is refused', async (t) => {
  const token = signRaw(header({ alg: 'PS256' }), ssoClaims(A, NOW_S), keyA, 'PS256');
  refused(t, await callback(app, token), 'invalid_token', ALG);
});

t.test('a PS256 signature under an RS256 header fails the signature check', async (t) => {
  const token = signRaw(header(), ssoClaims(A, NOW_S), keyA, 'PS256');
  refused(t, await callback(app, token), 'invalid_token', 'signature verification failed');
});

t.test('a flipped signature byte fails the signature check', async (t) => {
  const [h, p, s] = ssoToken(keyA, A, NOW_S).split('.');
  const signature = Buffer.from(s!, 'base64url');
  signature[10] = signature[10]! ^ 0x01;
  refused(t, await callback(app, `${h}.${p}.${signature.toString('base64url')}`), 'invalid_token', 'signature verification failed');
});

t.test('jku, x5u and jwk headers are ignored: nothing is fetched and the embedded key is not trusted', async (t) => {
  const trap = await localServer(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [attacker.publicJwk] }));
  });
  const hostile = {
    jku: `${trap.url}/jwks.json`,
    x5u: `${trap.url}/cert.pem`,
    jwk: attacker.publicJwk,
  };
  const forged = signRaw(header(hostile), ssoClaims(A, NOW_S), attacker);
  refused(t, await callback(app, forged), 'invalid_token', 'signature verification failed');
  // The same headers on a token the partner really signed change nothing either.
  accepted(t, await callback(app, ssoToken(keyA, A, NOW_S, {}, hostile)));
  t.equal(trap.hits(), 0, 'no request reached the URLs named in the token');
});

t.test('a crit header is refused', async (t) => {
  const token = signRaw(header({ crit: ['exp'], exp: NOW_S + 60 }), ssoClaims(A, NOW_S), keyA);
  refused(t, await callback(app, token), 'invalid_token', 'The "crit" header parameter is not supported.');
});

t.test('typ other than JWT is refused', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, {}, { typ: 'jwt' })), 'invalid_token', 'unexpected "typ" JWT header value');
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, {}, { typ: undefined })), 'invalid_token', 'unexpected "typ" JWT header value');
});

t.test('no kid, with a partner that has several keys, is refused cleanly', async (t) => {
  const token = ssoToken(keyB1, B, NOW_S, {}, { kid: undefined });
  refused(t, await callback(app, token), 'invalid_token', 'Missing key id (kid) in the token header.');
});

t.test('an unknown kid is refused', async (t) => {
  const token = ssoToken(withKid(keyA, 'nope'), A, NOW_S);
  refused(t, await callback(app, token), 'invalid_token', 'No key with kid "nope" for SSO issuer: partner-a.test.');
});

t.test("a token signed by partner A with iss = partner B is refused (B's keys only)", async (t) => {
  refused(
    t,
    await callback(app, ssoToken(keyA, A, NOW_S, { iss: B })),
    'invalid_token',
    'No key with kid "a-1" for SSO issuer: partner-b.test.',
  );
  // Even naming one of B's kids, A's signature does not verify with B's key.
  refused(t, await callback(app, ssoToken(withKid(keyA, 'b-1'), A, NOW_S, { iss: B })), 'invalid_token', 'signature verification failed');
});

t.test('no iss: Missing issuer (iss) claim.', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { iss: undefined })), 'invalid_token', 'Missing issuer (iss) claim.');
});

t.test('unknown issuer: Unsupported SSO issuer', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, 'nobody.test', NOW_S)), 'invalid_token', 'Unsupported SSO issuer: nobody.test');
});

t.test('a deactivated partner is an unsupported issuer', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, 'inactive.test', NOW_S)), 'invalid_token', 'Unsupported SSO issuer: inactive.test');
});

t.test('a partner without a PEM key or JWKS URL: No public key or JWKS URL configured', async (t) => {
  refused(
    t,
    await callback(app, ssoToken(keyA, 'nokeys.test', NOW_S)),
    'invalid_token',
    'No public key or JWKS URL configured for SSO issuer: nokeys.test.',
  );
});

t.test('aud missing is refused', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { aud: undefined })), 'invalid_token', 'missing required "aud" claim');
});

t.test('aud terang.ai.evil is refused', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { aud: 'terang.ai.evil' })), 'invalid_token', 'unexpected "aud" claim value');
});

t.test('aud Terang.ai is refused', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { aud: 'Terang.ai' })), 'invalid_token', 'unexpected "aud" claim value');
});

t.test('aud as an array without terang.ai is refused', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { aud: ['other.example'] })), 'invalid_token', 'unexpected "aud" claim value');
});

t.test('aud as an array even with terang.ai is refused (the spec wants the string)', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { aud: ['terang.ai'] })), 'invalid_token', 'unexpected "aud" claim value');
});

t.test('exp missing is refused', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { exp: undefined })), 'invalid_token', 'missing required "exp" claim');
});

t.test('iat missing is refused', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { iat: undefined })), 'invalid_token', 'missing required "iat" claim');
});

t.test('exp - iat = 301 is refused; 300 is accepted', async (t) => {
  refused(
    t,
    await callback(app, ssoToken(keyA, A, NOW_S, { exp: NOW_S + 301 })),
    'invalid_token',
    'Token lifetime exceeds the allowed 5-minute window.',
  );
  accepted(t, await callback(app, ssoToken(keyA, A, NOW_S, { exp: NOW_S + 300 })));
});

t.test('expired: accepted 29 s after exp (within the 30 s tolerance), refused at 30 s', async (t) => {
  accepted(t, await callback(app, ssoToken(keyA, A, NOW_S, { iat: NOW_S - 329, exp: NOW_S - 29 })));
  refused(
    t,
    await callback(app, ssoToken(keyA, A, NOW_S, { iat: NOW_S - 330, exp: NOW_S - 30 })),
    'invalid_token',
    '"exp" claim timestamp check failed',
  );
});

t.test('the same token is accepted before exp + tolerance and refused after, as the clock moves', async (t) => {
  const token = ssoToken(keyA, A, NOW_S, { exp: NOW_S + 60 });
  now = new Date((NOW_S + 90) * 1000);
  t.teardown(() => {
    now = NOW;
  });
  refused(t, await callback(app, token), 'invalid_token', '"exp" claim timestamp check failed');
  now = new Date((NOW_S + 89) * 1000);
  accepted(t, await callback(app, token));
});

t.test('iat in the future beyond the tolerance is refused; within it, accepted', async (t) => {
  refused(
    t,
    await callback(app, ssoToken(keyA, A, NOW_S, { iat: NOW_S + 31, exp: NOW_S + 200 })),
    'invalid_token',
    '"iat" claim timestamp check failed (it should be in the past)',
  );
  accepted(t, await callback(app, ssoToken(keyA, A, NOW_S, { iat: NOW_S + 30, exp: NOW_S + 200 })));
});

t.test('sub = admin is refused', async (t) => {
  refused(
    t,
    await callback(app, ssoToken(keyA, A, NOW_S, { sub: 'admin' })),
    'invalid_token',
    'The "sub" claim must be one of: member, umum, mahasiswa.',
  );
});

t.test('sub = Member (wrong case) is refused', async (t) => {
  refused(
    t,
    await callback(app, ssoToken(keyA, A, NOW_S, { sub: 'Member' })),
    'invalid_token',
    'The "sub" claim must be one of: member, umum, mahasiswa.',
  );
});

t.test('sub as a number is refused', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { sub: 1 })), 'invalid_token', '"sub" claim must be a string');
});

t.test('sub missing is refused', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { sub: undefined })), 'invalid_token', 'missing required "sub" claim');
});

t.test('umum and mahasiswa are accepted', async (t) => {
  accepted(t, await callback(app, ssoToken(keyA, A, NOW_S, { sub: 'umum' })));
  accepted(t, await callback(app, ssoToken(keyA, A, NOW_S, { sub: 'mahasiswa' })));
});

t.test('jti missing is refused', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { jti: undefined })), 'invalid_token', 'missing required "jti" claim');
});

t.test('no email: sso_failed / missing_email', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { email: undefined })), 'sso_failed', 'missing_email');
});

t.test('no membershipId: sso_failed / missing_membership_id', async (t) => {
  refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { membershipId: undefined })), 'sso_failed', 'missing_membership_id');
});

t.test('an email that is not an address is refused', async (t) => {
  refused(
    t,
    await callback(app, ssoToken(keyA, A, NOW_S, { email: 'not-an-address' })),
    'invalid_token',
    '"email" claim is not an e-mail address',
  );
});

// Each field at its maximum length is accepted; one character more is refused.
const maxEmail = (length: number) => `${'e'.repeat(64)}@${'d'.repeat(length - 64 - 1 - 5)}.test`;
t.test('each claim at its max length is accepted, one over is refused', async (t) => {
  const cases: Array<{ field: string; atMax: () => string; over: () => string; reason: string }> = [
    {
      field: 'kid (128)',
      atMax: () => ssoToken(withKid(keyA, longKid), A, NOW_S),
      over: () => ssoToken(withKid(keyA, `${longKid}k`), A, NOW_S),
      reason: '"kid" header parameter is longer than 128 characters',
    },
    {
      field: 'iss (253)',
      atMax: () => ssoToken(keyA, longIssuer, NOW_S),
      over: () => ssoToken(keyA, `i${longIssuer}`, NOW_S),
      reason: '"iss" claim is longer than 253 characters',
    },
    {
      field: 'email (254)',
      atMax: () => ssoToken(keyA, A, NOW_S, { email: maxEmail(254) }),
      over: () => ssoToken(keyA, A, NOW_S, { email: maxEmail(255) }),
      reason: '"email" claim is longer than 254 characters',
    },
    {
      field: 'name (255)',
      atMax: () => ssoToken(keyA, A, NOW_S, { name: 'n'.repeat(255) }),
      over: () => ssoToken(keyA, A, NOW_S, { name: 'n'.repeat(256) }),
      reason: '"name" claim is longer than 255 characters',
    },
    {
      field: 'membershipId (255)',
      atMax: () => ssoToken(keyA, A, NOW_S, { membershipId: `${randomUUID()}${'m'.repeat(219)}` }),
      over: () => ssoToken(keyA, A, NOW_S, { membershipId: `${randomUUID()}${'m'.repeat(220)}` }),
      reason: '"membershipId" claim is longer than 255 characters',
    },
    {
      field: 'jti (64)',
      atMax: () => ssoToken(keyA, A, NOW_S, { jti: `${randomUUID()}${'j'.repeat(28)}` }),
      over: () => ssoToken(keyA, A, NOW_S, { jti: `${randomUUID()}${'j'.repeat(29)}` }),
      reason: '"jti" claim is longer than 64 characters',
    },
  ];
  for (const c of cases) {
    await t.test(c.field, async (t) => {
      accepted(t, await callback(app, c.atMax()));
      refused(t, await callback(app, c.over()), 'invalid_token', c.reason);
    });
  }
  // sub can only be one of three words (the longest, mahasiswa, is accepted above); past its
  // 100-character limit the length rule names the field.
  await t.test('sub (100)', async (t) => {
    refused(
      t,
      await callback(app, ssoToken(keyA, A, NOW_S, { sub: 's'.repeat(101) })),
      'invalid_token',
      '"sub" claim is longer than 100 characters',
    );
  });
  // aud, alg and typ have exact values, which are their maximum lengths (9, 5, 3).
  await t.test('aud (9)', async (t) => {
    refused(t, await callback(app, ssoToken(keyA, A, NOW_S, { aud: 'terang.aix' })), 'invalid_token', 'unexpected "aud" claim value');
  });
  await t.test('alg (5)', async (t) => {
    refused(t, await callback(app, ssoToken(keyA, A, NOW_S, {}, { alg: 'RS2566' })), 'invalid_token', ALG);
  });
  await t.test('typ (3)', async (t) => {
    refused(t, await callback(app, ssoToken(keyA, A, NOW_S, {}, { typ: 'JWTT' })), 'invalid_token', 'unexpected "typ" JWT header value');
  });
});

t.test('claims of the wrong JSON type are refused', async (t) => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, string | RegExp]> = [
    ['iss as a number', { iss: 42 }, {}, '"iss" claim must be a string'],
    ['iat as a string', { iat: String(NOW_S) }, {}, '"iat" claim must be a number'],
    ['exp as a string', { exp: String(NOW_S + 60) }, {}, '"exp" claim must be a number'],
    ['iat with a fraction', { iat: NOW_S + 0.5 }, {}, /"iat" claim must be a whole number/],
    ['exp as null', { exp: null }, {}, '"exp" claim must be a number'],
    ['iat as a boolean', { iat: true }, {}, '"iat" claim must be a number'],
    ['email as a number', { email: 12345 }, {}, '"email" claim must be a string'],
    ['email as an object', { email: { address: 'x@y.z' } }, {}, '"email" claim must be a string'],
    ['name as a number', { name: 7 }, {}, '"name" claim must be a string'],
    ['membershipId as a number', { membershipId: 1234567890 }, {}, '"membershipId" claim must be a string'],
    ['jti as a number', { jti: 99 }, {}, '"jti" claim must be a string'],
    ['kid as a number', {}, { kid: 5 }, '"kid" header parameter must be a string'],
    ['aud as a number', { aud: 1 }, {}, 'unexpected "aud" claim value'],
  ];
  for (const [label, claims, hdr, reason] of cases) {
    await t.test(label, async (t) => {
      refused(t, await callback(app, ssoToken(keyA, A, NOW_S, claims, hdr)), 'invalid_token', reason);
    });
  }
});

t.test('a token over 8 KB is refused before any key is looked up or signature checked', async (t) => {
  const partnerKey = await makePartnerKey('big-1');
  const jwks = await jwksServer(t, () => [partnerKey]);
  await registerPartner(db, { issuer: 'big.test', jwksUrl: jwks.jwksUrl });
  const token = ssoToken(partnerKey, 'big.test', NOW_S, { padding: 'p'.repeat(8 * 1024) });
  t.ok(token.length > 8 * 1024);
  refused(t, await callback(app, token), 'invalid_token', 'Token exceeds the maximum size of 8192 bytes.');
  t.equal(jwks.hits(), 0, "the partner's JWKS was not fetched");
  // The same partner's normal-sized token works (the JWKS server is reachable).
  accepted(t, await callback(app, ssoToken(partnerKey, 'big.test', NOW_S)));
  t.equal(jwks.hits(), 1);
});

t.test('malformed tokens: Failed to base64url decode the payload', async (t) => {
  const [h, p, s] = ssoToken(keyA, A, NOW_S).split('.');
  const cases: Array<[string, string]> = [
    ['one segment', 'abc'],
    ['two segments', `${h}.${p}`],
    ['four segments', `${h}.${p}.${s}.${s}`],
    ['empty segments', '..'],
    ['payload not base64url', `${h}.!!!.${s}`],
    ['payload not JSON', `${h}.${Buffer.from('not json').toString('base64url')}.${s}`],
    ['payload a JSON array', `${h}.${Buffer.from('["a"]').toString('base64url')}.${s}`],
    ['payload a JSON string', `${h}.${Buffer.from('"a"').toString('base64url')}.${s}`],
    ['header not JSON', `${Buffer.from('{alg').toString('base64url')}.${p}.${s}`],
    ['signature not base64url', `${h}.${p}.sig+nature/`],
    ['spaces', `${h} .${p}.${s}`],
  ];
  for (const [label, token] of cases) {
    await t.test(label, async (t) => {
      refused(t, await callback(app, token), 'invalid_token', 'Failed to base64url decode the payload');
    });
  }
});
