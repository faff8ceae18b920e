import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createDb, notifications } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { eq, inArray } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import type { LmsConfig } from '../../src/config.js';
import { messageIdFor } from '../../src/notifications/mail/sender.js';
import { testConfig } from '../../src/testing.js';
import { buildTestApp } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { envWith } from '../helpers/processes.js';
import { smtpServer } from '../helpers/smtp.js';
import { FAST_SEND, recordReceipts, until } from './delivery-fixtures.js';

// End to end, delivery when things break: the SMTP server down (the row stays pending with the
// error, the queue retries, one mail once it is back); two instances on one database (each key
// mailed once); a worker process killed with SIGKILL in the middle of SMTP's DATA (another
// instance sends it once its run expired and its lease ran out; the server holds one complete
// message). The queue's retry delay, expiry and the lease are shortened (delivery-fixtures.ts).

t.setTimeout(300_000);

const mailConfig = (port: number, from = 'LMS <no-reply@lms.test>'): Partial<LmsConfig> => ({
  SMTP_URL: `smtp://127.0.0.1:${port}`,
  MAIL_FROM: from,
  SMTP_CONNECT_TIMEOUT_MS: 1_000,
});

/** Mails received per key (the Message-ID is derived from the key) and by sender name. */
async function tally(received: { data: string }[], keys: string[]) {
  const parsed = await Promise.all(received.map((r) => simpleParser(r.data)));
  const perKey = keys.map((key) => parsed.filter((m) => m.messageId === messageIdFor(key, 'lms.test')).length);
  const byFrom = new Map<string, number>();
  for (const m of parsed) byFrom.set(m.from?.value[0]?.name ?? '', (byFrom.get(m.from?.value[0]?.name ?? '') ?? 0) + 1);
  return { perKey, byFrom };
}

