import type { DbHandle } from '@lms/db';
import type { LmsConfig } from '../config.js';
import { createJobs } from '../jobs/index.js';
import type { EnqueueNotification } from '../notifications/notify.js';

/**
 * For a command that changes what people are told about (a refund from the admin CLI): the job
 * queue, enqueue only (JOBS_WORKERS=off: the running instances send), for the duration of `fn`.
 * The notification's job is written in the command's transaction, as a request's would be.
 */
export async function withEnqueueOnlyJobs<T>(
  handle: DbHandle,
  config: LmsConfig,
  fn: (enqueue: EnqueueNotification) => Promise<T>,
): Promise<T> {
  const jobs = createJobs(
    handle,
    { workers: false, pollSeconds: config.JOBS_POLL_SECONDS, deleteAfterSeconds: config.JOBS_DELETE_AFTER_DAYS * 86_400, stopSeconds: 1 },
    () => {},
  );
  await jobs.start();
  try {
    return await fn(async (tx, id) => {
      await jobs.sendInTransaction(tx, 'notification.send', { id });
    });
  } finally {
    await jobs.stop();
  }
}
