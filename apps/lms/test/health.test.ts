import t from 'tap';
import { buildTestApp } from './helpers/app.js';

t.test('healthz answers while the process is up', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject('/healthz');
  t.equal(res.statusCode, 200);
  t.same(res.json(), { status: 'ok' });
  t.ok(res.headers['x-request-id'], 'every response carries its request id');
});

t.test('readyz is 200 with the database up and 503 once it is gone', async (t) => {
  const { app, db } = await buildTestApp(t);
  const up = await app.inject('/readyz');
  t.equal(up.statusCode, 200);
  t.same(up.json(), { status: 'ready', database: 'up' });
  await db.close();
  const down = await app.inject('/readyz');
  t.equal(down.statusCode, 503);
  t.same(down.json(), { status: 'unavailable', database: 'down' });
});

t.test('unknown routes get the JSON error shape', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject('/nope?x=1');
  t.equal(res.statusCode, 404);
  t.same(res.json(), { success: false, error: 'Route GET /nope not found' });
});

t.test('while draining for a shutdown: readyz 503 at once, every response says Connection: close', async (t) => {
  const { app } = await buildTestApp(t);
  t.equal((await app.inject('/readyz')).statusCode, 200);
  app.lifecycle.startDraining();
  const ready = await app.inject('/readyz');
  t.equal(ready.statusCode, 503);
  t.same(ready.json(), { status: 'unavailable', shuttingDown: true });
  const health = await app.inject('/healthz');
  t.equal(health.statusCode, 200, 'still serving');
  t.equal(health.headers.connection, 'close');
});

t.test('health probes are logged at debug, other requests at info', async (t) => {
  const lines: { level: number; msg: string; url?: string; req?: { url: string } }[] = [];
  const stream = { write: (line: string) => void lines.push(JSON.parse(line)) };
  const { app } = await buildTestApp(t, { deps: { logger: { level: 'debug', stream } } });
  t.equal((await app.inject('/readyz')).statusCode, 200);
  t.equal((await app.inject('/healthz?x=1')).statusCode, 200);
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
