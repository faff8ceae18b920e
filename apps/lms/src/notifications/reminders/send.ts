import { type Db, inTransaction } from '@lms/db';
import type { NotificationKind, NotificationRequest, Notify } from '../contract.js';

/** What a scan did: the notifications it asked for (per kind), and how many the records had not seen before. */
export interface ScanReport {
  requested: Partial<Record<NotificationKind, number>>;
  created: number;
}

/**
 * Hands each due notification to `notify`, each in a transaction of its own: the record and the
 * enqueued send are written together or not at all (contract.ts, Notify), and one that fails
 * does not undo the others. A scan finds a reminder again until its catch-up window passes; the
 * records' key makes the repeats one notification (`created` false).
 */
export class Dispatch {
  readonly report: ScanReport = { requested: {}, created: 0 };

  constructor(
    private readonly db: Db,
    private readonly notify: Notify,
  ) {}

  async send(request: NotificationRequest): Promise<void> {
    const { created } = await inTransaction(this.db, (tx) => this.notify(tx, request));
    this.report.requested[request.kind] = (this.report.requested[request.kind] ?? 0) + 1;
    if (created) this.report.created += 1;
  }
}

/**
 * Pages through candidates with a key that only grows (an id, or a tuple): `read(after)` returns
 * at most one batch, in key order; the next call starts after the last row's key. Stops at a
 * short batch. No statement reads more than the batch, whatever the table's size.
 */
export async function forEachBatch<Row, Key>(
  batchSize: number,
  first: Key,
  read: (after: Key, limit: number) => Promise<Row[]>,
  keyOf: (row: Row) => Key,
  each: (rows: Row[]) => Promise<void>,
): Promise<void> {
  let after = first;
  for (;;) {
    const rows = await read(after, batchSize);
    if (rows.length > 0) await each(rows);
    if (rows.length < batchSize) return;
    after = keyOf(rows[rows.length - 1] as Row);
  }
}

/** A raw row's value as a number (counts and ids come back as text from some drivers). */
export const num = (v: unknown) => Number(v);
