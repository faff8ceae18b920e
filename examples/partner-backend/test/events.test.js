import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import t from 'tap';
import { createPartnerBackend } from '../src/partner-backend.js';

// The demo partner receives the LMS's events (Standard Webhooks, verified) and answers the member
// check (the LMS's token verified against the LMS's JWKS, served here by a stand-in LMS).

const quiet = { info() {}, warn() {}, error() {} };
const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));

const dataDir = await mkdtemp(join(tmpdir(), 'partner-events-'));
t.teardown(() => rm(dataDir, { recursive: true, force: true }));

const lmsKey = await generateKeyPair('ES256', { extractable: true });
const lmsJwk = { ...(await exportJWK(lmsKey.publicKey)), kid: 'lms-1', alg: 'ES256' };
const lms = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [lmsJwk] })));
const lmsUrl = await listen(lms);
t.teardown(() => new Promise((r) => lms.close(r)));

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const { server } = await createPartnerBackend({ dataDir, lmsUrl, webhookSecret: secret, log: quiet });
const partnerUrl = await listen(server);
t.teardown(() => new Promise((r) => server.close(r)));

/** Signs as the LMS does (its own few lines here, so the demo's library is checked against them). */
function send(id, body, key = secret) {
  const ts = Math.floor(Date.now() / 1000);
  const sig = createHmac('sha256', Buffer.from(key.replace(/^whsec_/, ''), 'base64'))
    .update(`${id}.${ts}.${body}`)
    .digest('base64');
  return fetch(`${partnerUrl}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': `v1,${sig}` },
    body,
  });
}

t.test('events: verified, shown once, forged ones refused', async (t) => {
  const body = JSON.stringify({
    type: 'certificate.issued',
    timestamp: '2026-03-01T08:00:00.000Z',
    data: {
      member: { iss: 'demo-partner.local', membershipId: 'DEMO-0001' },
      course: { id: 1, name: 'Etika <Profesi>' },
      certificate: { kum: 4 },
    },
  });
  t.equal((await send('msg_1', body)).status, 204);
  t.equal((await send('msg_1', body)).status, 204, 'a redelivery is acknowledged');
  t.equal((await send('msg_2', body, `whsec_${randomBytes(32).toString('base64')}`)).status, 400, 'another secret: refused');
  t.equal((await send('msg_3', body.replace('DEMO-0001', 'DEMO-0002'))).status, 204);
  const page = await (await fetch(`${partnerUrl}/`)).text();
  t.equal(page.match(/msg_1/g)?.length, 1, 'shown once');
  t.match(page, /certificate\.issued/);
  t.match(page, /Etika &lt;Profesi&gt;/, 'escaped');
  t.notMatch(page, /msg_2/);
});

t.test('member check: the LMS token verified, INACTIVE members inactive', async (t) => {
  const token = (sub, aud = 'demo-partner.local', jti = randomUUID()) => {
    const jwt = new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'lms-1' }).setSubject(sub).setAudience(aud).setIssuedAt();
    return (jti ? jwt.setJti(jti) : jwt).setExpirationTime('1m').sign(lmsKey.privateKey);
  };
  const ask = async (auth) =>
    fetch(`${partnerUrl}/members/status`, { method: 'POST', headers: { authorization: `Bearer ${auth}` }, body: '{}' });
  t.same(await (await ask(await token('DEMO-0001'))).json(), { membershipId: 'DEMO-0001', active: true });
  t.same(await (await ask(await token('INACTIVE-9'))).json(), { membershipId: 'INACTIVE-9', active: false });
  t.equal((await ask(await token('DEMO-0001', 'other.example'))).status, 401, 'another audience: refused');
  t.equal((await ask('not-a-token')).status, 401);

  // Someone who saw one of the LMS's requests sends its token again: answered once only.
  const seen = await token('DEMO-0002');
  t.equal((await ask(seen)).status, 200);
  t.equal((await ask(seen)).status, 401, 'a replayed token is refused');
  t.equal((await ask(await token('DEMO-0002', 'demo-partner.local', null))).status, 401, 'a token without a jti is refused');
});
