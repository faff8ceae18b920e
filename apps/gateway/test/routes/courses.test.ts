import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
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

/** A local HTTP server answering every request with `answer`, recording the paths it got. */
async function upstreamServer(t: Test, answer: (res: ServerResponse) => void) {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths };
}

/** A course creation from the partner's address with a valid course-creation token. */
async function createCourse(app: Awaited<ReturnType<typeof buildGateway>>) {
  const bearer = await signPartnerToken('partner-a.example', { sub: 'course-sync', email: undefined, membershipId: undefined });
  return app.inject({
    method: 'POST',
    url: '/api/courses',
    remoteAddress: '203.0.113.10',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    payload: { institutionId: 1, teacherId: 't-1', name: 'Kursus' },
  });
}

const created = (res: ServerResponse) =>
  res.writeHead(201, { 'content-type': 'application/json' }).end('{"success":true,"message":"ok","course":{}}');

t.test('LMS_UPSTREAM_URL: forwarded calls go there; SSO still sends browsers to the public lmsUrl', async (t) => {
  const publicLms = await upstreamServer(t, created);
  const internal = await upstreamServer(t, created);
  const file = await writePartnersFile(t, {
    partners: [{ iss: 'partner-a.example', allowedIps: ['203.0.113.10/32'], lmsUrl: publicLms.url }],
  });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file, LMS_UPSTREAM_URL: internal.url }), logger: false });
  t.teardown(() => app.close());

  const res = await createCourse(app);
  t.equal(res.statusCode, 201);
  t.same(internal.paths, ['/api/courses'], 'the call reached the upstream');
  t.same(publicLms.paths, [], 'not the public address');

  const sso = await app.inject({ url: `/sso/verify?token=${await signPartnerToken('partner-a.example')}`, remoteAddress: '203.0.113.10' });
  t.equal(sso.statusCode, 302);
  t.match(sso.headers.location, new RegExp(`^${publicLms.url}/sso/verify\\?token=`), 'the browser goes to the public lmsUrl');
});

t.test("a load balancer's own error pages in front of the LMS: could not be reached, or did not answer in time", async (t) => {
  // HAProxy's own pages (text/html) when no LMS instance took the request or answered in its time.
  const page = (status: number, title: string) => (res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'text/html' }).end(`<html><body><h1>${status} ${title}</h1>\n</body></html>\n`);
  const cases: Array<[string, (res: ServerResponse) => void, number, string]> = [
    ['502 Bad Gateway page', page(502, 'Bad Gateway'), 502, 'The LMS could not be reached'],
    ['503 Service Unavailable page', page(503, 'Service Unavailable'), 502, 'The LMS could not be reached'],
    ['504 Gateway Time-out page', page(504, 'Gateway Time-out'), 504, 'The LMS did not answer in time'],
    // The LMS's own errors are JSON and reach the partner as they are, Retry-After included.
    [
      "the LMS's own 503",
      (res) =>
        res
          .writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' })
          .end('{"success":false,"error":"The service is shutting down; retry the request"}'),
      503,
      'The service is shutting down; retry the request',
    ],
    [
      'a 200 that is not JSON',
      (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'),
      502,
      'The LMS gave an invalid answer',
    ],
  ];
  for (const [label, answer, status, error] of cases) {
    const balancer = await upstreamServer(t, answer);
    const file = await writePartnersFile(t, {
      partners: [{ iss: 'partner-a.example', allowedIps: ['203.0.113.10/32'], lmsUrl: 'http://lms.example' }],
    });
    const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file, LMS_UPSTREAM_URL: balancer.url }), logger: false });
    const res = await createCourse(app);
    await app.close();
    t.equal(res.statusCode, status, label);
    t.same(res.json(), { success: false, error }, label);
  }
});
