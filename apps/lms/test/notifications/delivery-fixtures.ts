import type { Db } from '@lms/db';
import type { LmsApp } from '../../src/app.js';
import type { QueueDefinition } from '../../src/jobs/queues.js';
import { makeUser } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

export { until };

// What the end-to-end delivery tests share: a send queue that retries every second and gives a
// killed worker's run away after 3 s, a lease as short, and notifications recorded as the domain
// records them (app.notify in a transaction: the row and its job together).

/** notification.send with a 1 s retry delay, no backoff, a 3 s expiry (the real one: 30 s doubling, 5 min). */
const FAST_SEND_QUEUE: QueueDefinition = { retryLimit: 30, retryDelay: 1, retryBackoff: false, expireInSeconds: 3 };

export const FAST_SEND = {
  jobs: { superviseSeconds: 1, extraQueues: { 'notification.send': FAST_SEND_QUEUE } },
  /** The row's lease: as short as the queue's expiry, so a killed send's row is free once its job is. */
  leaseMs: 3_000,
} as const;

/** `count` people, each with one enrolment receipt recorded (and its send job written) in its own transaction. */
export async function recordReceipts(app: LmsApp, db: Db, count: number, label = 'Kursus'): Promise<{ id: number; key: string }[]> {
  const out: { id: number; key: string }[] = [];
  for (let i = 0; i < count; i += 1) {
    const person = await makeUser(db, { name: `${label} ${i}` });
    const { id } = await app.db.transaction((tx) =>
      app.notify(tx, {
        kind: 'enrolment.confirmed',
        userId: person.id,
        institutionId: null,
        subject: `enrollment:${person.id}`,
        data: { courseTitle: `${label} ${i}`, courseUrl: `http://localhost:3000/courses/${i}` },
      }),
    );
    out.push({ id, key: `enrolment.confirmed:enrollment:${person.id}:` });
  }
  return out;
}
