import t from 'tap';
import { buildTestApp } from './helpers/app.js';

// CI runs this file once (not again in the PostgreSQL pass): the OpenAPI document is built from the route schemas, whatever the database.

t.test('the OpenAPI document is served at /docs/json with version 1.0.0, and the UI at /docs', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject('/docs/json');
  t.equal(res.statusCode, 200);
  const doc = res.json();
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '1.0.0');
  t.same(
    doc.servers,
    [{ url: 'http://localhost:3000', description: 'this LMS (PUBLIC_URL)' }],
    'the default PUBLIC_URL, no placeholder host',
  );
  const ui = await app.inject('/docs/');
  t.equal(ui.statusCode, 200);
  t.match(ui.headers['content-type'], /text\/html/);
});

t.test('the OpenAPI server is the configured PUBLIC_URL (so "Try it out" calls this deployment)', async (t) => {
  const { app } = await buildTestApp(t, { config: { PUBLIC_URL: 'https://lms.asosiasi.test/' } });
  const doc = (await app.inject('/docs/json')).json();
  t.same(
    doc.servers.map((s: { url: string }) => s.url),
    ['https://lms.asosiasi.test'],
  );
  t.notMatch(JSON.stringify(doc), /example\.com/, 'no placeholder host anywhere in the document');
});
