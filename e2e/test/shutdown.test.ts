import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDb } from '@lms/db/testing';
import t, { type Test } from 'tap';
import { type Answer, httpRequest } from './helpers/http-request.js';
import { freePort, testDatabaseUrl } from './helpers/services.js';

// Graceful shutdown of the real servers (the built apps, each in its own process) under
// concurrent keep-alive load: on SIGTERM /readyz goes 503 at once, the server keeps answering
// for SHUTDOWN_DRAIN_MS with `Connection: close` (the clients leave for another instance), a
// request in flight finishes, a request that arrives once closing began gets our JSON 503, no
// connection is reset, and the process exits 0.

t.setTimeout(600_000);

const LMS_SERVER = fileURLToPath(new URL('../../apps/lms/dist/server.js', import.meta.url));
const GATEWAY_SERVER = fileURLToPath(new URL('../../apps/gateway/dist/server.js', import.meta.url));
const CLIENTS = 20;
const DRAIN_MS = 1500;
const SECRET = 'e2e-gateway-secret-0123456789';

interface Child {
  process: ChildProcess;
  url: string;
  port: number;
  /** Resolves when the process printed a line matching `pattern`. */
  printed(pattern: RegExp): Promise<void>;
  exited: Promise<number | string>;
}

async function startChild(t: Test, entry: string, env: Record<string, string>, ready: RegExp): Promise<Child> {
  const port = await freePort();
  const child = spawn(process.execPath, [entry], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: 'info',
      PORT: String(port),
      HOST: '127.0.0.1',
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const onData = (d: Buffer) => {
    out += d;
    for (const w of [...waiters]) {
      if (w.pattern.test(out)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? -1)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exited.then(() => undefined);
  });
  const printed = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      if (pattern.test(out)) return resolve();
      waiters.push({ pattern, resolve });
      void exited.then(() => reject(new Error(`exited before printing ${pattern}:\n${out.slice(-3000)}`)));
    });
  await printed(ready);
  return { process: child, url: `http://127.0.0.1:${port}`, port, printed, exited };
}

/** What the load saw, for the assertions and the report. */
interface LoadFigures {
  requests: number;
  statuses: Record<string, number>;
  /** Connection resets, broken pipes, sockets hung up: requests lost on the way. */
  resets: Record<string, number>;
  /** Clients that got `Connection: close` and left (for another instance, in production). */
  handedOff: number;
  /** Clients that found the listener closed (ECONNREFUSED) on a new connection. */
  refused: number;
}

/** CLIENTS keep-alive clients, each looping on `path` over one socket until told to go. */
function keepAliveLoad(baseUrl: string, path: string): { figures: LoadFigures; done: Promise<void>; warm: Promise<void> } {
  const figures: LoadFigures = { requests: 0, statuses: {}, resets: {}, handedOff: 0, refused: 0 };
  let warmed = 0;
  let markWarm!: () => void;
  const warm = new Promise<void>((resolve) => (markWarm = resolve));
  const client = async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let first = true;
    try {
      for (;;) {
        let answer: Answer;
        try {
          figures.requests += 1;
          answer = await httpRequest(`${baseUrl}${path}`, { agent });
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
          if (code === 'ECONNREFUSED') figures.refused += 1;
          else figures.resets[code] = (figures.resets[code] ?? 0) + 1;
          return;
        }
        figures.statuses[answer.status] = (figures.statuses[answer.status] ?? 0) + 1;
        if (first && ++warmed === CLIENTS) markWarm();
        first = false;
        if (answer.headers.connection === 'close') {
          figures.handedOff += 1;
          return;
        }
      }
    } finally {
      agent.destroy();
    }
  };
  const done = Promise.all(Array.from({ length: CLIENTS }, client)).then(() => undefined);
  return { figures, done, warm };
}

