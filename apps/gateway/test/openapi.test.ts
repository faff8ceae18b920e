import t from 'tap';
import { buildGateway } from '../src/app.js';
import { testConfig } from '../src/testing.js';
import { writePartnersFile } from './helpers/partners.js';

t.test('the gateway OpenAPI document describes /sso/verify with every answer', async (t) => {
  const file = await writePartnersFile(t, { partners: [] });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false });
  t.teardown(() => app.close());

  const res = await app.inject('/docs/json');
  t.equal(res.statusCode, 200);
  const doc = res.json();
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '1.0.0');
  t.same(
    doc.servers,
    [{ url: 'http://localhost:3001', description: 'this gateway (PUBLIC_URL)' }],
    'the default PUBLIC_URL, no placeholder host',
  );

  const verify = doc.paths['/sso/verify']?.get;
  t.ok(verify, '/sso/verify is documented');
  t.match(verify.parameters, [{ in: 'query', name: 'token', schema: { type: 'string' } }]);
  t.same(Object.keys(verify.responses).sort(), ['302', '400', '401', '403', '503']);
  t.match(verify.responses['302'].headers.Location.description, /proof/);
  t.match(verify.responses['302'].headers.Location, { schema: { type: 'string' } });
  t.notOk(verify.responses['302'].content, 'the redirect has no body');
  for (const status of ['400', '401', '403', '503']) {
    t.same(verify.responses[status].content['application/json'].schema, { $ref: '#/components/schemas/GatewayErrorResponse' });
  }
  t.match(verify.responses['400'].description, /token is required.*invalid token format.*missing issuer \(iss\) claim/s);
  t.match(verify.responses['401'].description, /unknown issuer: <iss>/);
  t.match(verify.responses['403'].description, /IP <ip> is not whitelisted for issuer <iss>/);
  t.match(doc.components.schemas.GatewayErrorResponse, { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] });
  t.notOk(doc.paths['/healthz'], 'probes are not part of the API');

  const ui = await app.inject('/docs/');
  t.equal(ui.statusCode, 200);
  t.match(ui.headers['content-type'], /text\/html/);
});

t.test('the gateway OpenAPI server is its configured PUBLIC_URL', async (t) => {
  const file = await writePartnersFile(t, { partners: [] });
  const app = await buildGateway({
    config: testConfig({ PARTNERS_FILE: file, PUBLIC_URL: 'https://gateway.asosiasi.test/' }),
    logger: false,
  });
  t.teardown(() => app.close());
  const doc = (await app.inject('/docs/json')).json();
  t.same(
    doc.servers.map((s: { url: string }) => s.url),
    ['https://gateway.asosiasi.test'],
  );
  t.notMatch(JSON.stringify(doc), /example\.com/, 'no placeholder host anywhere in the document');
});
