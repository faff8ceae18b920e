import { createDb } from '@lms/db';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/testing.js';
import { FAST_SEND } from './delivery-fixtures.js';

// One LMS instance as its own process, sending e-mail notifications to SMTP_URL with the queue's
// short test expiry and lease (delivery-fixtures.ts FAST_SEND); the test kills it with SIGKILL in
// the middle of a send. DATABASE_URL and SMTP_URL come from the environment.

const app = await buildApp({
  config: testConfig({ SMTP_URL: process.env.SMTP_URL, MAIL_FROM: 'LMS Killed <no-reply@lms.test>' }),
  db: createDb({ databaseUrl: process.env.DATABASE_URL, poolMax: 3 }),
  ownsDb: true,
  logger: false,
  jobs: FAST_SEND.jobs,
  notifications: { leaseMs: FAST_SEND.leaseMs },
});
await app.ready();
process.stdout.write('ready\n');
