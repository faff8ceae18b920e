import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { scrape } from './helpers/metrics.js';
import { envWith, freePort, runToEnd, SERVER, startServer } from './helpers/processes.js';

// CI runs this file once (not again in the PostgreSQL pass): LMS processes on embedded databases, whatever TEST_DATABASE_URL says.

// server.ts's part: the built LMS as operators run it, with METRICS_PORT set.
t.setTimeout(300_000);

t.test('the server serves /metrics on METRICS_HOST:METRICS_PORT, not on its public port; a taken port stops the start', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'lms-metrics-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const metricsPort = await freePort();
  const env = envWith({ DATA_DIR: join(dir, 'a'), SEED_DEMO_ON_EMPTY: 'false', METRICS_PORT: String(metricsPort) });
  const lms = await startServer(t, env);

  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  t.equal((await fetch(`${lms.url}/healthz`)).status, 200);
  const first = await scrape(metricsUrl);
  t.equal(first.status, 200, `scraped at ${metricsUrl}`);
  t.equal(
    first.value('lms_http_request_duration_seconds_count', { route: '/healthz', status_code: '200' }),
    1,
    'the request to the public port is counted',
  );
  t.ok(first.has('process_resident_memory_bytes'), 'with the process metrics');
  t.equal((await fetch(`${lms.url}/metrics`)).status, 404, 'the public port has no /metrics');

  // Another LMS told to use the same metrics port: it says so and stops, rather than leave the
  // scrape to answer with the first one's numbers.
  const second = await runToEnd(SERVER, [], { ...env, DATA_DIR: join(dir, 'b'), PORT: '0', HOST: '127.0.0.1' });
  t.equal(second.code, 1, 'the second start fails');
  t.match(
    second.err,
    `Cannot serve metrics on 127.0.0.1:${metricsPort} (EADDRINUSE): set METRICS_PORT to a free port, or 0 for no metrics listener.`,
  );
  t.notMatch(second.err, /\n\s+at /, 'no stack trace');
  t.equal((await scrape(metricsUrl)).status, 200, 'the first one still serves its metrics');

  lms.child.kill('SIGTERM');
  t.equal(await lms.exited, 0, 'SIGTERM: clean exit');
  await t.rejects(fetch(metricsUrl), 'the metrics listener closed with the server');
});
