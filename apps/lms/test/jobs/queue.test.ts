import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createDb, usedTokenIds } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { eq, sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/testing.js';
import { buildTestApp } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { envWith } from '../helpers/processes.js';
import { createRunsTable, PROBE_QUEUES, recordRun, runsOf } from './probe-queue.js';
import { until } from '../helpers/until.js';

// The job queue (src/jobs/, plugins/jobs.ts) on the app's database: a job written in a
// transaction exists exactly when the transaction commits; an enqueue-only instance
// (JOBS_WORKERS=off) leaves its jobs to the others; each job runs on one instance at a time; the
// run of a process killed with SIGKILL is run again, to completion, by another instance once its
// expireInSeconds is over.

t.setTimeout(300_000);

const jobsDeps = { superviseSeconds: 1, extraQueues: PROBE_QUEUES };

t.test('a job sent in a transaction exists with its change, or not at all', async (t) => {
  const early = await buildTestApp(t);
  await t.rejects(
    early.app.db.transaction((tx) => early.app.jobs.sendInTransaction(tx, 'notification.send', { id: 1 })),
    /not running yet/,
    'before the app is ready: a clear error, not a wait on the connection the transaction holds',
  );

  const { app, db } = await buildTestApp(t, { deps: { jobs: jobsDeps } });
  await app.ready();
  await createRunsTable(db.db);
  await app.jobs.work('test.probe', {}, async (job) => {
    await recordRun(app.db, job.id, job.data.label, 'app', 'finished');
  });

  const committed = await app.db.transaction(async (tx) => {
    await tx.insert(usedTokenIds).values({ issuer: 'jobs.test', jti: 'kept', expiresAt: new Date(Date.now() + 60_000) });
    return app.jobs.sendInTransaction(tx, 'test.probe', { label: 'committed' });
  });
  const rolledBack = new Error('the change fails after its job was written');
  let sentInRolledBack: string | null = null;
  await t.rejects(
    app.db.transaction(async (tx) => {
      await tx.insert(usedTokenIds).values({ issuer: 'jobs.test', jti: 'dropped', expiresAt: new Date(Date.now() + 60_000) });
      sentInRolledBack = await app.jobs.sendInTransaction(tx, 'test.probe', { label: 'rolled back' });
      throw rolledBack;
    }),
    rolledBack,
  );
  t.type(sentInRolledBack, 'string', 'the job was written inside the transaction that then failed');
  t.same(await app.jobs.boss.findJobs('test.probe', { id: sentInRolledBack ?? '' }), [], 'the rolled-back job does not exist');

  const runs = await until(
    () => runsOf(db.db),
    (r) => r.length >= 1,
    'the committed job to run',
  );
  // Another poll or two: nothing else runs.
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  t.same(
    (await runsOf(db.db)).map((r) => [r.job_id, r.label]),
    [[committed, 'committed']],
    'the committed job ran, once; the rolled-back one never',
  );
  t.equal(runs.length, 1);
  t.same(
    (await db.db.select({ jti: usedTokenIds.jti }).from(usedTokenIds).where(eq(usedTokenIds.issuer, 'jobs.test'))).map((r) => r.jti),
    ['kept'],
  );
});

t.test('an instance with JOBS_WORKERS=off only enqueues; an instance with workers runs its jobs', async (t) => {
  const { app: enqueuer, db } = await buildTestApp(t, { config: { JOBS_WORKERS: 'off' }, deps: { jobs: jobsDeps } });
  await enqueuer.ready();
  await createRunsTable(db.db);
  let ranOnEnqueuer = 0;
  await enqueuer.jobs.work('test.probe', {}, async () => {
    ranOnEnqueuer += 1;
  });
  const id = await enqueuer.db.transaction((tx) => enqueuer.jobs.sendInTransaction(tx, 'test.probe', { label: 'from the enqueuer' }));
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  t.equal(ranOnEnqueuer, 0, 'not run where workers are off');
  t.match(await enqueuer.jobs.boss.findJobs('test.probe', { id: id ?? '' }), [{ state: 'created' }], 'it waits in the queue');

  const { app: worker } = await buildTestApp(t, { db, deps: { jobs: jobsDeps } });
  await worker.jobs.work('test.probe', {}, async (job) => {
    await recordRun(worker.db, job.id, job.data.label, 'worker', 'finished');
  });
  // The queue starts when the app gets ready (as a server's does before it listens).
  await worker.ready();
  const runs = await until(
    () => runsOf(db.db),
    (r) => r.length >= 1,
    'the worker to run it',
  );
  t.same(
    runs.map((r) => [r.job_id, r.instance]),
    [[id, 'worker']],
  );
  t.equal(ranOnEnqueuer, 0);
});

t.test('closing waits JOBS_STOP_SECONDS for a running job, then gives it back; another instance runs it', async (t) => {
  const { app: stopping, db } = await buildTestApp(t, { config: { JOBS_STOP_SECONDS: 1 }, deps: { jobs: jobsDeps } });
  await createRunsTable(db.db);
  await stopping.jobs.work('test.probe', {}, async (job) => {
    await recordRun(stopping.db, job.id, job.data.label, 'stopping', 'started');
    await new Promise(() => {}); // never ends: only the stop's bound ends the close
  });
  await stopping.ready();
  const id = await stopping.jobs.send('test.probe', { label: 'outlives its instance' });
  await until(
    () => runsOf(db.db),
    (r) => r.length >= 1,
    'the first instance to start the job',
  );
  await stopping.close();
  t.pass('the close ended though the job never would');
  const left = await db.db.execute<{ state: string }>(sql`select state::text from pgboss.job where id = ${id}::uuid`);
  t.same(left.rows, [{ state: 'retry' }], 'given back: failed by the stop, to be retried');

  const { app: next } = await buildTestApp(t, { db, deps: { jobs: jobsDeps } });
  await next.jobs.work('test.probe', {}, async (job) => {
    await recordRun(next.db, job.id, job.data.label, 'next', 'finished');
  });
  await next.ready();
  await until(
    () => runsOf(db.db),
    (r) => r.some((x) => x.instance === 'next'),
    'the next instance to run it',
  );
  t.same(
    (await runsOf(db.db)).map((r) => [r.job_id, r.instance, r.stage]),
    [
      [id, 'stopping', 'started'],
      [id, 'next', 'finished'],
    ],
    'given back on close, run to completion by the next instance',
  );
});

/** A second LMS on the same PostgreSQL database, with a pool of its own (as another process would have). */
async function secondInstance(t: Test, url: string) {
  const handle = createDb({ databaseUrl: url, poolMax: 3 });
  const app = await buildApp({ config: testConfig(), db: handle, ownsDb: true, logger: false, jobs: jobsDeps });
  t.teardown(() => app.close());
  await app.ready();
  return app;
}

// Several instances and a killed process need a server: PostgreSQL (TEST_DATABASE_URL).
if (testDatabaseUrl) {
  t.test('PostgreSQL: two instances share 40 jobs, each job runs once', async (t) => {
    const { app: a, db } = await buildTestApp(t, { deps: { jobs: jobsDeps } });
    await a.ready();
    const b = await secondInstance(t, db.url!);
    await createRunsTable(db.db);
    for (const [name, app] of [
      ['a', a],
      ['b', b],
    ] as const) {
      await app.jobs.work('test.probe', { concurrency: 4 }, async (job) => {
        await recordRun(app.db, job.id, job.data.label, name, 'started');
        await new Promise((resolve) => setTimeout(resolve, 20));
        await recordRun(app.db, job.id, job.data.label, name, 'finished');
      });
    }
    const ids = await a.db.transaction(async (tx) => {
      const sent: (string | null)[] = [];
      for (let i = 0; i < 40; i += 1) sent.push(await a.jobs.sendInTransaction(tx, 'test.probe', { label: `job ${i}` }));
      return sent;
    });
    await until(
      () => runsOf(db.db),
      (r) => r.filter((x) => x.stage === 'finished').length >= 40,
      'the 40 jobs',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const finalRuns = await runsOf(db.db);
    const started = finalRuns.filter((r) => r.stage === 'started');
    t.equal(started.length, 40, 'forty runs started, no job twice');
    t.same([...new Set(started.map((r) => r.job_id))].sort(), [...ids].sort(), 'every job sent ran');
    t.same(finalRuns.filter((r) => r.stage === 'finished').length, 40, 'each finished once');
    t.comment(`runs per instance: ${['a', 'b'].map((n) => `${n} ${started.filter((r) => r.instance === n).length}`).join(', ')}`);
  });

  t.test('PostgreSQL: a process killed with SIGKILL mid-job; the job runs to completion once on another instance', async (t) => {
    const testDb = await createTestDb(testDatabaseUrl);
    t.teardown(() => testDb.destroy());
    await createRunsTable(testDb.db);
    const script = fileURLToPath(new URL('./worker-process.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: envWith({ DATABASE_URL: testDb.url!, INSTANCE: 'killed' }),
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
      'the child instance to start',
    );

    // An enqueue-only instance sends the job; the child takes it and hangs in it.
    const enqueuer = await buildApp({
      config: testConfig({ JOBS_WORKERS: 'off' }),
      db: createDb({ databaseUrl: testDb.url!, poolMax: 2 }),
      ownsDb: true,
      logger: false,
      jobs: jobsDeps,
    });
    t.teardown(() => enqueuer.close());
    await enqueuer.ready();
    const id = await enqueuer.db.transaction((tx) => enqueuer.jobs.sendInTransaction(tx, 'test.probe', { label: 'survives', hang: true }));
    await until(
      async () => out,
      (o) => o.includes(`started ${id}`),
      'the child to start the job',
    );
    child.kill('SIGKILL');
    t.equal(await exited, 'SIGKILL', 'the instance running the job died of SIGKILL');
    t.match(await enqueuer.jobs.boss.findJobs('test.probe', { id: id ?? '' }), [{ state: 'active' }], 'the job was left active');

    // Another instance; once the run's 2 s expiry is over, pg-boss gives the job back and it runs here.
    const survivor = await secondInstance(t, testDb.url!);
    await survivor.jobs.work('test.probe', {}, async (job) => {
      await recordRun(survivor.db, job.id, job.data.label, 'survivor', 'started');
      await recordRun(survivor.db, job.id, job.data.label, 'survivor', 'finished');
    });
    const jobs = await until(
      () => survivor.jobs.boss.findJobs('test.probe', { id: id ?? '' }),
      (j) => j[0]?.state === 'completed',
      'the job to complete on the survivor',
    );
    t.equal(jobs[0]?.retryCount, 1, 'its second run');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    t.same(
      (await runsOf(testDb.db)).map((r) => [r.instance, r.stage]),
      [
        ['killed', 'started'],
        ['survivor', 'started'],
        ['survivor', 'finished'],
      ],
      'started on the killed process, run to completion once on the survivor',
    );
  });
}
