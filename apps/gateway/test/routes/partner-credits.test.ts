import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { buildGateway } from '../../src/app.js';
import { TEST_GATEWAY_SECRET, testConfig } from '../../src/testing.js';
import { signPartnerToken, writePartnersFile } from '../helpers/partners.js';

// GET /api/partner/credits at the gateway: refused before the LMS without a token, for an unknown
// issuer or a caller IP not allowed; otherwise forwarded with its query and the gateway's
// credential, the LMS's answer relayed. (A real LMS behind a real gateway: e2e/test/partner-credits.test.ts.)

t.test('checked, then forwarded as it came', async (t) => {
  const received: { url: string; headers: Record<string, unknown> }[] = [];
  const lms = createServer((req, res) => {
    received.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"members":[]}');
  });
  await new Promise<void>((resolve) => lms.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => lms.close(() => resolve())));
  const lmsUrl = `http://127.0.0.1:${(lms.address() as AddressInfo).port}`;
  const file = await writePartnersFile(t, { partners: [{ iss: 'partner-a.example', allowedIps: ['203.0.113.10/32'], lmsUrl }] });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false });
  t.teardown(() => app.close());
  const bearer = await signPartnerToken('partner-a.example', { sub: 'credits', email: undefined, membershipId: undefined });
  const stranger = await signPartnerToken('stranger.example', { sub: 'credits', email: undefined, membershipId: undefined });
  const url = '/api/partner/credits?page=2&limit=50&membershipId=A-1';
  const send = (headers: Record<string, string>, remoteAddress = '203.0.113.10') => app.inject({ url, remoteAddress, headers });

  t.equal((await send({})).statusCode, 401, 'no token');
  t.equal((await send({ authorization: `Bearer ${stranger}` })).statusCode, 401, 'unknown issuer');
  const wrongIp = await send({ authorization: `Bearer ${bearer}` }, '192.0.2.1');
  t.equal(wrongIp.statusCode, 403);
  t.same(wrongIp.json(), { success: false, error: 'IP 192.0.2.1 is not whitelisted for issuer partner-a.example' });
  t.equal(received.length, 0, 'none reached the LMS');

  const ok = await send({ authorization: `Bearer ${bearer}` });
  t.equal(ok.statusCode, 200);
  t.same(ok.json(), { success: true, members: [] });
  t.match(received[0], { url, headers: { authorization: `Bearer ${bearer}`, 'x-gateway-secret': TEST_GATEWAY_SECRET } });
});

t.test('the OpenAPI document lists it with its answers', async (t) => {
  const file = await writePartnersFile(t, { partners: [] });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false });
  t.teardown(() => app.close());
  const doc = (await app.inject('/docs/json')).json();
  const op = doc.paths['/api/partner/credits']?.get;
  t.ok(op);
  t.same(Object.keys(op.responses).sort(), ['200', '400', '401', '403', '502', '503', '504']);
  t.ok(op.parameters.some((p: { name: string; in: string }) => p.name === 'limit' && p.in === 'query'));
});