t.test('SMTP down: the row stays pending with the error, the queue retries; back up: one mail', async (t) => {
  // A port a server listened on a moment ago: connections to it are refused.
  const first = await smtpServer();
  const port = first.port;
  await first.close();
  const { app, db } = await buildTestApp(t, {
    config: mailConfig(port),
    deps: { jobs: FAST_SEND.jobs, notifications: { leaseMs: FAST_SEND.leaseMs } },
  });
  await app.ready();
  const [{ id, key }] = (await recordReceipts(app, db.db, 1)) as [{ id: number; key: string }];
  const row = () =>
    db.db
      .select()
      .from(notifications)
      .where(eq(notifications.id, id))
      .then((r) => r[0]!);
  const down = await until(row, (r) => r.attempts >= 3, 'three attempts against the refusing port');
  t.equal(down.state, 'pending', 'still pending');
  t.match(down.lastError, /^TemporaryDeliveryError: the mail could not be sent now \(.*ECONNREFUSED/, 'the row says why');
  const [job] = await app.jobs.boss.findJobs('notification.send', { data: { id } });
  t.ok(job && job.retryCount >= 2, `the queue retried it (retry ${job?.retryCount})`);

  const back = await smtpServer(undefined, { port });
  t.teardown(() => back.close());
  const sent = await until(row, (r) => r.state === 'sent', 'the send once the server is back');
  t.equal(sent.lastError, null, 'the error cleared');
  t.comment(`attempts until sent: ${sent.attempts}`);
  await until(
    async () => (await app.jobs.boss.findJobs('notification.send', { data: { id } }))[0]?.state,
    (s) => s === 'completed',
    'the job to complete',
  );
  t.same((await tally(back.received, [key])).perKey, [1], 'exactly one mail');
  t.equal(back.received.length, 1);
});

/** Another LMS on the same PostgreSQL database, with its own pool (as another process has). */
async function instance(t: Test, url: string, config: Partial<LmsConfig>) {
  const app = await buildApp({
    config: testConfig(config),
    db: createDb({ databaseUrl: url, poolMax: 4 }),
    ownsDb: true,
    logger: false,
    jobs: FAST_SEND.jobs,
    notifications: { leaseMs: FAST_SEND.leaseMs },
  });
  t.teardown(() => app.close());
  await app.ready();
  return app;
}

// Two instances and a killed process need a server: PostgreSQL (TEST_DATABASE_URL).
if (testDatabaseUrl) {
  t.test('PostgreSQL: two instances, 60 notifications, each key mailed once', async (t) => {
    const smtp = await smtpServer();
    t.teardown(() => smtp.close());
    const testDb = await createTestDb(testDatabaseUrl);
    t.teardown(() => testDb.destroy());
    const a = await instance(t, testDb.url!, mailConfig(smtp.port, 'LMS A <no-reply@lms.test>'));
    const b = await instance(t, testDb.url!, mailConfig(smtp.port, 'LMS B <no-reply@lms.test>'));
    const recorded = [...(await recordReceipts(a, testDb.db, 30, 'A')), ...(await recordReceipts(b, testDb.db, 30, 'B'))];
    const ids = recorded.map((r) => r.id);
    const rows = await until(
      () => testDb.db.select().from(notifications).where(inArray(notifications.id, ids)),
      (r) => r.every((x) => x.state === 'sent'),
      'the 60 notifications to be sent',
    );
    t.equal(rows.length, 60);
    t.same(
      rows.map((r) => r.attempts),
      rows.map(() => 1),
      'each row sent on its first attempt',
    );
    // A second or so more: a repeat would show now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const { perKey, byFrom } = await tally(
      smtp.received,
      recorded.map((r) => r.key),
    );
    t.same(
      perKey,
      recorded.map(() => 1),
      'every key mailed exactly once',
    );
    t.equal(smtp.received.length, 60, 'sixty mails, no more');
    t.comment(`mails per instance: ${[...byFrom].map(([from, n]) => `${from} ${n}`).join(', ')}`);
  });

  t.test('PostgreSQL: a worker process killed with SIGKILL during DATA; another instance sends it, one complete mail', async (t) => {
    // The first message's DATA stalls (the server never answers its end); later ones are taken.
    const smtp = await smtpServer(undefined, { stallData: () => smtp.counts.dataStarted === 1 });
    t.teardown(() => smtp.close());
    const testDb = await createTestDb(testDatabaseUrl);
    t.teardown(() => testDb.destroy());
    const script = fileURLToPath(new URL('./mail-worker-process.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: envWith({ DATABASE_URL: testDb.url!, SMTP_URL: `smtp://127.0.0.1:${smtp.port}` }),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
    t.teardown(() => {
      child.kill('SIGKILL');
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    await until(
      async () => out,
      (o) => o.includes('ready'),
      'the worker process to start',
    );

    // An enqueue-only instance records the notification; the worker process takes it and stalls in DATA.
    const enqueuer = await instance(t, testDb.url!, { ...mailConfig(smtp.port), JOBS_WORKERS: 'off' });
    const [{ id, key }] = (await recordReceipts(enqueuer, testDb.db, 1)) as [{ id: number; key: string }];
    await until(
      async () => smtp.counts.stalled,
      (n) => n === 1,
      'the worker process to stall in DATA',
    );
    child.kill('SIGKILL');
    const killedAt = Date.now();
    t.equal(await exited, 'SIGKILL', 'the worker died of SIGKILL mid-send');
    const [held] = await testDb.db.select().from(notifications).where(eq(notifications.id, id));
    t.match(held, { state: 'pending', attempts: 1 }, 'the row: pending, one attempt under way');
    t.ok(held!.lockedUntil, 'its lease held by the dead process');
    t.equal(smtp.received.length, 0, 'the killed DATA never completed: nothing received');

    const survivor = await instance(t, testDb.url!, mailConfig(smtp.port, 'LMS Survivor <no-reply@lms.test>'));
    const sent = await until(
      () =>
        testDb.db
          .select()
          .from(notifications)
          .where(eq(notifications.id, id))
          .then((r) => r[0]!),
      (r) => r.state === 'sent',
      'the survivor to send it',
    );
    const recoveredMs = Date.now() - killedAt;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const { perKey, byFrom } = await tally(smtp.received, [key]);
    t.same(perKey, [1], 'one complete message for the key');
    t.equal(smtp.received.length, 1);
    t.same([...byFrom], [['LMS Survivor', 1]], 'sent by the survivor');
    t.equal(smtp.counts.dataStarted, 2, 'two DATA began: the killed one and the one that completed');
    t.equal(sent.attempts, 2);
    await survivor.close();
    t.comment(`recovered ${(recoveredMs / 1000).toFixed(1)} s after the SIGKILL (queue expiry 3 s, lease 3 s, supervision 1 s, retry 1 s)`);
  });
}
