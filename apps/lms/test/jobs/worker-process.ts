import { createDb } from '@lms/db';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/testing.js';
import { PROBE_QUEUES, recordRun } from './probe-queue.js';

// One LMS instance as its own process, working on the probe queue: it records the start of each
// run, prints `started <job id>` and, for a job whose data says `hang`, never finishes (the test
// kills it with SIGKILL). DATABASE_URL and INSTANCE come from the environment.

const db = createDb({ databaseUrl: process.env.DATABASE_URL, poolMax: 3 });
const app = await buildApp({
  config: testConfig(),
  db,
  ownsDb: true,
  logger: false,
  jobs: { superviseSeconds: 1, extraQueues: PROBE_QUEUES },
});
const instance = process.env.INSTANCE ?? 'child';
await app.jobs.work('test.probe', {}, async (job) => {
  await recordRun(app.db, job.id, job.data.label, instance, 'started');
  process.stdout.write(`started ${job.id}\n`);
  if (job.data.hang) await new Promise(() => {});
  await recordRun(app.db, job.id, job.data.label, instance, 'finished');
});
await app.ready();
process.stdout.write('ready\n');
