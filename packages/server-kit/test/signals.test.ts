import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'signal-server.ts');
// The child loads the fixture's TypeScript as this test does (the tsx loader tap's config names).
const loader = process.execArgv.filter((a) => a === '--import=tsx');

interface Server {
  child: ChildProcess;
  url: string;
  /** Everything the child wrote on stdout so far. */
  out: () => string;
  /** Resolves once stdout contains `text`. */
  saw: (text: string) => Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function start(t: Test, env: { DRAIN_MS: number; CLOSE_TIMEOUT_MS: number }): Promise<Server> {
  const child = spawn(process.execPath, [...loader, fixture], {
    env: { ...process.env, DRAIN_MS: String(env.DRAIN_MS), CLOSE_TIMEOUT_MS: String(env.CLOSE_TIMEOUT_MS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  const waiting: { text: string; resolve: () => void }[] = [];
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const w of waiting.filter((w) => out.includes(w.text))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const saw = (text: string) =>
    out.includes(text)
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          waiting.push({ text, resolve });
          void exited.then(() => reject(new Error(`the child exited before printing ${JSON.stringify(text)}; it printed:\n${out}`)));
        });
  await saw('LISTENING ');
  const url = /LISTENING (\S+)/.exec(out)?.[1] ?? '';
  return { child, url, out: () => out, saw, exited };
}

/** A keep-alive GET on a fresh connection: status, the Connection header and the body, or the socket's error. */
function get(url: string): Promise<{ status: number; connection: string | undefined; body: string } | { error: string }> {
  const agent = new Agent({ keepAlive: true });
  return new Promise<{ status: number; connection: string | undefined; body: string } | { error: string }>((resolve) => {
    const req = request(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
      res.on('error', (err) => resolve({ error: err.message }));
    });
    req.on('error', (err) => resolve({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    req.end();
  }).finally(() => agent.destroy());
}

const alive = (s: Server) => s.child.exitCode === null && s.child.signalCode === null;
/** Resolves after `ms` without keeping the test process alive. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

t.test('one signal: requests are answered with Connection: close for the drain, then the app closes and exits 0', async (t) => {
  const s = await start(t, { DRAIN_MS: 1_500, CLOSE_TIMEOUT_MS: 10_000 });
  const before = await get(`${s.url}/ok`);
  t.match(before, { status: 200, connection: 'keep-alive' }, 'before the signal: kept alive');
  s.child.kill('SIGTERM');
  await s.saw('shutdown: draining');
  const during = await get(`${s.url}/ok`);
  t.match(during, { status: 200, connection: 'close', body: '{"ok":true}' }, 'during the drain: answered in full, with Connection: close');
  t.ok(alive(s), 'still serving during the drain');
  t.same(await s.exited, { code: 0, signal: null }, 'exit 0 after the drain');
  // Each step's log line (pino may write the last two in either order before the exit).
  t.match(s.out(), /shutdown: closing the listener, waiting for the requests in flight/);
  t.match(s.out(), /shutdown: done/);
  t.notMatch(s.out(), /second signal/);
});

t.test('a second signal ends the drain at once', async (t) => {
  const s = await start(t, { DRAIN_MS: 600_000, CLOSE_TIMEOUT_MS: 10_000 });
  s.child.kill('SIGTERM');
  await s.saw('shutdown: draining');
  // A repeated SIGTERM is the same as SIGINT here: either is the second signal.
  s.child.kill('SIGINT');
  const waited = await Promise.race([s.exited, sleep(20_000).then(() => 'still running after 20 s of a 10-minute drain')]);
  t.same(waited, { code: 0, signal: null }, 'exit 0 without waiting for the rest of the drain');
  t.match(s.out(), /second signal, closing without waiting/);
  t.match(s.out(), /shutdown: done/);
});

t.test('a request in flight when the app closes is finished before the exit', async (t) => {
  const s = await start(t, { DRAIN_MS: 0, CLOSE_TIMEOUT_MS: 10_000 });
  const answer = get(`${s.url}/slow?ms=800`);
  await s.saw('SLOW STARTED');
  s.child.kill('SIGTERM');
  t.match(await answer, { status: 200, body: '{"slept":800}' }, 'the request in flight gets its whole answer');
  t.same(await s.exited, { code: 0, signal: null });
  const refused = await get(`${s.url}/ok`);
  t.match(refused, { error: 'ECONNREFUSED' }, 'the listener is gone');
});

t.test('a request still in flight after the close timeout: the process exits 1 and says why', async (t) => {
  const s = await start(t, { DRAIN_MS: 0, CLOSE_TIMEOUT_MS: 500 });
  const answer = get(`${s.url}/slow?ms=600000`);
  await s.saw('SLOW STARTED');
  s.child.kill('SIGTERM');
  const waited = await Promise.race([s.exited, sleep(20_000).then(() => 'still running 20 s after the signal')]);
  t.same(waited, { code: 1, signal: null }, 'exit 1, not a hang');
  if (alive(s)) s.child.kill('SIGKILL'); // failed: do not wait 10 minutes for the answer below
  t.match(s.out(), /requests still in flight after 500 ms; exiting/);
  t.match(await answer, { error: String }, 'the stuck request is cut, not answered');
});

t.test('an app without the lifecycle plugin is refused when stopOnSignals is called, not at its first signal', async (t) => {
  const { default: Fastify } = await import('fastify');
  const { stopOnSignals } = await import('../src/lifecycle.js');
  const before = process.listenerCount('SIGTERM');
  t.throws(() => stopOnSignals(Fastify(), 0), /register lifecyclePlugin on the app first/);
  t.equal(process.listenerCount('SIGTERM'), before, 'no signal handler left behind');
});
