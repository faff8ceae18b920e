import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiKeys, courses, createDb, generateApiKey, sessions, users } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { count, eq, sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { cookieBrowser } from './helpers/cookie-browser.js';
import { httpRequest } from './helpers/http-request.js';
import { composeConfigFor, HAPROXY_DIR, haproxyBinary } from './helpers/haproxy.js';
import { freePort, GATEWAY_SECRET, makeTeacher, registerPemPartner, testDatabaseUrl } from './helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): several processes on one PostgreSQL server, whatever TEST_DATABASE_URL says.

// An operator who outgrew one machine: 3 LMS and 2 gateways, each a real process of the built
// apps, behind Debian's HAProxy running the repository's own configuration (deploy/haproxy: the
// compose balancer's frontends and backends, pointed at these processes), on one PostgreSQL and
// one Redis. Through the balancer: exact limits across instances and on a freshly started one,
// one session per SSO token, one course per Idempotency-Key, a rolling restart of all five under
// load with no failed request, and a kill -9 that strands nothing. The figures are printed.

t.setTimeout(900_000);

const LMS_SERVER = fileURLToPath(new URL('../../apps/lms/dist/server.js', import.meta.url));
const GATEWAY_SERVER = fileURLToPath(new URL('../../apps/gateway/dist/server.js', import.meta.url));
/** Several processes share one database: a PostgreSQL server whatever TEST_DATABASE_URL says. */
const POSTGRES_URL = testDatabaseUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
/** As docker compose runs them: the balancer's checks take a stopping instance out within this. */
const DRAIN_MS = 5_000;
const RATE_LIMIT = 100;
const FAILED_AUTH_LIMIT = 30;
const ISS = 'many.example';

interface Instance {
  name: string;
  port: number;
  output(): string;
  start(): Promise<void>;
  signal(signal: NodeJS.Signals): void;
  exited(): Promise<number | string>;
  pid(): number;
}

/** A server process of a built app on a fixed port (a restart comes back where the balancer expects it). */
function instance(t: Test, name: string, entry: string, port: number, env: Record<string, string>, ready: RegExp): Instance {
  let child: ChildProcess | null = null;
  let out = '';
  let exited: Promise<number | string> = Promise.resolve('not started');
  t.teardown(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return {
    name,
    port,
    output: () => out,
    async start() {
      const started = spawn(process.execPath, [entry], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          HOST: '127.0.0.1',
          PORT: String(port),
          METRICS_PORT: '0',
          LOG_LEVEL: 'warn',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = started;
      exited = new Promise((resolve) => started.on('close', (code, signal) => resolve(code ?? signal ?? -1)));
      await new Promise<void>((resolve, reject) => {
        const onData = (d: Buffer) => {
          out += d;
          if (ready.test(out)) resolve();
        };
        started.stdout!.on('data', onData);
        started.stderr!.on('data', onData);
        void exited.then((how) => reject(new Error(`${name} exited (${how}) before it was ready:\n${out.slice(-3000)}`)));
      });
    },
    signal: (signal) => child?.kill(signal),
    exited: () => exited,
    pid: () => child?.pid ?? -1,
  };
}

/** Waits (bounded) until `condition` holds; fails the test with `what` otherwise. */
async function until(what: string, condition: () => Promise<boolean>, limitMs = 60_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await condition()) return Math.round(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what}: not within ${limitMs} ms`);
}

/** HAProxy's view of its servers (`show stat` on the admin socket): status (UP, DOWN...) and total sessions. */
async function haproxyServers(socket: string): Promise<Map<string, { status: string; total: number }>> {
  const csv = await new Promise<string>((resolve, reject) => {
    const s = connect(socket);
    let text = '';
    s.on('data', (d) => (text += d));
    s.on('end', () => resolve(text));
    s.on('error', reject);
    s.write('show stat\n');
  });
  const [header = '', ...rows] = csv.trim().split('\n');
  const columns = header.replace(/^# /, '').split(',');
  const at = (name: string) => columns.indexOf(name);
  const servers = new Map<string, { status: string; total: number }>();
  for (const row of rows) {
    const cells = row.split(',');
    if (['FRONTEND', 'BACKEND'].includes(cells[at('svname')]!)) continue;
    servers.set(`${cells[at('pxname')]}/${cells[at('svname')]}`, { status: cells[at('status')]!, total: Number(cells[at('stot')]) });
  }
  return servers;
}

interface LoadFigures {
  requests: number;
  statuses: Record<string, number>;
  /** Requests that did not get their expected answer: a status, a reset, a refused connection. */
  failures: string[];
}

/**
 * `clients` keep-alive clients through the balancer, each sending the next of `next()` as soon as
 * it has its answer (with a short pause, so that the API keys' windows are not what refuses them),
 * until stopped. Every answer other than the expected status counts as a failure.
 */
function load(clients: number, next: (i: number) => { url: string; headers: Record<string, string>; expect: number }) {
  const figures: LoadFigures = { requests: 0, statuses: {}, failures: [] };
  let running = true;
  let sent = 0;
  const loops = Array.from({ length: clients }, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      while (running) {
        const call = next(sent++);
        figures.requests += 1;
        try {
          const answer = await httpRequest(call.url, { headers: call.headers, agent });
          figures.statuses[answer.status] = (figures.statuses[answer.status] ?? 0) + 1;
          if (answer.status !== call.expect) figures.failures.push(`${call.url} → ${answer.status} ${answer.body.slice(0, 200)}`);
        } catch (err) {
          figures.failures.push(`${call.url} → ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    } finally {
      agent.destroy();
    }
  });
  return {
    figures,
    async stop() {
      running = false;
      await Promise.all(loops);
      return figures;
    },
  };
}

