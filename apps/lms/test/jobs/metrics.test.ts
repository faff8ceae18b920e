import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { scrape } from '../helpers/metrics.js';
import { PROBE_QUEUES } from './probe-queue.js';

// The job queue's metrics (src/jobs/metrics.ts) per queue: jobs waiting, the oldest one's age,
// failed jobs kept, failed attempts on this instance.

const jobsDeps = { superviseSeconds: 1, extraQueues: PROBE_QUEUES };

t.test('waiting jobs and the oldest one’s age; a job that fails every run counted as it fails', async (t) => {
  const { app: enqueuer, db } = await buildTestApp(t, { config: { JOBS_WORKERS: 'off' }, deps: { jobs: jobsDeps } });
  const metrics = await enqueuer.metrics.listen({ host: '127.0.0.1', port: 0 });
  const empty = await scrape(metrics.url);
  t.equal(empty.value('lms_jobs_waiting', { queue: 'test.probe' }), 0, 'nothing waiting yet');
  t.ok(empty.has('lms_jobs_waiting', { queue: 'notification.send' }), 'every declared queue is reported');
  t.equal(empty.value('lms_jobs_oldest_waiting_age_seconds', { queue: 'test.probe' }), 0);

  // Due two minutes ago, due now, due in an hour (not waiting yet).
  await enqueuer.jobs.send('test.probe', { label: 'late' }, { startAfter: new Date(Date.now() - 120_000) });
  await enqueuer.jobs.send('test.probe', { label: 'now' });
  await enqueuer.jobs.send('test.probe', { label: 'later' }, { startAfter: new Date(Date.now() + 3_600_000) });
  const waiting = await scrape(metrics.url);
  t.equal(waiting.value('lms_jobs_waiting', { queue: 'test.probe' }), 2, 'the two due jobs wait; the deferred one does not count');
  const age = waiting.value('lms_jobs_oldest_waiting_age_seconds', { queue: 'test.probe' });
  t.ok(age >= 120 && age < 3_600, `the oldest has waited since it was due: ${age.toFixed(1)} s`);
  t.equal(waiting.value('lms_jobs_waiting', { queue: 'housekeeping.purge' }), 0, 'other queues unaffected');

  // A worker instance whose handler throws: 1 run + 3 retries, then the job is failed for good.
  const { app: worker } = await buildTestApp(t, { db, deps: { jobs: jobsDeps } });
  // The queue starts when the app gets ready (as a server's does before it listens).
  await worker.ready();
  await enqueuer.jobs.boss.deleteQueuedJobs('test.probe');
  const id = await enqueuer.jobs.send('test.probe', { label: 'fails' });
  await worker.jobs.work('test.probe', {}, async () => {
    throw new Error('the probe fails on purpose');
  });
  let job = await worker.jobs.boss.findJobs('test.probe', { id: id ?? '' });
  for (let i = 0; i < 600 && job[0]?.state !== 'failed'; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    job = await worker.jobs.boss.findJobs('test.probe', { id: id ?? '' });
  }
  t.equal(job[0]?.state, 'failed', 'failed after its retries');
  const workerMetrics = await worker.metrics.listen({ host: '127.0.0.1', port: 0 });
  const after = await scrape(workerMetrics.url);
  t.equal(after.value('lms_jobs_failed_attempts_total', { queue: 'test.probe' }), 4, 'four runs threw on the worker');
  t.equal(after.value('lms_jobs_failed', { queue: 'test.probe' }), 1, 'one failed job kept');
  t.equal(after.value('lms_jobs_waiting', { queue: 'test.probe' }), 0, 'nothing waiting');
  t.equal((await scrape(metrics.url)).value('lms_jobs_failed_attempts_total', { queue: 'test.probe' }), 0, 'the enqueuer ran nothing');
});
