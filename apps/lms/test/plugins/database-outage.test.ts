import { generateApiKey, isDatabaseUnavailable } from '@lms/db';
import { sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../src/errors.js';
import { DEBUG, INFO, type OutageApp, outageApp, sleep, WARN } from '../helpers/database-outage.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// CI runs this file once (not again in the PostgreSQL pass): a PostgreSQL server behind a proxy it cuts, whatever TEST_DATABASE_URL says.

// The database cut (connections refused and reset) and stalled (connections open, no byte passes)
// between a real LMS and PostgreSQL, through a TCP proxy: what clients get, how long they wait, how
// the LMS comes back, and what it logs. Figures are printed as comments (# ...) for the report.

const UNAVAILABLE_BODY = { success: false, error: 'The service is temporarily unavailable (database); retry shortly' };

interface Outcome {
  at: number;
  ms: number;
  status: number;
  path: string;
  retryAfter: string | null;
  body: string;
}

interface Call {
  path: string;
  headers: Record<string, string>;
}

/** A caller of the API: an API key on the catalog, a session on the metrics, a probe on /readyz. */
async function callers(env: OutageApp): Promise<{ key: string; cookie: string; requests: Call[] }> {
  const teacher = await makeUser(env.direct.db, { role: 'teacher' });
  const admin = await makeUser(env.direct.db, { role: 'admin' });
  const key = await apiKeyFor(env.direct.db, teacher.id);
  const cookie = await sessionCookieFor(env.app, admin.id);
  return {
    key,
    cookie,
    requests: [
      { path: '/api/courses', headers: { 'x-api-key': key } },
      { path: '/api/lms-progress', headers: { cookie } },
      { path: '/readyz', headers: {} },
    ],
  };
}

async function call(env: OutageApp, path: string, headers: Record<string, string>): Promise<Outcome> {
  const started = performance.now();
  const res = await fetch(`${env.url}${path}`, { headers });
  const body = await res.text();
  return { at: started, ms: performance.now() - started, status: res.status, path, retryAfter: res.headers.get('retry-after'), body };
}

/** `clients` concurrent loops over the requests until `stop()` resolves; every outcome in order of completion. */
async function underLoad(env: OutageApp, requests: Call[], clients: number, during: () => Promise<void>) {
  const outcomes: Outcome[] = [];
  let running = true;
  const loops = Array.from({ length: clients }, async (_, i) => {
    for (let n = i; running; n += 1) {
      const r = requests[n % requests.length]!;
      outcomes.push(await call(env, r.path, r.headers));
    }
  });
  await during();
  running = false;
  await Promise.all(loops);
  return outcomes;
}

function countBy(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.status] = (counts[o.status] ?? 0) + 1;
  return counts;
}

/** Every 503 is the documented answer: JSON `{success:false,error}` (readyz: its own shape) with Retry-After. */
function checkUnavailableAnswers(t: Test, outcomes: Outcome[]) {
  const bad = outcomes.filter((o) => {
    if (o.status !== 503) return false;
    if (o.path === '/readyz') return o.body !== JSON.stringify({ status: 'unavailable', database: 'down' });
    return o.retryAfter !== String(DATABASE_RETRY_AFTER_SECONDS) || o.body !== JSON.stringify(UNAVAILABLE_BODY);
  });
  t.same(bad.slice(0, 3), [], 'every 503 carries Retry-After and the error shape');
}

function outageLines(env: OutageApp) {
  return {
    down: env.logs.filter((l) => l.level === WARN && l.msg?.startsWith('database unavailable')),
    up: env.logs.filter((l) => l.level === INFO && l.msg === 'database available again'),
    aboveInfo: env.logs.filter((l) => l.level > INFO && !l.msg?.startsWith('database unavailable')),
  };
}

