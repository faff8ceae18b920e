import { DOCS_UI_CSP } from '@lms/server-kit';
import t from 'tap';
import { buildGateway } from '../src/app.js';
import { testConfig } from '../src/testing.js';
import { writePartnersFile } from './helpers/partners.js';

// The gateway's docs UI runs under its own CSP; no answer of the gateway is content-sniffed.
t.test('nosniff on every answer, a CSP on /docs', async (t) => {
  const file = await writePartnersFile(t, { partners: [] });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false });
  t.teardown(() => app.close());

  for (const res of [
    await app.inject('/healthz'),
    await app.inject('/sso/verify'),
    await app.inject('/nowhere'),
    await app.inject({ method: 'POST', url: '/api/courses', headers: { 'content-type': 'application/json' }, payload: '{}' }),
    await app.inject('/docs/json'),
  ]) {
    t.match(res.headers['content-type'], /^application\/json/);
    t.equal(res.headers['x-content-type-options'], 'nosniff', `${res.statusCode} ${res.body.slice(0, 60)}`);
  }
  const ui = await app.inject('/docs/');
  t.equal(ui.statusCode, 200);
  t.equal(ui.headers['content-security-policy'], DOCS_UI_CSP);
  t.equal(ui.headers['x-content-type-options'], 'nosniff');
  t.notMatch(ui.body, /<script>[^<]/, 'no inline script');
});
