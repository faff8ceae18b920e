import type { DbHandle } from '@lms/db';
import type { LmsConfig } from '../config.js';
import { createJobs } from '../jobs/index.js';
import { deploymentReceipts } from '../notifications/notify.js';
import type { Receipts } from '../notifications/receipts.js';
import { deliveryJobs } from '../domain/partner-events/queue.js';

/**
 * For a command that changes what people or partners are told about (a refund, a revoked
 * certificate, an endpoint enabled, a replay): the deployment's Receipts on the job queue, enqueue
 * only (JOBS_WORKERS=off: the running instances send), for the duration of `fn`. The jobs are
 * written in the command's transaction, as a request's would be.
 */
export async function withEnqueueOnlyJobs<T>(handle: DbHandle, config: LmsConfig, fn: (receipts: Receipts) => Promise<T>): Promise<T> {
  const jobs = createJobs(
    handle,
    { workers: false, pollSeconds: config.JOBS_POLL_SECONDS, deleteAfterSeconds: config.JOBS_DELETE_AFTER_DAYS * 86_400, stopSeconds: 1 },
    () => {},
  );
  await jobs.start();
  try {
    return await fn(
      deploymentReceipts(
        config.PUBLIC_URL,
        async (tx, id) => {
          await jobs.sendInTransaction(tx, 'notification.send', { id });
        },
        deliveryJobs(() => jobs),
      ),
    );
  } finally {
    await jobs.stop();
  }
}
