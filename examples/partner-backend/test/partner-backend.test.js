import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import t from 'tap';
import { createPartnerBackend } from '../src/partner-backend.js';

const quiet = { info() {}, warn() {}, error() {} };
const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));

const dataDir = await mkdtemp(join(tmpdir(), 'partner-backend-'));
t.teardown(() => rm(dataDir, { recursive: true, force: true }));

// A stand-in gateway on the loopback: records the token it got and answers 302 like the real one
// (the token and a proof for the LMS, which the partner forwards untouched), or 403 when told to.
let gatewayAnswer = 302;
let received = [];
const gateway = createServer((req, res) => {
  const token = new URL(req.url, 'http://x').searchParams.get('token');
  received.push(token);
  if (gatewayAnswer === 302)
    res.writeHead(302, { location: `http://lms.test/sso/verify?token=${token}&proof=1795000120.gateway-proof` }).end();
  else
    res
      .writeHead(403, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: 'IP 10.0.0.9 is not whitelisted for issuer demo-partner.local' }));
});
const gatewayUrl = await listen(gateway);
t.teardown(() => new Promise((r) => gateway.close(r)));

const { server } = await createPartnerBackend({ dataDir, gatewayUrl, log: quiet });
const partnerUrl = await listen(server);
t.teardown(() => new Promise((r) => server.close(r)));

t.test('serves its JWKS and keeps the same key across restarts', async (t) => {
  const jwks = await (await fetch(`${partnerUrl}/.well-known/jwks.json`)).json();
  t.equal(jwks.keys.length, 1);
  t.match(jwks.keys[0], { kty: 'RSA', use: 'sig', alg: 'RS256', kid: String });
  t.equal(jwks.keys[0].d, undefined, 'no private part');
  const again = await createPartnerBackend({ dataDir, gatewayUrl, log: quiet });
  t.equal(again.key.kid, jwks.keys[0].kid, 'the key was persisted in the data dir');
});

t.test('/login signs a valid token, calls the gateway without following, and forwards its Location', async (t) => {
  received = [];
  gatewayAnswer = 302;
  const res = await fetch(`${partnerUrl}/login?email=a%40b.test&name=Ana&membershipId=M-1&tier=mahasiswa`, { redirect: 'manual' });
  t.equal(res.status, 302);
  t.equal(received.length, 1, 'the gateway was called once, by the backend');
  t.equal(
    res.headers.get('location'),
    `http://lms.test/sso/verify?token=${received[0]}&proof=1795000120.gateway-proof`,
    'the Location as it came, proof included',
  );
  const jwks = createLocalJWKSet(await (await fetch(`${partnerUrl}/.well-known/jwks.json`)).json());
  const { payload, protectedHeader } = await jwtVerify(received[0], jwks, {
    algorithms: ['RS256'],
    audience: 'terang.ai',
    issuer: 'demo-partner.local',
  });
  t.match(protectedHeader, { alg: 'RS256', typ: 'JWT', kid: String });
  t.match(payload, { sub: 'mahasiswa', email: 'a@b.test', name: 'Ana', membershipId: 'M-1', jti: String });
  t.ok(payload.exp - payload.iat <= 300);
});

t.test('a gateway refusal is shown, not followed', async (t) => {
  gatewayAnswer = 403;
  const res = await fetch(`${partnerUrl}/login?email=a%40b.test&membershipId=M-1`, { redirect: 'manual' });
  t.equal(res.status, 502);
  t.match(await res.text(), 'is not whitelisted');
});

t.test('bad input is a 400', async (t) => {
  const res = await fetch(`${partnerUrl}/login?email=nope&membershipId=M-1&tier=admin`);
  t.equal(res.status, 400);
});
