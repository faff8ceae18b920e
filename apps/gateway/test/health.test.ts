import t from 'tap';
import { buildGateway } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { writePartnersFile } from './helpers/partners.js';

t.test('the gateway answers healthz and a JSON 404', async (t) => {
  const file = await writePartnersFile(t, { partners: [] });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false });
  t.teardown(() => app.close());
  const health = await app.inject('/healthz');
  t.equal(health.statusCode, 200);
  t.same(health.json(), { status: 'ok' });
  const missing = await app.inject('/nowhere');
  t.equal(missing.statusCode, 404);
  t.same(missing.json(), { success: false, error: 'Route GET /nowhere not found' });
});

t.test('readyz: 200, then 503 at once while draining for a shutdown, with Connection: close', async (t) => {
  const file = await writePartnersFile(t, { partners: [] });
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: false });
  t.teardown(() => app.close());
  const ready = await app.inject('/readyz');
  t.equal(ready.statusCode, 200);
  t.same(ready.json(), { status: 'ready' });
  app.lifecycle.startDraining();
  const draining = await app.inject('/readyz');
  t.equal(draining.statusCode, 503);
  t.same(draining.json(), { status: 'unavailable', shuttingDown: true });
  t.equal(draining.headers.connection, 'close');
  t.equal((await app.inject('/healthz')).statusCode, 200, 'still serving');
});
