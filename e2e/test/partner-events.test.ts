import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chapters, courses, identities, institutions, modules, partners, users, webhookDeliveries, webhookEndpoints } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { createSession } from '@lms/lms/sessions';
import { eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import t, { type Test } from 'tap';
import { freePort, GATEWAY_SECRET, testDatabaseUrl } from './helpers/services.js';

// The outbox survives a crash: an LMS process killed with SIGKILL after the enrolment committed
// and before its event was delivered (or in the middle of sending it) delivers it after the
// restart, with the same webhook-id. Real processes of the built LMS on one PostgreSQL.

t.setTimeout(180_000);

const LMS_SERVER = fileURLToPath(new URL('../../apps/lms/dist/server.js', import.meta.url));
const POSTGRES_URL = testDatabaseUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
}

/** The partner's receiver: `hold` keeps requests unanswered (the LMS is killed while waiting). */
async function receiver(t: Test) {
  const hits: Hit[] = [];
  const held: Array<() => void> = [];
  let hold = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (hold) held.push(() => res.end('late'));
      else res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const h of held) h();
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    hits,
    setHold: (v: boolean) => {
      hold = v;
    },
  };
}

function startLms(t: Test, port: number, env: Record<string, string>) {
  let out = '';
  const child: ChildProcess = spawn(process.execPath, [LMS_SERVER], {
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
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? -1)));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      if (/LMS ready at/.test(out)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((how) => reject(new Error(`the LMS exited (${how}) before it was ready:\n${out.slice(-3000)}`)));
  });
  return { child, ready, exited, output: () => out };
}

async function until(what: string, condition: () => Promise<boolean> | boolean, limitMs = 60_000): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: not within ${limitMs} ms`);
}

t.test('SIGKILL between commit and delivery: delivered after the restart, same webhook-id', async (t) => {
  const db = await createTestDb(POSTGRES_URL);
  t.teardown(() => db.destroy());
  const [inst] = await db.db.insert(institutions).values({ name: 'Home' }).returning();
  const [teacher] = await db.db
    .insert(users)
    .values({ email: 'teacher@e2e.test', name: 'T', role: 'teacher', institutionId: inst!.id })
    .returning();
  const [learner] = await db.db.insert(users).values({ email: 'learner@e2e.test', name: 'L' }).returning();
  const openCourse = async (name: string) => {
    const [c] = await db.db
      .insert(courses)
      .values({
        name,
        teacherId: teacher!.id,
        institutionId: inst!.id,
        isPublished: true,
        eventCode: 'EV',
        enrollmentType: 'open',
        isPurchasable: false,
      })
      .returning();
    const [m] = await db.db.insert(modules).values({ courseId: c!.id, name: 'M' }).returning();
    await db.db.insert(chapters).values({ moduleId: m!.id, courseId: c!.id, name: 'C', orderIndex: 0 });
    return c!;
  };
  const [partner] = await db.db.insert(partners).values({ issuer: 'assoc.example.org', name: 'Assoc' }).returning();
  await db.db.insert(identities).values({ issuer: 'assoc.example.org', membershipId: 'KUM-42', userId: learner!.id, origin: 'operator' });
  const rx = await receiver(t);
  const secret = `whsec_${Buffer.from('e2e-secret-e2e-secret-e2e-secret').toString('base64')}`;
  await db.db.insert(webhookEndpoints).values({ partnerId: partner!.id, url: rx.url, eventTypes: ['enrollment.created'], secret });
  const session = await createSession(db.db, learner!.id, new Date(), 3_600_000);

  const port = await freePort();
  const env = (pollMs: number) => ({
    DATABASE_URL: db.url!,
    MIGRATE_ON_START: 'false',
    GATEWAY_SECRET,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SHUTDOWN_DRAIN_MS: '0',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800',
    // The lease a killed instance leaves behind is 2 × timeout + 5 s.
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_POLL_MS: String(pollMs),
    // A run lost with its process is noticed within a second (default 60 s), once its expiry is over.
    JOBS_SUPERVISE_SECONDS: '1',
  });
  const enrol = async (courseId: number) => {
    const res = await fetch(`http://127.0.0.1:${port}/api/learning/courses/${courseId}/enrollment`, {
      method: 'POST',
      headers: { cookie: `lms_session_token=${session.token}`, 'x-requested-with': 'fetch' },
    });
    return res.status;
  };
  const delivery = async (courseId: number) => {
    const eventId = await eventOf(courseId);
    if (!eventId) return undefined;
    const [row] = await db.db
      .select({ status: webhookDeliveries.status })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.eventId, eventId));
    return row;
  };
  const eventOf = async (courseId: number) => {
    const { rows } = await db.db.execute(
      // The event of this course's enrolment (its data names the course).
      sql`select id from partner_events where (data->'course'->>'id')::int = ${courseId}`,
    );
    return (rows[0] as { id: string } | undefined)?.id;
  };

  await t.test('killed after the commit, before any attempt', async (t) => {
    const course = await openCourse('Before any attempt');
    // The worker looks once at start, then not for 10 minutes: the event waits in the outbox.
    const first = startLms(t, port, env(600_000));
    await first.ready;
    t.equal(await enrol(course.id), 201, 'the enrolment committed');
    const eventId = await eventOf(course.id);
    t.ok(eventId, 'its event is in the outbox');
    t.equal(rx.hits.length, 0, 'not delivered yet');
    first.child.kill('SIGKILL');
    t.equal(await first.exited, 'SIGKILL');

    const second = startLms(t, port, env(100));
    await second.ready;
    await until('delivered after the restart', async () => (await delivery(course.id))?.status === 'delivered');
    t.equal(rx.hits.length, 1);
    t.equal(rx.hits[0]!.headers['webhook-id'], eventId, 'the webhook-id written at commit');
    const payload = new Webhook(secret).verify(rx.hits[0]!.body, rx.hits[0]!.headers as Record<string, string>) as {
      data: { member: unknown };
    };
    t.same(payload.data.member, { iss: 'assoc.example.org', membershipId: 'KUM-42' });
    second.child.kill('SIGTERM');
    t.equal(await second.exited, 0, 'a graceful stop exits 0');
  });

  await t.test('killed while sending: the lease runs out, the restart sends it again with the same webhook-id', async (t) => {
    const course = await openCourse('While sending');
    rx.setHold(true);
    const before = rx.hits.length;
    const first = startLms(t, port, env(100));
    await first.ready;
    t.equal(await enrol(course.id), 201);
    await until('the first attempt reached the partner', () => rx.hits.length === before + 1);
    first.child.kill('SIGKILL');
    t.equal(await first.exited, 'SIGKILL');
    rx.setHold(false);

    const second = startLms(t, port, env(100));
    await second.ready;
    await until('delivered after the lease ran out', async () => (await delivery(course.id))?.status === 'delivered');
    const ids = rx.hits.slice(before).map((h) => h.headers['webhook-id']);
    t.ok(ids.length >= 2, 'sent again');
    t.equal(new Set(ids).size, 1, 'every attempt with the same webhook-id');
    t.equal(ids[0], await eventOf(course.id));
  });
});
