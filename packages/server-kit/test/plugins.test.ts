import { MAX_JSON_DEPTH, MAX_JSON_KEYS, MAX_JSON_VALUES } from '@lms/contracts';
import Fastify, { type FastifyError } from 'fastify';
import t from 'tap';
import { jsonBodyPlugin } from '../src/json-body.js';
import { CLOSING_RETRY_AFTER_SECONDS, lifecyclePlugin } from '../src/lifecycle.js';
import { isHealthProbe } from '../src/probe-logging.js';

class TestError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** An app with the two plugins and an error handler answering `{error}` with the error's status. */
async function build(keepRawText?: boolean) {
  const app = Fastify({ logger: false, forceCloseConnections: 'idle', return503OnClosing: false });
  app.setErrorHandler((err: FastifyError, _request, reply) => reply.code(err.statusCode ?? 500).send({ error: err.message }));
  await app.register(jsonBodyPlugin, { tooDeep: (message) => new TestError(400, message), keepRawText });
  await app.register(lifecyclePlugin, { closingError: () => new TestError(503, 'closing') });
  app.post('/echo', async (request) => ({ body: request.body, raw: request.rawJsonBody ?? null }));
  app.get('/ok', async () => ({ ok: true }));
  return app;
}

const nested = (depth: number) => `{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`;

t.test('json-body: parsed as usual, the raw text only with keepRawText, too deep is the app error', async (t) => {
  for (const keep of [false, true]) {
    const app = await build(keep);
    t.teardown(() => app.close());
    const text = '{ "a" : [1, 2] }';
    const ok = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: text });
    t.same(ok.json(), { body: { a: [1, 2] }, raw: keep ? text : null });
    const deep = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: nested(MAX_JSON_DEPTH + 1),
    });
    t.equal(deep.statusCode, 400);
    t.same(deep.json(), { error: `Invalid request body: deep: JSON nested deeper than ${MAX_JSON_DEPTH} levels` });
    const bad = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{"a":' });
    t.equal(bad.statusCode, 400, "Fastify's own 400 for bad JSON");
  }
});

t.test('json-body: the shape is read from the text, before JSON.parse, and stops at the first problem', async (t) => {
  const app = await build();
  t.teardown(() => app.close());
  const post = (payload: string) => app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });
  const keys = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',');
  // Brackets, braces, colons and escaped quotes inside strings are text, not shape.
  const tricky = JSON.stringify({ 'a\\"[{': '[[[{{{:::,,,\\"]]]}', b: { c: [1] }, s: ':'.repeat(2000), t: '\\' });
  t.same((await post(tricky)).json().body, JSON.parse(tricky), 'parsed as JSON.parse reads it');
  t.equal((await post(`{${keys(MAX_JSON_KEYS)}}`)).statusCode, 200, `${MAX_JSON_KEYS} keys are fine`);
  const many = await post(`{${keys(90_000)}}`);
  t.equal(many.statusCode, 400);
  t.same(many.json(), { error: `Invalid request body: an object with more than ${MAX_JSON_KEYS} keys` });
  const nestedMany = await post(`{"x":1,"course":{"name":"a","extra":{${keys(MAX_JSON_KEYS + 1)}}}}`);
  t.same(
    nestedMany.json(),
    { error: `Invalid request body: course: an object with more than ${MAX_JSON_KEYS} keys` },
    'named by its top-level field',
  );
  const inArray = await post(`[{},{},{${keys(MAX_JSON_KEYS + 1)}}]`);
  t.same(inArray.json(), { error: `Invalid request body: 2: an object with more than ${MAX_JSON_KEYS} keys` }, 'or its index');
  // 400,000 levels: refused at the 33rd bracket, never given to JSON.parse.
  const deep = await post(`{"a":1,"deep":${'['.repeat(400_000)}${']'.repeat(400_000)}}`);
  t.same(deep.json(), { error: `Invalid request body: deep: JSON nested deeper than ${MAX_JSON_DEPTH} levels` });
  t.equal(
    (await post(`[1,${'['.repeat(40)}${']'.repeat(40)}]`)).json().error,
    `Invalid request body: 1: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
  );
  t.equal((await post(`{"s":"${'['.repeat(100)}"}`)).statusCode, 200, 'brackets in a string do not nest');
  // Values in all: numbers, strings and containers alike; commas in strings are not counted.
  const values = (n: number) => `[${Array.from({ length: n }, (_, i) => (i % 10 === 0 ? '{}' : i % 10 === 1 ? '"a,b"' : '1')).join(',')}]`;
  t.equal(
    (await post(values(MAX_JSON_VALUES - 1))).statusCode,
    200,
    `${MAX_JSON_VALUES - 1} values in an array: ${MAX_JSON_VALUES} in all`,
  );
  t.same((await post(values(MAX_JSON_VALUES))).json(), { error: `Invalid request body: more than ${MAX_JSON_VALUES} JSON values` });
  t.equal((await post(`[${'[],'.repeat(MAX_JSON_VALUES / 2)}[]]`)).statusCode, 200, 'an empty container is one value');
});

t.test('lifecycle: Connection: close while draining, the closing error once closing', async (t) => {
  const app = await build();
  // A request that arrives once closing began: sent from a preClose hook after the plugin's, while
  // the listener is still open.
  let late: { status: number; retryAfter: string | null; connection: string | null; body: unknown } | undefined;
  let closingSeen = false;
  app.addHook('preClose', async () => {
    closingSeen = app.lifecycle.closing;
    const { port } = app.server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${port}/ok`);
    late = {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      connection: response.headers.get('connection'),
      body: await response.json(),
    };
  });

  t.equal((await app.inject('/ok')).headers.connection, 'keep-alive');
  t.equal(app.lifecycle.draining, false);
  app.lifecycle.startDraining();
  t.equal(app.lifecycle.draining, true);
  const draining = await app.inject('/ok');
  t.equal(draining.statusCode, 200);
  t.equal(draining.headers.connection, 'close');

  await app.listen({ port: 0, host: '127.0.0.1' });
  await app.close();
  t.ok(closingSeen, 'closing from preClose on');
  t.same(late, { status: 503, retryAfter: String(CLOSING_RETRY_AFTER_SECONDS), connection: 'close', body: { error: 'closing' } });
});

t.test('isHealthProbe: /healthz and /readyz, with or without a query', async (t) => {
  t.ok(isHealthProbe({ url: '/healthz' }));
  t.ok(isHealthProbe({ url: '/readyz?x=1' }));
  t.notOk(isHealthProbe({ url: '/healthz/x' }));
  t.notOk(isHealthProbe({}));
});
