import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { buildGateway } from '../../src/app.js';
import { testConfig } from '../../src/testing.js';
import { signPartnerToken, writePartnersFile } from '../helpers/partners.js';

// POST /api/courses body handling on the gateway: a body nested deeper than 32 levels is a 400
// naming its field and goes nowhere; any other JSON is forwarded as the client's own text (the
// gateway used to JSON.stringify the parsed body, which overflowed the stack on deep input: 502).
// The partner's LMS is a real HTTP server on the loopback that records what reaches it.

t.test('the gateway forwards the JSON text it was given and refuses deep nesting', async (t) => {
  const received: string[] = [];
  const lms = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: false, error: 'Invalid request body: judged by the LMS' }));
    });
  });
  await new Promise<void>((resolve) => lms.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => lms.close(() => resolve())));
  const lmsUrl = `http://127.0.0.1:${(lms.address() as AddressInfo).port}`;
  const file = await writePartnersFile(t, { partners: [{ iss: 'courses.example', allowedIps: ['203.0.113.5/32'], lmsUrl }] });
  const app = await buildGateway({
    config: testConfig({ PARTNERS_FILE: file, GATEWAY_SECRET: 'gateway-body-secret-0123' }),
    logger: false,
  });
  t.teardown(() => app.close());

  const post = async (payload: string) =>
    app.inject({
      method: 'POST',
      url: '/api/courses',
      remoteAddress: '203.0.113.5',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await signPartnerToken('courses.example')}` },
      payload,
    });

  const deep = `{"institutionId":1,"name":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
  const refused = await post(deep);
  t.equal(refused.statusCode, 400);
  t.same(refused.json(), { success: false, error: 'Invalid request body: name: JSON nested deeper than 32 levels' });
  t.equal(received.length, 0, 'nothing reached the LMS');

  const deepObjects = `{"description":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`;
  t.equal((await post(deepObjects)).statusCode, 400);
  t.equal(received.length, 0);

  // Formatting, key order, escapes and number spellings are the client's: the LMS gets the same bytes.
  const text = '{ "name" : "Etika\\u0020Profesi",\n  "institutionId": 1.0e0, "teacherId": "t-1", "z": [ {"deep": [[[1]]]} ] }';
  const forwarded = await post(text);
  t.equal(forwarded.statusCode, 400, 'the LMS answer is relayed');
  t.same(received, [text], 'forwarded byte for byte');
  t.equal((await post('{"a": [1, 2')).statusCode, 400, 'broken JSON is refused here');
  t.equal(received.length, 1);
});