t.test('3 LMS and 2 gateways behind HAProxy', async (t) => {
  // One PostgreSQL database and one Redis key prefix for this run, removed at the end.
  const db = await createTestDb(POSTGRES_URL);
  t.teardown(() => db.destroy());
  const keyPrefix = `lms-e2e:many:${randomBytes(6).toString('hex')}:`;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  t.teardown(async () => {
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  const { institutionId, teacherId } = await makeTeacher(db.db);
  const partner = await registerPemPartner(db.db, ISS, [institutionId]);
  const newKeys = async (n: number) => {
    const made = Array.from({ length: n }, () => generateApiKey());
    await db.db.insert(apiKeys).values(made.map((k) => ({ keyHash: k.keyHash, prefix: k.prefix, userId: teacherId, name: 'e2e' })));
    return made.map((k) => k.key);
  };

  const dir = await mkdtemp(join(tmpdir(), 'e2e-many-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const ports = { lmsPublic: await freePort(), lmsInternal: await freePort(), gatewayPublic: await freePort() };
  const lmsPublicUrl = `http://127.0.0.1:${ports.lmsPublic}`;
  const gatewayPublicUrl = `http://127.0.0.1:${ports.gatewayPublic}`;
  const partnersFile = join(dir, 'partners.json');
  await writeFile(partnersFile, JSON.stringify({ partners: [{ iss: ISS, allowedIps: ['127.0.0.1/32'], lmsUrl: lmsPublicUrl }] }));

  const lmsEnv = (name: string) => ({
    // application_name: which instance a database session belongs to (pg_stat_activity).
    DATABASE_URL: `${db.url}?application_name=${name}`,
    MIGRATE_ON_START: 'false',
    SEED_DEMO_ON_EMPTY: 'false',
    DB_POOL_MAX: '5',
    REDIS_URL,
    REDIS_KEY_PREFIX: keyPrefix,
    PUBLIC_URL: lmsPublicUrl,
    GATEWAY_SECRET,
    // The balancer (and the gateway) on the loopback: their X-Forwarded-For names the client.
    TRUST_PROXY: '127.0.0.1/32',
    SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    FAILED_AUTH_PER_MINUTE: String(FAILED_AUTH_LIMIT),
  });
  const LMS_READY = /LMS ready at/;
  const GATEWAY_READY = /Gateway ready at/;
  const lmsInstances: Instance[] = [];
  for (const name of ['lms1', 'lms2', 'lms3']) lmsInstances.push(instance(t, name, LMS_SERVER, await freePort(), lmsEnv(name), LMS_READY));
  const gatewayInstances: Instance[] = [];
  for (const name of ['gateway1', 'gateway2']) {
    gatewayInstances.push(
      instance(
        t,
        name,
        GATEWAY_SERVER,
        await freePort(),
        {
          PUBLIC_URL: gatewayPublicUrl,
          PARTNERS_FILE: partnersFile,
          LMS_UPSTREAM_URL: `http://127.0.0.1:${ports.lmsInternal}`,
          TRUST_PROXY: '127.0.0.1/32',
          GATEWAY_SECRET,
          SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
        },
        GATEWAY_READY,
      ),
    );
  }
  await Promise.all([...lmsInstances, ...gatewayInstances].map((i) => i.start()));

  const socket = join(dir, 'haproxy.sock');
  const config = join(dir, 'haproxy.cfg');
  await writeFile(
    config,
    `global\n    stats socket ${socket} mode 600 level admin\n\n${composeConfigFor(
      { lms_public: ports.lmsPublic, lms_internal: ports.lmsInternal, gateway_public: ports.gatewayPublic },
      { lms: lmsInstances, gateway: gatewayInstances },
    )}`,
  );
  const haproxy = spawn(haproxyBinary, ['-f', join(HAPROXY_DIR, 'global.cfg'), '-f', join(HAPROXY_DIR, 'defaults.cfg'), '-f', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let haproxyLog = '';
  haproxy.stdout.on('data', (d) => (haproxyLog += d));
  haproxy.stderr.on('data', (d) => (haproxyLog += d));
  const haproxyExited = new Promise((resolve) => haproxy.on('close', resolve));
  t.teardown(async () => {
    haproxy.kill('SIGTERM');
    await haproxyExited;
  });
  const statusOf = async (backend: string, server: string) =>
    (await haproxyServers(socket).catch(() => new Map())).get(`${backend}/${server}`)?.status;
  const allUp = async () => {
    const servers = await haproxyServers(socket).catch(() => null);
    return servers !== null && [...servers.values()].every((s) => s.status === 'UP') && servers.size === 5;
  };
  await until('HAProxy sees every instance up', allUp);

  await t.test('the API-key limit is exact across the three instances: 200 concurrent requests, 100 allowed', async (t) => {
    const [key] = await newKeys(1);
    const before = await haproxyServers(socket);
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => httpRequest(`${lmsPublicUrl}/api/courses?limit=1`, { headers: { 'x-api-key': key! } })),
    );
    const after = await haproxyServers(socket);
    const spread = lmsInstances.map((i) => after.get(`lms/${i.name}`)!.total - before.get(`lms/${i.name}`)!.total);
    t.comment(`200 concurrent requests on one key, spread over the instances: ${spread.join(' / ')}`);
    t.ok(
      spread.every((n) => n > 0),
      'every instance answered some',
    );
    t.equal(answers.filter((a) => a.status === 200).length, RATE_LIMIT, '100 × 200');
    t.equal(answers.filter((a) => a.status === 429).length, 200 - RATE_LIMIT, '100 × 429');

    // A fourth instance, started now on the spent key, refuses from its very first request.
    const fourth = instance(t, 'lms4', LMS_SERVER, await freePort(), lmsEnv('lms4'), LMS_READY);
    await fourth.start();
    const cold = await Promise.all(
      Array.from({ length: 30 }, () =>
        httpRequest(`http://127.0.0.1:${fourth.port}/api/courses?limit=1`, { headers: { 'x-api-key': key! } }),
      ),
    );
    t.same(
      cold.map((a) => a.status),
      Array(30).fill(429),
      'a freshly started 4th instance: 30 × 429 on the spent key, none let through',
    );
    // Failed credentials of one address (named by a trusted proxy): the limit for all instances together.
    const attacker = { 'x-forwarded-for': '198.51.100.23' };
    const bad = () => ({ 'x-api-key': `lms_key_${randomBytes(32).toString('base64url')}`, ...attacker });
    const failures = await Promise.all(
      Array.from({ length: 60 }, () => httpRequest(`http://127.0.0.1:${ports.lmsInternal}/api/courses?limit=1`, { headers: bad() })),
    );
    t.equal(failures.filter((a) => a.status === 401).length, FAILED_AUTH_LIMIT, `${FAILED_AUTH_LIMIT} unknown keys from one address: 401`);
    t.equal(failures.filter((a) => a.status === 429).length, 60 - FAILED_AUTH_LIMIT, 'the rest: 429, whichever instance they reached');
    const coldFailures = await Promise.all(
      Array.from({ length: 10 }, () => httpRequest(`http://127.0.0.1:${fourth.port}/api/courses?limit=1`, { headers: bad() })),
    );
    t.same(
      coldFailures.map((a) => a.status),
      Array(10).fill(429),
      'and the 4th instance refuses that address from its first request',
    );
    fourth.signal('SIGTERM');
    await fourth.exited();
  });

  await t.test('one SSO token, 20 concurrent sign-ins through the balancer and both gateways: one session', async (t) => {
    const email = `sso.${randomUUID()}@example.org`;
    const token = await partner.sign({ sub: 'member', email, membershipId: 'MANY-0001' });
    const chains = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const b = cookieBrowser();
        const verify = await b.get(`${gatewayPublicUrl}/sso/verify?token=${token}`);
        const atLms = verify.headers.get('location')!;
        const redirect = await b.get(atLms);
        const callback = await b.get(new URL(redirect.headers.get('location')!, atLms).toString());
        return { verify: verify.status, location: callback.headers.get('location') };
      }),
    );
    t.same(new Set(chains.map((c) => c.verify)), new Set([302]), 'every gateway call: 302 to the LMS');
    t.equal(chains.filter((c) => c.location === '/dashboard').length, 1, 'one chain signed in');
    t.equal(chains.filter((c) => c.location?.startsWith('/sign-in?error=invalid_token')).length, 19, 'the 19 others: the token was spent');
    const [user] = await db.db.select({ id: users.id }).from(users).where(eq(users.email, email));
    t.equal(
      (await db.db.select({ n: count() }).from(sessions).where(eq(sessions.userId, user!.id)))[0]!.n,
      1,
      'one session in the database',
    );
  });

  await t.test('one Idempotency-Key, 10 concurrent creations through the balancer, both gateways and three LMS: one course', async (t) => {
    const body = JSON.stringify({ institutionId, teacherId, name: `Many instances ${randomUUID()}` });
    const answers = await Promise.all(
      Array.from({ length: 10 }, async () =>
        httpRequest(`${gatewayPublicUrl}/api/courses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${await partner.sign()}`, 'idempotency-key': 'many-1' },
          body,
        }),
      ),
    );
    t.same(
      answers.map((a) => a.status),
      Array(10).fill(201),
      'every caller gets the 201',
    );
    t.equal(answers.filter((a) => a.headers['idempotency-replayed'] !== 'true').length, 1, 'one of them made it; nine replayed it');
    t.equal(new Set(answers.map((a) => JSON.parse(a.body).course.id)).size, 1, 'all name the same course');
    const name = JSON.parse(body).name;
    t.equal((await db.db.select({ n: count() }).from(courses).where(eq(courses.name, name)))[0]!.n, 1, 'one course in the database');
  });

  // Load through the balancer: API-key catalog requests to the LMS (keys enough that no window
  // fills) and SSO verifications at the gateway (the gateway does not spend the token).
  const verifyToken = await partner.sign({ sub: 'member', email: 'load@example.org', membershipId: 'LOAD-1' });
  const mixedLoad =
    (keys: string[]) =>
    (i: number): { url: string; headers: Record<string, string>; expect: number } =>
      i % 4 === 3
        ? { url: `${gatewayPublicUrl}/sso/verify?token=${verifyToken}`, headers: {}, expect: 302 }
        : { url: `${lmsPublicUrl}/api/courses?limit=1`, headers: { 'x-api-key': keys[i % keys.length]! }, expect: 200 };

  await t.test('a rolling restart of the 3 LMS and the 2 gateways under load: no failed request', async (t) => {
    const traffic = load(12, mixedLoad(await newKeys(400)));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const steps: string[] = [];
    for (const [backend, instances] of [
      ['lms', lmsInstances],
      ['gateway', gatewayInstances],
    ] as const) {
      for (const inst of instances) {
        const signalled = performance.now();
        inst.signal('SIGTERM');
        const down = await until(`${inst.name} marked down`, async () => (await statusOf(backend, inst.name))?.startsWith('DOWN') ?? false);
        const code = await inst.exited();
        const exited = Math.round(performance.now() - signalled);
        t.equal(code, 0, `${inst.name}: exit 0 after its drain`);
        const restarted = performance.now();
        await inst.start();
        const up = await until(`${inst.name} back up`, async () => (await statusOf(backend, inst.name)) === 'UP');
        steps.push(
          `${inst.name}: out after ${down} ms, exited after ${exited} ms, back in ${Math.round(performance.now() - restarted)} ms (up ${up} ms after it listened)`,
        );
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const figures = await traffic.stop();
    t.comment(
      `rolling restart: ${figures.requests} requests, statuses ${JSON.stringify(figures.statuses)}, ${figures.failures.length} failed`,
    );
    for (const step of steps) t.comment(step);
    t.same(figures.failures.slice(0, 10), [], 'no request failed');
    t.equal(figures.failures.length, 0);
    t.ok(figures.requests > 500, `the load went on throughout (${figures.requests} requests)`);
  });

  await t.test('kill -9 of the LMS holding a course creation, under load: the request completes elsewhere, nothing stranded', async (t) => {
    const traffic = load(12, mixedLoad(await newKeys(400)));
    // The creation's insert waits for a lock the test holds, so the test knows which instance holds it.
    const holder = createDb({ databaseUrl: db.url, poolMax: 1 });
    t.teardown(() => holder.close());
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = holder.db.transaction(async (tx) => {
      await tx.execute(sql`lock table courses in access exclusive mode`);
      locked();
      await released;
    });
    t.teardown(() => release());
    await isLocked;
    const name = `Killed mid-creation ${randomUUID()}`;
    const creation = httpRequest(`${gatewayPublicUrl}/api/courses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await partner.sign()}`, 'idempotency-key': 'kill-1' },
      body: JSON.stringify({ institutionId, teacherId, name }),
    });
    const waitingOn = async () =>
      (
        await db.db.execute<{ app: string }>(
          sql`select application_name as app from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike 'insert into "courses"%'`,
        )
      ).rows.map((r) => r.app);
    await until('the creation waits for the lock', async () => (await waitingOn()).length === 1, 10_000);
    const [victimName] = await waitingOn();
    const victim = lmsInstances.find((i) => i.name === victimName)!;
    const killed = performance.now();
    victim.signal('SIGKILL');
    t.equal(await victim.exited(), 'SIGKILL', `${victim.name} killed`);
    const down = await until(`${victim.name} marked down`, async () => (await statusOf('lms', victim.name))?.startsWith('DOWN') ?? false);
    // The balancer sent the creation again (it has an Idempotency-Key) to another instance, which waits for the key.
    const retriedOn = await until(
      'the creation sent again to another instance',
      async () =>
        (
          await db.db.execute<{ n: number }>(
            sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and application_name <> ${victim.name}`,
          )
        ).rows[0]!.n > 0,
      10_000,
    );
    release();
    await holding;
    const answer = await creation;
    t.equal(answer.status, 201, `the partner got its 201: ${answer.body.slice(0, 200)}`);
    t.equal((await db.db.select({ n: count() }).from(courses).where(eq(courses.name, name)))[0]!.n, 1, 'one course');
    const again = await httpRequest(`${gatewayPublicUrl}/api/courses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await partner.sign()}`, 'idempotency-key': 'kill-1' },
      body: JSON.stringify({ institutionId, teacherId, name }),
    });
    t.equal(again.status, 201, 'a retry with the key gets the recorded answer');
    t.equal(again.headers['idempotency-replayed'], 'true');

    const restarted = performance.now();
    await victim.start();
    const up = await until(`${victim.name} back up`, async () => (await statusOf('lms', victim.name)) === 'UP');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const figures = await traffic.stop();
    const leftovers = await db.db.execute<{ n: number }>(
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and (state = 'idle in transaction' or wait_event_type = 'Lock')`,
    );
    t.equal(leftovers.rows[0]!.n, 0, 'no session left idle in a transaction or waiting for a lock');
    const keys = await db.db.execute<{ n: number }>(
      sql`select count(*)::int as n from idempotency_keys where key = 'kill-1' and status_code = 201`,
    );
    t.equal(keys.rows[0]!.n, 1, 'the key holds its answer');
    t.comment(
      `kill -9 of ${victim.name}: out of the balancer after ${down} ms; the creation sent again to another instance within ${retriedOn} ms; ` +
        `restarted and back in ${Math.round(performance.now() - restarted)} ms (up ${up} ms after it listened); ` +
        `load meanwhile ${figures.requests} requests, statuses ${JSON.stringify(figures.statuses)}, ${figures.failures.length} failed` +
        ` (${Math.round(performance.now() - killed)} ms from the kill to the end)`,
    );
    t.same(figures.failures.slice(0, 10), [], 'no request of the load failed');
    t.equal(figures.failures.length, 0);
  });

  // HAProxy's log line of a request ends its connection counters with the retries it took ("+" when sent to another server).
  const retried = [...haproxyLog.matchAll(/ \d+\/\d+\/\d+\/\d+\/(\+?)(\d+) \d+\/\d+ /g)].filter((m) => Number(m[2]) > 0);
  t.comment(`HAProxy: ${retried.length} requests retried, ${retried.filter((m) => m[1] === '+').length} of them on another instance`);
});
