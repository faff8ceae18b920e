import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createDb, idempotencyKeys, usedTokenIds } from '@lms/db';
import { sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { type AppDeps, buildApp } from '../../src/app.js';
import { PURGE_BATCH_ROWS } from '../../src/domain/purge.js';
import { housekeepingCron } from '../../src/plugins/housekeeping.js';
import { testConfig } from '../../src/testing.js';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { countQueries } from '../helpers/query-counter.js';

// Spent token ids and Idempotency-Key answers are kept only for a while; the housekeeping
// plugin deletes them once their time is over, in a job of the queue sent by a cron schedule, by
// the injected clock.

const HOUR = 3_600_000;

async function seedRows(app: Awaited<ReturnType<typeof buildTestApp>>['app'], nowMs: number) {
  await app.db.insert(usedTokenIds).values([
    { issuer: 'p.test', jti: 'expired', expiresAt: new Date(nowMs - 1_000) },
    { issuer: 'p.test', jti: 'live', expiresAt: new Date(nowMs + 60_000) },
  ]);
  await app.db.insert(idempotencyKeys).values([
    { issuer: 'p.test', key: 'day-old', requestHash: 'h', statusCode: 201, responseBody: {}, createdAt: new Date(nowMs - 25 * HOUR) },
    // A claim without an answer (left by an earlier version) goes too once its day is over.
    { issuer: 'p.test', key: 'day-old-unanswered', requestHash: 'h', createdAt: new Date(nowMs - 25 * HOUR) },
    { issuer: 'p.test', key: 'recent', requestHash: 'h', statusCode: 201, responseBody: {}, createdAt: new Date(nowMs - 23 * HOUR) },
  ]);
}

const remaining = async (app: Awaited<ReturnType<typeof buildTestApp>>['app']) => ({
  jtis: (await app.db.select({ jti: usedTokenIds.jti }).from(usedTokenIds)).map((r) => r.jti).sort(),
  keys: (await app.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys)).map((r) => r.key).sort(),
});

t.test('rows past their time are deleted, the others kept', async (t) => {
  const time = manualClock();
  const { app } = await buildTestApp(t, { deps: { clock: time.clock, housekeeping: { schedule: false } } });
  await seedRows(app, time.ms);
  t.same(await app.purgeExpiredRows(), {
    ran: true,
    usedTokenIds: 1,
    idempotencyKeys: 2,
    expiredPurchases: 0,
    droppedDeliveries: 0,
    webhookLogRows: 0,
    notificationLogRows: 0,
    batches: 6,
  });
  t.same(await remaining(app), { jtis: ['live'], keys: ['recent'] });
  // An hour and a minute later, by the injected clock, the rest is due too.
  time.set(time.ms + HOUR + 60_000);
  t.same(await app.purgeExpiredRows(), {
    ran: true,
    usedTokenIds: 1,
    idempotencyKeys: 1,
    expiredPurchases: 0,
    droppedDeliveries: 0,
    webhookLogRows: 0,
    notificationLogRows: 0,
    batches: 6,
  });
  t.same(await remaining(app), { jtis: [], keys: [] });
});

t.test('the purge is scheduled every HOUSEKEEPING_INTERVAL_MINUTES, and its job purges without being asked', async (t) => {
  const time = manualClock();
  const { app } = await buildTestApp(t, { config: { HOUSEKEEPING_INTERVAL_MINUTES: 7 }, deps: { clock: time.clock } });
  await app.ready();
  t.match(await app.jobs.boss.getSchedule('housekeeping.purge'), { cron: '*/7 * * * *', timezone: 'UTC' }, 'one schedule, every 7 minutes');
  t.equal(housekeepingCron(5), '*/5 * * * *');
  t.equal(housekeepingCron(60), '0 * * * *', 'an interval of an hour is hourly');
  await seedRows(app, time.ms);
  // What the cron sends at each occurrence: a job of the queue, run by this instance's worker.
  const id = await app.jobs.send('housekeeping.purge', {});
  let left = await remaining(app);
  for (let i = 0; i < 400 && (left.jtis.length > 1 || left.keys.length > 1); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    left = await remaining(app);
  }
  t.same(left, { jtis: ['live'], keys: ['recent'] }, 'purged by the job');
  let job = await app.jobs.boss.findJobs('housekeeping.purge', { id: id ?? '' });
  for (let i = 0; i < 200 && job[0]?.state !== 'completed'; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    job = await app.jobs.boss.findJobs('housekeeping.purge', { id: id ?? '' });
  }
  t.equal(job[0]?.state, 'completed', 'the job completed');
});

t.test('a batch is at most batchRows rows; a full batch is followed by another', async (t) => {
  const time = manualClock();
  const batches: number[] = [];
  const { app } = await buildTestApp(t, {
    deps: { clock: time.clock, housekeeping: { schedule: false, batchRows: 2, onBatch: (rows) => void batches.push(rows) } },
  });
  await app.db
    .insert(usedTokenIds)
    .values(['a', 'b', 'c', 'd', 'e'].map((jti) => ({ issuer: 'p.test', jti, expiresAt: new Date(time.ms - 1_000) })));
  t.same(await app.purgeExpiredRows(), {
    ran: true,
    usedTokenIds: 5,
    idempotencyKeys: 0,
    expiredPurchases: 0,
    droppedDeliveries: 0,
    webhookLogRows: 0,
    notificationLogRows: 0,
    batches: 8,
  });
  t.same(
    batches,
    [2, 2, 1, 0, 0, 0, 0, 0],
    'token ids 2 + 2 + 1, then the keys, the purchases, the partner events and the notifications: none',
  );
});

