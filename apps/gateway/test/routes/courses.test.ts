import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { buildGateway } from '../../src/app.js';
import { TEST_GATEWAY_SECRET, testConfig } from '../../src/testing.js';
import { rawToken, signPartnerToken, writePartnersFile } from '../helpers/partners.js';

// POST /api/courses at the gateway: the credential checks made before anything is forwarded.
// The LMS behind it is a local HTTP server that records what reaches it.

t.test(
  'POST /api/courses: a missing or bad bearer token is 401 {success:false,error}, the IP 403, and nothing reaches the LMS',
  async (t) => {
    const received: IncomingHttpHeaders[] = [];
    const lms = createServer((req, res) => {
      received.push(req.headers);
      req.resume();
      req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{"success":true,"message":"ok","course":{}}'));
    });
    await new Promise<void>((resolve) => lms.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => lms.close(() => resolve())));
    const lmsUrl = `http://127.0.0.1:${(lms.address() as AddressInfo).port}`;

    const file = await writePartnersFile(t, { partners: [{ iss: 'partner-a.example', allowedIps: ['203.0.113.10/32'], lmsUrl }] });
    const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false });
    t.teardown(() => app.close());

    const bearer = await signPartnerToken('partner-a.example', { sub: 'course-sync', email: undefined, membershipId: undefined });
    const post = (authorization: string | undefined, remoteAddress = '203.0.113.10') =>
      app.inject({
        method: 'POST',
        url: '/api/courses',
        remoteAddress,
        headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
        payload: { institutionId: 1, teacherId: 't-1', name: 'Kursus' },
      });

    const cases: Array<[string, string | undefined, number, string]> = [
      ['no Authorization header', undefined, 401, 'token is required'],
      ['an empty Authorization header', '', 401, 'token is required'],
      ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`, 401, 'invalid token format'],
      ['Bearer without a token', 'Bearer ', 401, 'invalid token format'],
      ['two tokens', `Bearer ${bearer} ${bearer}`, 401, 'invalid token format'],
      ['not a JWT', 'Bearer not-a-jwt', 401, 'invalid token format'],
      ['a JWT whose payload is not JSON', 'Bearer eyJhbGciOiJSUzI1NiJ9.bm90LWpzb24.c2ln', 401, 'invalid token format'],
      ['no iss', `Bearer ${rawToken({ alg: 'RS256' }, { sub: 'course-sync' })}`, 401, 'missing issuer (iss) claim'],
      ['an unknown issuer', `Bearer ${await signPartnerToken('stranger.example')}`, 401, 'unknown issuer: stranger.example'],
    ];
    for (const [label, authorization, status, error] of cases) {
      const res = await post(authorization);
      t.equal(res.statusCode, status, label);
      t.same(res.json(), { success: false, error }, label);
    }
    const wrongIp = await post(`Bearer ${bearer}`, '192.0.2.1');
    t.equal(wrongIp.statusCode, 403);
    t.same(wrongIp.json(), { success: false, error: 'IP 192.0.2.1 is not whitelisted for issuer partner-a.example' });
    t.equal(received.length, 0, 'none of them was forwarded');

    const ok = await post(`bearer ${bearer}`);
    t.equal(ok.statusCode, 201, 'the scheme is case-insensitive; a good call is forwarded');
    t.equal(received.length, 1);
    t.equal(received[0]!['x-gateway-secret'], TEST_GATEWAY_SECRET, "with the gateway's credential");
    t.equal(received[0]!.authorization, `bearer ${bearer}`, "and the partner's token, for the LMS to verify");
  },
);
