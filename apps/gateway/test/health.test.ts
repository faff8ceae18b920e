import t from 'tap';
import { buildGateway } from '../src/app.js';
import { testConfig } from '../src/testing.js';
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

t.test('health probes are logged at debug, other requests at info', async (t) => {
  const file = await writePartnersFile(t, { partners: [] });
  const lines: { level: number; msg: string; url?: string; req?: { url: string } }[] = [];
  const stream = { write: (line: string) => void lines.push(JSON.parse(line)) };
  const app = await buildGateway({ config: testConfig({ PARTNERS_FILE: file }), logger: { level: 'debug', stream } });
  t.teardown(() => app.close());
  t.equal((await app.inject('/readyz')).statusCode, 200);
  t.equal((await app.inject('/healthz')).statusCode, 200);
  t.equal((await app.inject('/nowhere')).statusCode, 404);
  const aboutProbes = lines.filter((l) => /\/(healthz|readyz)/.test(l.url ?? l.req?.url ?? ''));
  t.same(
    aboutProbes.map((l) => [l.level, l.msg]),
    [
      [20, 'health probe'],
      [20, 'health probe'],
    ],
    'one debug line per probe, no info request lines',
  );
  t.ok(
    lines.some((l) => l.level === 30 && l.req?.url === '/nowhere'),
    'other requests keep their info line',
  );
});
