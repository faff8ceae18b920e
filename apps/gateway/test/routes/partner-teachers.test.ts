import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { buildGateway } from '../../src/app.js';
import { TEST_GATEWAY_SECRET, testConfig } from '../../src/testing.js';
import { signPartnerToken, writePartnersFile } from '../helpers/partners.js';

// GET /api/partner/teachers at the gateway: refused before the LMS without a token, for an unknown
// issuer or a caller IP not allowed (another partner's IP included); otherwise forwarded with its
// query and the gateway's credential, the LMS's answer relayed. (A real LMS behind a real gateway:
// e2e/test/partner-teachers.test.ts.)

t.test('checked, then forwarded as it came', async (t) => {
  const received: { url: string; headers: Record<string, unknown> }[] = [];
  const lms = createServer((req, res) => {
    received.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"institutions":[],"teachers":[]}');
  });
  await new Promise<void>((resolve) => lms.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => lms.close(() => resolve())));
  const lmsUrl = `http://127.0.0.1:${(lms.address() as AddressInfo).port}`;
  const file = await writePartnersFile(t, {
    partners: [
      { iss: 'partner-a.example', allowedIps: ['203.0.113.10/32'], lmsUrl },
      { iss: 'partner-b.example', allowedIps: ['198.51.100.20/32'], lmsUrl },
    ],
  });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false });
  t.teardown(() => app.close());
  const bearer = await signPartnerToken('partner-a.example', { sub: 'course-sync', email: undefined, membershipId: undefined });
  const stranger = await signPartnerToken('stranger.example', { sub: 'course-sync', email: undefined, membershipId: undefined });
  const url = '/api/partner/teachers?institutionId=7&page=2&limit=10';
  const send = (headers: Record<string, string>, remoteAddress = '203.0.113.10') => app.inject({ url, remoteAddress, headers });

  t.equal((await send({})).statusCode, 401, 'no token');
  t.equal((await send({ authorization: 'Bearer not-a-jwt' })).statusCode, 401, 'not a JWT');
  t.equal((await send({ authorization: `Bearer ${stranger}` })).statusCode, 401, 'unknown issuer');
  const wrongIp = await send({ authorization: `Bearer ${bearer}` }, '198.51.100.20');
  t.equal(wrongIp.statusCode, 403, "A's token from B's address");
  t.same(wrongIp.json(), { success: false, error: 'IP 198.51.100.20 is not whitelisted for issuer partner-a.example' });
  t.equal(received.length, 0, 'none reached the LMS');

  const ok = await send({ authorization: `Bearer ${bearer}` });
  t.equal(ok.statusCode, 200);
  t.same(ok.json(), { success: true, institutions: [], teachers: [] });
  t.match(received[0], {
    url,
    headers: { authorization: `Bearer ${bearer}`, 'x-gateway-secret': TEST_GATEWAY_SECRET, 'x-forwarded-for': '203.0.113.10' },
  });
});

t.test('the OpenAPI document lists it with its answers', async (t) => {
  const file = await writePartnersFile(t, { partners: [] });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false });
  t.teardown(() => app.close());
  const doc = (await app.inject('/docs/json')).json();
  const op = doc.paths['/api/partner/teachers']?.get;
  t.ok(op);
  t.same(op.tags, ['partners']);
  t.same(Object.keys(op.responses).sort(), ['200', '400', '401', '403', '502', '503', '504']);
  t.ok(op.parameters.some((p: { name: string; in: string }) => p.name === 'institutionId' && p.in === 'query'));
  t.match(op.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/PartnerTeachersResponse' });
});