t.test('database cut for 3 s under 30 concurrent clients', async (t) => {
  // A cut is refused at once: no need for short timeouts here, and generous ones keep a busy
  // test machine (30 clients and the server in one process) from timing out healthy connections.
  const env = await outageApp(t, { db: { connectTimeoutMs: 5_000, statementTimeoutMs: 5_000 } });
  const { requests } = await callers(env);
  for (const r of requests) t.equal((await call(env, r.path, r.headers)).status, 200, `${r.path} answers before the cut`);

  let cutAt = 0;
  let restoredAt = 0;
  const clients = 30;
  const outcomes = await underLoad(env, requests, clients, async () => {
    await sleep(1_000);
    cutAt = performance.now();
    await env.proxy.cut();
    await sleep(3_000);
    await env.proxy.restore();
    restoredAt = performance.now();
    await sleep(2_000);
  });

  const counts = countBy(outcomes);
  const span = Math.max(...outcomes.map((o) => o.at + o.ms)) - Math.min(...outcomes.map((o) => o.at));
  t.comment(
    `statuses over ${outcomes.length} requests in ${(span / 1000).toFixed(1)} s (${(outcomes.length / (span / 1000)).toFixed(0)}/s): ${JSON.stringify(counts)}`,
  );
  t.same(Object.keys(counts).sort(), ['200', '503'], 'only 200 and 503: no 500, no other error');
  const during = outcomes.filter((o) => o.at > cutAt + 50 && o.at + o.ms < restoredAt);
  t.ok(during.length > 0 && during.every((o) => o.status === 503), `every request made during the cut got 503 (${during.length})`);
  checkUnavailableAnswers(t, outcomes);
  const times = during.map((o) => o.ms).sort((a, b) => a - b);
  const pick = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(0);
  t.comment(
    `during the cut: ${during.length} x 503 in ${pick(0.5)} ms median, ${pick(0.95)} ms p95, ${times.at(-1)!.toFixed(0)} ms max (${clients} clients in the server's process)`,
  );

  const firstOk = outcomes.filter((o) => o.status === 200 && o.at >= restoredAt).sort((a, b) => a.at + a.ms - (b.at + b.ms))[0];
  t.ok(firstOk, 'a 200 after the restore, without restarting anything');
  t.comment(`first 200 after the restore: ${(firstOk!.at + firstOk!.ms - restoredAt).toFixed(0)} ms (${firstOk!.path})`);
  for (const r of requests) t.equal((await call(env, r.path, r.headers)).status, 200, `${r.path} answers after the restore`);

  const lines = outageLines(env);
  t.equal(lines.down.length, 1, 'one warning when the database went away');
  t.equal(lines.up.length, 1, 'one info line when it came back');
  t.ok((lines.down[0]!.time as number) <= (lines.up[0]!.time as number), 'in that order');
  t.same(
    lines.aboveInfo.map((l) => l.msg),
    [],
    'nothing else above info: the failed requests log at debug',
  );
  t.comment(
    `log lines at info or above during the run: ${env.logs.filter((l) => l.level >= INFO && !/request|incoming/.test(l.msg ?? '')).length}`,
  );
});

