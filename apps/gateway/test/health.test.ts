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
