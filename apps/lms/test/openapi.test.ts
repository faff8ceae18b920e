import t from 'tap';
import { buildTestApp } from './helpers/app.js';

t.test('the OpenAPI document is served at /docs/json with version 1.0.0, and the UI at /docs', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject('/docs/json');
  t.equal(res.statusCode, 200);
  const doc = res.json();
  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '1.0.0');
  t.equal(doc.servers.length, 2, 'a production and a development server');
  const ui = await app.inject('/docs/');
  t.equal(ui.statusCode, 200);
  t.match(ui.headers['content-type'], /text\/html/);
});