t.test('database stalled: answers within the timeouts, then recovery', async (t) => {
  // connect 1 s, statement 1 s (the client gives up at 2 s): a call waits at most 3 s.
  const env = await outageApp(t, { db: { connectTimeoutMs: 1_000, statementTimeoutMs: 1_000 } });
  const { requests } = await callers(env);
  // Open several pooled connections first, so some requests meet a stalled open connection and
  // others a new connection that never completes its start-up.
  await Promise.all(
    Array.from({ length: 12 }, (_, i) => call(env, requests[i % requests.length]!.path, requests[i % requests.length]!.headers)),
  );

  env.proxy.stall();
  const stalled = await Promise.all(
    Array.from({ length: 24 }, (_, i) => call(env, requests[i % requests.length]!.path, requests[i % requests.length]!.headers)),
  );
  t.same(countBy(stalled), { 503: 24 }, 'every request made during the stall completed with 503');
  checkUnavailableAnswers(t, stalled);
  const durations = stalled.map((o) => o.ms).sort((a, b) => a - b);
  t.comment(
    `stalled: 24 x 503, answered in ${durations[0]!.toFixed(0)}–${durations.at(-1)!.toFixed(0)} ms (median ${durations[12]!.toFixed(0)} ms; bound 1000 + 1000 + 1000 ms)`,
  );

  env.proxy.resume();
  const resumedAt = performance.now();
  let firstOk: number | null = null;
  for (let i = 0; i < 100 && firstOk === null; i += 1) {
    const o = await call(env, '/api/courses', requests[0]!.headers);
    if (o.status === 200) firstOk = performance.now() - resumedAt;
    else await sleep(50);
  }
  t.ok(firstOk !== null, 'the catalog answers 200 again after the stall, without a restart');
  t.comment(`first 200 after the stall ended: ${firstOk?.toFixed(0)} ms`);
  const after = await Promise.all(
    Array.from({ length: 20 }, (_, i) => call(env, requests[i % requests.length]!.path, requests[i % requests.length]!.headers)),
  );
  t.same(countBy(after), { 200: 20 }, 'every pooled connection works again (none left stuck)');

  const lines = outageLines(env);
  t.equal(lines.down.length, 1, 'one warning for the stall');
  t.equal(lines.up.length, 1, 'one info line when it ended');
  t.same(
    lines.aboveInfo.map((l) => l.msg),
    [],
    'nothing else above info',
  );
});

t.test('a transaction whose statement times out on a stalled connection gives that connection up', async (t) => {
  // node-postgres leaves a client whose query_timeout fired waiting for the answer; a client
  // checked out for a transaction would then go back to the pool stuck. Ours closes it.
  const env = await outageApp(t);
  await env.handle.db.execute(sql`select 1`);
  const open = env.proxy.openConnections;
  const failure = await env.handle.db
    .transaction(async (tx) => {
      // As with a server whose processes are stopped, the server must not end the session on its
      // own (idle_in_transaction_session_timeout would, here): only the client's timeout acts.
      await tx.execute(sql`set local idle_in_transaction_session_timeout = 0`);
      env.proxy.stall();
      await tx.execute(sql`select 2`);
    })
    .then(
      () => null,
      (err: unknown) => err,
    );
  t.ok(failure, 'the transaction fails during the stall');
  t.ok(isDatabaseUnavailable(failure), 'as "database unavailable" (a 503 for a request)');
  env.proxy.resume();
  // The proxy learns that the app closed its side once bytes flow again. A client left stuck in
  // the pool would get its answers now and stay open, idle.
  for (let i = 0; i < 40 && env.proxy.openConnections >= open; i += 1) await sleep(25);
  t.equal(env.proxy.openConnections, open - 1, 'the connection whose statement timed out was closed, not put back in the pool');
  t.same((await env.handle.db.execute<{ n: number }>(sql`select 3 as n`)).rows, [{ n: 3 }], 'the pool works once the stall ends');
});

t.test('a statement held up by a lock is ended by statement_timeout: 503, then 200', async (t) => {
  const env = await outageApp(t, { db: { statementTimeoutMs: 300 } });
  const { requests } = await callers(env);
  // The lock is held from a direct connection (no timeout) for as long as the request takes.
  const held = await env.direct.db.transaction(async (tx) => {
    await tx.execute(sql`lock table courses in access exclusive mode`);
    return call(env, '/api/courses', requests[0]!.headers);
  });
  t.equal(held.status, 503, 'the server cancelled the statement (57014): 503, not a hang');
  t.equal(held.retryAfter, String(DATABASE_RETRY_AFTER_SECONDS));
  t.comment(`lock wait answered 503 after ${held.ms.toFixed(0)} ms (statement_timeout 300 ms)`);
  t.equal((await call(env, '/api/courses', requests[0]!.headers)).status, 200, 'and 200 once the lock is gone');
  const lines = outageLines(env);
  t.match(lines.down, [{ err: { code: '57014' } }], 'one warning, naming the SQLSTATE');
  t.equal(lines.up.length, 1, 'and one info line after');
});