/** Polls /readyz (as a load balancer would) until the listener is gone; the sequence of answers. */
function readinessProbe(baseUrl: string): { seen: string[]; done: Promise<void> } {
  const seen: string[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const done = (async () => {
    for (;;) {
      try {
        const r = await httpRequest(`${baseUrl}/readyz`, { agent });
        if (seen.at(-1) !== String(r.status)) seen.push(String(r.status));
      } catch (err) {
        seen.push((err as NodeJS.ErrnoException).code ?? 'error');
        agent.destroy();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return { seen, done };
}

/**
 * A request whose headers reached the server but whose completion the test decides: with
 * `partialBody`, a POST whose body stops half way (the server waits for it: in flight); without,
 * a request whose header block is not finished (nothing for the server to answer yet).
 */
function heldRequest(port: number, head: string, rest: string): { finish(): void; answer: Promise<string> } {
  const socket: Socket = connect(port, '127.0.0.1');
  let raw = '';
  socket.setEncoding('utf8');
  socket.on('data', (d) => (raw += d));
  socket.write(head);
  const answer = new Promise<string>((resolve, reject) => {
    socket.on('end', () => resolve(raw));
    socket.on('close', () => resolve(raw));
    socket.on('error', reject);
  });
  return { finish: () => socket.write(rest), answer };
}

function parseHttp(raw: string): { status: number; headers: string; body: string } {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: rest.join('\r\n\r\n') };
}

async function shutdownUnderLoad(
  t: Test,
  child: Child,
  loadPath: string,
  inFlight: { start(): Promise<void>; finish(): void; answer: Promise<{ status: number; body: string }>; expectedStatus: number },
) {
  const load = keepAliveLoad(child.url, loadPath);
  const probe = readinessProbe(child.url);
  await load.warm;
  // Let the load run a little: every client busy on its kept-alive socket.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await inFlight.start();
  // A connection that has sent part of its header block: its request arrives once closing began.
  const late = heldRequest(child.port, 'GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n', '\r\n');

  const signalled = performance.now();
  child.process.kill('SIGTERM');
  await child.printed(/shutdown: closing the listener/);
  const closingAfter = Math.round(performance.now() - signalled);
  inFlight.finish();
  late.finish();

  const [exitCode, inFlightAnswer, lateRaw] = await Promise.all([child.exited, inFlight.answer, late.answer]);
  await Promise.all([load.done, probe.done]);
  const lateAnswer = parseHttp(lateRaw);

  t.comment(
    `${CLIENTS} keep-alive clients, drain ${DRAIN_MS} ms (closing began ${closingAfter} ms after SIGTERM): ` +
      `${load.figures.requests} requests, statuses ${JSON.stringify(load.figures.statuses)}, ` +
      `resets ${JSON.stringify(load.figures.resets)}, handed off ${load.figures.handedOff}, refused ${load.figures.refused}; ` +
      `readiness ${probe.seen.join(' → ')}; in flight → ${inFlightAnswer.status}; late → ${lateAnswer.status}; exit ${exitCode}`,
  );
  t.same(load.figures.resets, {}, 'no connection reset, no request lost');
  t.equal(load.figures.handedOff, CLIENTS, 'every keep-alive client was told Connection: close, and left');
  t.same(Object.keys(load.figures.statuses), ['200'], 'every request got its answer');
  // The poller opens a new connection per poll once told Connection: close; its last one meets
  // the closed listener: refused, or reset if it was opened in the instant the listener closed
  // (as a load balancer's health check may: it only counts as "down").
  t.same(probe.seen.slice(0, 2), ['200', '503'], '/readyz went 503 before the listener closed');
  t.equal(probe.seen.length, 3);
  t.match(probe.seen.at(-1), /^(ECONNREFUSED|ECONNRESET)$/, 'then the listener was gone');
  t.equal(inFlightAnswer.status, inFlight.expectedStatus, `the request in flight finished: ${inFlightAnswer.body}`);
  t.equal(lateAnswer.status, 503, 'a request arriving once closing began');
  t.match(lateAnswer.headers, /retry-after: 1/);
  t.match(JSON.parse(lateAnswer.body), { error: /shutting down/ });
  t.equal(exitCode, 0, 'exit 0');
  return lateAnswer;
}

t.test('LMS: SIGTERM under keep-alive load', async (t) => {
  let env: Record<string, string>;
  if (testDatabaseUrl) {
    const db = await createTestDb(testDatabaseUrl);
    t.teardown(() => db.destroy());
    env = { DATABASE_URL: db.url!, MIGRATE_ON_START: 'false' };
  } else {
    const dir = await mkdtemp(join(tmpdir(), 'e2e-shutdown-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    env = { DATA_DIR: join(dir, 'pglite'), SEED_DEMO_ON_EMPTY: 'false' };
  }
  const lms = await startChild(t, LMS_SERVER, env, /LMS ready at[\s\S]*\n\s*\n/);

  // In flight: a same-origin sign-out whose body arrives in two parts, the second after closing began.
  const body = JSON.stringify({ reason: 'x'.repeat(64) });
  let request!: ReturnType<typeof heldRequest>;
  const late = await shutdownUnderLoad(t, lms, '/healthz', {
    async start() {
      request = heldRequest(
        lms.port,
        `POST /api/auth/sign-out HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://localhost:3000\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
        body.slice(10),
      );
    },
    finish: () => request.finish(),
    get answer() {
      return request.answer.then(parseHttp);
    },
    expectedStatus: 200,
  });
  t.same(JSON.parse(late.body), { success: false, error: 'The service is shutting down; retry the request' }, 'our error shape');
});

t.test('gateway: SIGTERM under keep-alive load, a forwarded call in flight', async (t) => {
  // The partner's LMS: answers the forwarded call only when the test says so.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let forwarded!: () => void;
  const arrived = new Promise<void>((resolve) => (forwarded = resolve));
  const upstream = http.createServer((req, res) => {
    req.resume();
    forwarded();
    void released.then(() => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    upstream.closeAllConnections();
    return new Promise<void>((resolve) => upstream.close(() => resolve()));
  });
  const dir = await mkdtemp(join(tmpdir(), 'e2e-shutdown-gw-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const partnersFile = join(dir, 'partners.json');
  const lmsUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
  await writeFile(partnersFile, JSON.stringify({ partners: [{ iss: 'slow.example', allowedIps: ['127.0.0.1/32'], lmsUrl }] }));
  const gateway = await startChild(t, GATEWAY_SERVER, { PARTNERS_FILE: partnersFile, GATEWAY_SECRET: SECRET }, /Gateway ready at/);

  // The gateway reads `iss` without verifying (the LMS verifies): an unsigned token will do.
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const token = `${b64({ alg: 'RS256', typ: 'JWT', kid: 'k' })}.${b64({ iss: 'slow.example' })}.c2ln`;
  const agent = new http.Agent({ keepAlive: false });
  let answer!: Promise<{ status: number; body: string }>;
  const late = await shutdownUnderLoad(t, gateway, '/healthz', {
    async start() {
      answer = httpRequest(`${gateway.url}/api/courses`, {
        agent,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ institutionId: 1, teacherId: 't', name: 'In flight' }),
      });
      await arrived;
    },
    finish: () => release(),
    get answer() {
      return answer;
    },
    expectedStatus: 201,
  });
  t.same(JSON.parse(late.body), { success: false, error: 'The gateway is shutting down; retry the request' });
});
