import t from 'tap';
import { listenForMetrics, METRICS_PATH } from '../src/metrics-listener.js';

t.test('GET /metrics answers the rendering; other paths 404, other methods 405, a failed rendering 500', async (t) => {
  let fail = false;
  const errors: unknown[] = [];
  const listener = await listenForMetrics({
    host: '127.0.0.1',
    port: 0,
    render: async () => {
      if (fail) throw new Error('collect failed');
      return { contentType: 'text/plain; version=0.0.4', body: 'up 1\n' };
    },
    onRenderError: (err) => errors.push(err),
  });
  t.teardown(() => listener.close());
  t.equal(listener.url, `http://127.0.0.1:${listener.port}${METRICS_PATH}`);

  const ok = await fetch(listener.url);
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('content-type'), 'text/plain; version=0.0.4');
  t.equal(ok.headers.get('cache-control'), 'no-store');
  t.equal(await ok.text(), 'up 1\n');
  const head = await fetch(listener.url, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(await head.text(), '');

  t.equal((await fetch(`http://127.0.0.1:${listener.port}/`)).status, 404);
  const post = await fetch(listener.url, { method: 'POST' });
  t.equal(post.status, 405);
  t.equal(post.headers.get('allow'), 'GET, HEAD');

  fail = true;
  t.equal((await fetch(listener.url)).status, 500);
  t.equal(errors.length, 1, 'the failure was reported');
  fail = false;
  t.equal((await fetch(listener.url)).status, 200, 'and the listener keeps serving');
});

t.test('a port already bound is a rejection; close is idempotent', async (t) => {
  const render = async () => ({ contentType: 'text/plain', body: '' });
  const first = await listenForMetrics({ host: '127.0.0.1', port: 0, render });
  await t.rejects(listenForMetrics({ host: '127.0.0.1', port: first.port, render }), { code: 'EADDRINUSE' });
  await Promise.all([first.close(), first.close()]);
  await first.close();
});