t.test('API keys and sessions during a cut: 503 whatever the credential needs the database for', async (t) => {
  const env = await outageApp(t);
  const { key, cookie } = await callers(env);
  // Well-formed keys that are not stored: only the database can say they are unknown.
  const unknownKey = generateApiKey().key;
  t.equal((await call(env, '/api/courses', { 'x-api-key': unknownKey })).status, 401, 'an unknown key is a 401 while the database is up');
  await env.proxy.cut();

  const freshUnknown = generateApiKey().key; // not in the key cache
  const unknown = await call(env, '/api/courses', { 'x-api-key': freshUnknown });
  t.equal(unknown.status, 503, 'an unknown (invalid) key during the outage: 503, not 500, not a guess of 401');
  t.equal(unknown.retryAfter, String(DATABASE_RETRY_AFTER_SECONDS));
  t.equal((await call(env, '/api/courses', { 'x-api-key': 'not-a-key' })).status, 401, 'a malformed key needs no database: still 401');
  t.equal((await call(env, '/api/courses', { 'x-api-key': key })).status, 503, 'a valid key: 503');
  t.equal((await call(env, '/api/lms-progress', { cookie })).status, 503, 'a session: 503');
  t.equal((await call(env, '/api/api-keys', { cookie })).status, 503, 'key management: 503');

  await env.proxy.restore();
  t.equal((await call(env, '/api/courses', { 'x-api-key': freshUnknown })).status, 401, 'after the restore the unknown key is a 401 again');
  t.equal((await call(env, '/api/courses', { 'x-api-key': key })).status, 200, 'and the valid key a 200');
});

t.test('pages during a cut: a 503 page with Retry-After', async (t) => {
  const env = await outageApp(t);
  const { cookie } = await callers(env);
  await env.proxy.cut();
  const page = await call(env, '/dashboard', { cookie, accept: 'text/html' });
  t.equal(page.status, 503);
  t.equal(page.retryAfter, String(DATABASE_RETRY_AFTER_SECONDS));
  t.match(page.body, /<h1>Layanan sedang tidak tersedia<\/h1>/, 'in Indonesian by default');
  const english = await call(env, '/dashboard', { cookie: `${cookie}; lms_lang=en`, accept: 'text/html' });
  t.equal(english.status, 503);
  t.match(english.body, /<h1>Service temporarily unavailable<\/h1>/, 'in English by choice');
  await env.proxy.restore();
  t.equal((await call(env, '/dashboard', { cookie, accept: 'text/html' })).status, 200, 'the dashboard is back');
});

t.test('the database is unreachable from the start: /readyz 503 at once, one warning', async (t) => {
  const env = await outageApp(t);
  await env.proxy.cut();
  const ready = await call(env, '/readyz', {});
  t.equal(ready.status, 503);
  t.comment(`one client: /readyz during the cut answered 503 in ${ready.ms.toFixed(0)} ms`);
  t.same(JSON.parse(ready.body), { status: 'unavailable', database: 'down' });
  await call(env, '/readyz', {});
  const lines = outageLines(env);
  t.equal(lines.down.length, 1, 'two failed probes, one warning');
  t.ok(
    env.logs.some((l) => l.level === DEBUG && l.msg === 'readiness: database unreachable'),
    'each probe logs at debug',
  );
  await env.proxy.restore();
  const back = await call(env, '/readyz', {});
  t.equal(back.status, 200);
  t.comment(`one client: first /readyz after the restore answered 200 in ${back.ms.toFixed(0)} ms`);
  t.equal(outageLines(env).up.length, 1);
});
