import { sql } from 'drizzle-orm';
import type { NotificationRequest, Notify } from '../../src/notifications/contract.js';

/**
 * A Notify that keeps what it is given in memory, once per key (kind:subject:period) as the
 * records do: the scans' tests read what was asked for, and whether a second scan asked for
 * anything new. Each call runs in the transaction the scan opened for it (checked: a query works).
 */
export function recorder() {
  const requests: NotificationRequest[] = [];
  const keys = new Map<string, number>();
  const notify: Notify = async (tx, request) => {
    await tx.execute(sql`select 1`);
    requests.push(request);
    const key = `${request.kind}:${request.subject}:${request.period ?? ''}`;
    const known = keys.get(key);
    if (known !== undefined) return { id: known, created: false };
    keys.set(key, keys.size + 1);
    return { id: keys.size, created: true };
  };
  return {
    notify,
    requests,
    /** The keys asked for, sorted (a scan's order is its paging's, not the test's). */
    keysOf: (kind?: NotificationRequest['kind']) =>
      requests
        .filter((r) => kind === undefined || r.kind === kind)
        .map((r) => `${r.kind}:${r.subject}:${r.period ?? ''}`)
        .sort(),
    of: <K extends NotificationRequest['kind']>(kind: K) =>
      requests.filter((r): r is Extract<NotificationRequest, { kind: K }> => r.kind === kind),
    clear: () => {
      requests.length = 0;
    },
  };
}
