import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AUTHORING_ROUTES } from '@lms/contracts';
import t from 'tap';
import { buildGateway } from '../../src/app.js';
import { TEST_GATEWAY_SECRET, testConfig } from '../../src/testing.js';
import { signPartnerToken, writePartnersFile } from '../helpers/partners.js';

// The authoring routes at the gateway: each one checked as course creation is (bearer token,
// issuer, caller IP) before anything is forwarded, then forwarded to the partner's LMS with its
// method, path, query and body text, the gateway's credential and the Idempotency-Key; the LMS's
// answer relayed. The LMS is a local server that records what reaches it.

t.test('every authoring route: refused before the LMS, or forwarded as it came', async (t) => {
  const received: { method: string; url: string; body: string; headers: Record<string, unknown> }[] = [];
  const lms = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', body, headers: req.headers });
      res
        .writeHead(200, {
          'content-type': 'application/json',
          'idempotency-replayed': 'true',
          etag: '"7"',
          'ratelimit-policy': '"authoring";q=60;w=60',
          ratelimit: '"authoring";r=59;t=60',
        })
        .end('{"success":true,"echo":1}');
    });
  });
  await new Promise<void>((resolve) => lms.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => lms.close(() => resolve())));
  const lmsUrl = `http://127.0.0.1:${(lms.address() as AddressInfo).port}`;
  const file = await writePartnersFile(t, { partners: [{ iss: 'partner-a.example', allowedIps: ['203.0.113.10/32'], lmsUrl }] });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file, AUTHORING_BODY_LIMIT_BYTES: 65_536 }), logger: false });
  t.teardown(() => app.close());
  const bearer = await signPartnerToken('partner-a.example', { sub: 'course-sync', email: undefined, membershipId: undefined });
  const stranger = await signPartnerToken('stranger.example', { sub: 'course-sync', email: undefined, membershipId: undefined });

  for (const spec of AUTHORING_ROUTES) {
    const url = `${spec.url.replace(':id', '42')}${spec.method === 'GET' ? '?limit=5' : ''}`;
    const body = spec.body ? '{"name": "Kursus",  "x": [1, 2]}' : undefined;
    const send = (headers: Record<string, string>, remoteAddress = '203.0.113.10') =>
      app.inject({
        method: spec.method,
        url,
        remoteAddress,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body ? { payload: body } : {}),
      });
    const before = received.length;
    t.equal((await send({})).statusCode, 401, `${spec.method} ${spec.url}: no token`);
    t.equal((await send({ authorization: `Bearer ${stranger}` })).statusCode, 401, `${spec.method} ${spec.url}: unknown issuer`);
    const wrongIp = await send({ authorization: `Bearer ${bearer}` }, '192.0.2.1');
    t.equal(wrongIp.statusCode, 403, `${spec.method} ${spec.url}: caller IP`);
    t.same(wrongIp.json(), { success: false, error: 'IP 192.0.2.1 is not whitelisted for issuer partner-a.example' });
    t.equal(received.length, before, 'none of them reached the LMS');

    const ok = await send({ authorization: `Bearer ${bearer}`, 'idempotency-key': `k-${spec.operation}`, 'if-match': '"6"' });
    t.equal(ok.statusCode, 200, `${spec.method} ${spec.url}: forwarded`);
    t.same(ok.json(), { success: true, echo: 1 }, "the LMS's answer relayed");
    t.equal(ok.headers['idempotency-replayed'], 'true');
    t.equal(ok.headers.etag, '"7"', "the LMS's ETag relayed");
    t.equal(ok.headers['ratelimit-policy'], '"authoring";q=60;w=60', "the LMS's authoring budget relayed");
    t.equal(ok.headers.ratelimit, '"authoring";r=59;t=60');
    const got = received.at(-1)!;
    t.match(got, {
      method: spec.method,
      url,
      headers: {
        authorization: `Bearer ${bearer}`,
        'x-gateway-secret': TEST_GATEWAY_SECRET,
        'idempotency-key': `k-${spec.operation}`,
        'if-match': '"6"',
      },
    });
    t.equal(got.body, body ?? '', 'the body text as the partner sent it');
  }

  // The authoring body limit, named.
  const big = await app.inject({
    method: 'PUT',
    url: '/api/courses/42/document',
    remoteAddress: '203.0.113.10',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ content: 'x'.repeat(70_000) }),
  });
  t.equal(big.statusCode, 413);
  t.same(big.json(), { success: false, error: 'Request body is too large: this route takes at most 65536 bytes' });
});

t.test('the OpenAPI document lists every authoring route with its answers', async (t) => {
  const file = await writePartnersFile(t, { partners: [] });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false });
  t.teardown(() => app.close());
  const doc = (await app.inject('/docs/json')).json();
  for (const spec of AUTHORING_ROUTES) {
    const path = spec.url.replace(':id', '{id}');
    const operation = doc.paths[path]?.[spec.method.toLowerCase()];
    t.ok(operation, `${spec.method} ${path} is documented`);
    t.same(
      Object.keys(operation.responses).sort(),
      [String(spec.success.status), '400', '401', '403', '404', '409', '413', '415', '422', '429', '502', '503', '504'].sort(),
      `${spec.method} ${path}: every answer`,
    );
    if (spec.body) t.ok(operation.requestBody, `${spec.method} ${path}: its body`);
  }
});