/** Instances of the LMS on one database: on PostgreSQL each with a pool of its own (as separate processes would), on PGlite sharing the one handle. */
async function instancesOn(t: Test, count: number, deps: Partial<AppDeps>) {
  const { app: first, db } = await buildTestApp(t, { deps });
  const apps = [first];
  for (let i = 1; i < count; i++) {
    if (db.url) {
      const handle = createDb({ databaseUrl: db.url, poolMax: 3, statementTimeoutMs: 5_000, connectTimeoutMs: 3_000 });
      const app = await buildApp({ config: testConfig(), db: handle, ownsDb: true, logger: false, ...deps });
      t.teardown(() => app.close());
      apps.push(app);
    } else {
      apps.push((await buildTestApp(t, { deps, db })).app);
    }
  }
  return { apps, db };
}

t.test('a backlog of 600,000 rows and three instances: one purges in batches, the others skip, the event loop keeps serving', async (t) => {
  const BACKLOG = 600_000;
  const time = manualClock();
  let batchesDone = 0;
  const rowsPerBatch: number[] = [];
  const { apps, db } = await instancesOn(t, 3, {
    clock: time.clock,
    housekeeping: {
      schedule: false,
      onBatch: (rows) => {
        batchesDone += 1;
        rowsPerBatch.push(rows);
      },
    },
  });
  const expired = new Date(time.ms - 1_000).toISOString();
  const live = new Date(time.ms + 60_000).toISOString();
  await db.db.execute(
    sql`insert into used_token_ids (issuer, jti, expires_at) select 'p.test', 'spent-' || g, ${expired}::timestamptz from generate_series(1, ${BACKLOG}) g`,
  );
  await db.db.execute(
    sql`insert into used_token_ids (issuer, jti, expires_at) select 'p.test', 'live-' || g, ${live}::timestamptz from generate_series(1, 1000) g`,
  );
  await db.db.insert(idempotencyKeys).values([
    { issuer: 'p.test', key: 'day-old', requestHash: 'h', statusCode: 201, responseBody: {}, createdAt: new Date(time.ms - 25 * HOUR) },
    { issuer: 'p.test', key: 'recent', requestHash: 'h', statusCode: 201, responseBody: {}, createdAt: new Date(time.ms - 23 * HOUR) },
  ]);

  // Every instance serves /healthz over real HTTP while the purge runs; a client per instance
  // asks it again as soon as it has its answer, and notes how many batches were done by then.
  const urls = await Promise.all(apps.map((app) => app.listen({ port: 0, host: '127.0.0.1' })));
  // On PGlite the three share one database object: count its statements once.
  const statements = [...new Set(apps.map((app) => app.db))].map(countQueries);
  t.teardown(() => {
    for (const s of statements) s.restore();
  });
  let purging = true;
  const healthSeenAt: number[] = [];
  let healthFailures = 0;
  const pollers = urls.map(async (url) => {
    while (purging) {
      const res = await fetch(`${url}/healthz`).catch(() => null);
      if (res?.status === 200) healthSeenAt.push(batchesDone);
      else healthFailures += 1;
      await res?.arrayBuffer();
    }
  });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const results = await Promise.all(apps.map((app) => app.purgeExpiredRows()));
  const tookMs = performance.now() - started;
  delay.disable();
  purging = false;
  await Promise.all(pollers);

  const ran = results.filter((r) => r.ran);
  t.equal(ran.length, 1, 'one instance purged');
  t.equal(results.filter((r) => !r.ran).length, 2, 'the two others found the lock taken and skipped their turn');
  t.match(ran[0], { usedTokenIds: BACKLOG, idempotencyKeys: 1 }, 'the whole backlog, in one run');
  const left = await db.db.execute<{ spent: number; live: number; keys: number }>(
    sql`select (select count(*)::int from used_token_ids where jti like 'spent-%') as spent,
               (select count(*)::int from used_token_ids where jti like 'live-%') as live,
               (select count(*)::int from idempotency_keys) as keys`,
  );
  t.same(left.rows[0], { spent: 0, live: 1000, keys: 1 }, 'nothing expired left, nothing live deleted');

  t.ok(
    rowsPerBatch.every((rows) => rows <= PURGE_BATCH_ROWS),
    `every batch at most ${PURGE_BATCH_ROWS} rows`,
  );
  t.equal(
    rowsPerBatch.length,
    BACKLOG / PURGE_BATCH_ROWS + 1 + 1 + 1 + 1 + 1 + 1,
    'the token ids in full batches, one empty batch, one batch of keys, one of purchases to expire, one of deliveries waiting too long, one of the delivery log, one of the notification log',
  );
  const deletes = statements.flatMap((s) => s.statements).filter((text) => /^\s*delete/i.test(text));
  t.equal(
    deletes.length,
    rowsPerBatch.length - 3 + 2,
    'one delete statement per batch; the purchases are an update, the waiting deliveries one statement that answers a count per endpoint, the log two deletes (attempts, events)',
  );
  t.same(
    deletes.filter((text) => /returning/i.test(text) || !/ limit \$\d+\)$/.test(text)),
    [],
    'each a bounded delete, without RETURNING',
  );

  const between = new Set(healthSeenAt.filter((done) => done > 0 && done < rowsPerBatch.length));
  t.equal(healthFailures, 0, 'every health check answered 200');
  t.ok(between.size >= 20, `health checks were answered between batches, at ${between.size} points of the purge`);
  t.comment(
    `${BACKLOG.toLocaleString('en')} expired rows, 3 instances (${db.url ? 'PostgreSQL, a pool each' : 'PGlite, one handle'}): ` +
      `purged by one in ${rowsPerBatch.length} batches, ${(tookMs / 1000).toFixed(1)} s; ${healthSeenAt.length} health checks answered meanwhile ` +
      `(${between.size} distinct points between batches); event-loop delay max ${(delay.max / 1e6).toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms`,
  );
});
