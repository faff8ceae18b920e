import type { Db } from '@lms/db';
import { sql } from 'drizzle-orm';
import type { QueueDefinition } from '../../src/jobs/queues.js';

// A queue of the tests' own: each run of its job writes what happened to `job_runs` (a table the
// test creates), so a test reads from the database how many times, where and how a job ran.

declare module '../../src/jobs/queues.js' {
  interface JobData {
    'test.probe': { label: string; hang?: boolean };
  }
}

/** Expires fast: a run of a killed process is given to another instance about 2 s after it started. */
export const PROBE_QUEUES: Record<string, QueueDefinition> = {
  'test.probe': { retryLimit: 3, retryDelay: 0, expireInSeconds: 2 },
};

export async function createRunsTable(db: Db): Promise<void> {
  await db.execute(
    sql`create table if not exists job_runs (job_id text not null, label text not null, instance text not null, stage text not null, at timestamptz not null default clock_timestamp())`,
  );
}

export async function recordRun(db: Db, jobId: string, label: string, instance: string, stage: 'started' | 'finished'): Promise<void> {
  await db.execute(sql`insert into job_runs (job_id, label, instance, stage) values (${jobId}, ${label}, ${instance}, ${stage})`);
}

export async function runsOf(db: Db): Promise<{ job_id: string; label: string; instance: string; stage: string }[]> {
  const result = await db.execute<{ job_id: string; label: string; instance: string; stage: string }>(
    sql`select job_id, label, instance, stage from job_runs order by at`,
  );
  return result.rows;
}
