import Fastify from 'fastify';
import t from 'tap';
import { appMetrics, UNMATCHED_ROUTE } from '../src/app-metrics.js';

/** An app with the shared metrics under `prefix` and one route with a parameter. */
async function build(prefix: string) {
  const app = Fastify({ logger: false });
  const metrics = appMetrics(app, prefix);
  app.get('/items/:id', async () => ({ ok: true }));
  await app.ready();
  return { app, metrics };
}

/** The `_count` series of a rendered request histogram, by their label text. */
function counts(body: string, prefix: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of body.matchAll(new RegExp(`^${prefix}_http_request_duration_seconds_count\\{([^}]*)\\} (\\d+)$`, 'gm')))
    out[m[1]] = Number(m[2]);
  return out;
}

t.test('requests are counted by route pattern and status, per app; the process metrics once in each scrape', async (t) => {
  const a = await build('one');
  const b = await build('two');
  t.teardown(() => Promise.all([a.app.close(), b.app.close()]));
  await a.app.inject('/items/1');
  await a.app.inject('/items/2?x=1');
  await a.app.inject('/nowhere/at/all');
  await b.app.inject('/items/3');

  const one = await a.metrics.render();
  t.match(one.contentType, /^text\/plain/);
  t.same(
    counts(one.body, 'one'),
    { 'method="GET",route="/items/:id",status_code="200"': 2, [`method="GET",route="${UNMATCHED_ROUTE}",status_code="404"`]: 1 },
    'the pattern, never the URL; an unknown URL is one series',
  );
  t.notMatch(one.body, /two_http_request/, "the other app's requests are not in this app's scrape");
  t.same(counts((await b.metrics.render()).body, 'two'), { 'method="GET",route="/items/:id",status_code="200"': 1 });
  for (const body of [one.body, (await b.metrics.render()).body]) {
    t.equal(body.match(/^# TYPE process_cpu_user_seconds_total /gm)?.length, 1, 'process metrics, once');
  }
});

t.test('one listener per app, closed with the app', async (t) => {
  const { app, metrics } = await build('solo');
  let closed = false;
  t.teardown(() => (closed ? undefined : app.close()));
  const listener = await metrics.listen({ host: '127.0.0.1', port: 0 });
  await t.rejects(metrics.listen({ host: '127.0.0.1', port: 0 }), /already open/, 'a second listen is refused');
  await app.inject('/items/9');
  const scraped = await fetch(listener.url);
  t.equal(scraped.status, 200);
  t.match(await scraped.text(), /solo_http_request_duration_seconds_count\{method="GET",route="\/items\/:id",status_code="200"\} 1/);
  await app.close();
  closed = true;
  await t.rejects(fetch(listener.url), 'the listener is closed with the app');
});
