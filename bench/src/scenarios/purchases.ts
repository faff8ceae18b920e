import { courses, purchases, users } from '@lms/db';
import { confirmPurchase, undoConfirmation } from '@lms/lms/purchases';
import { createSession, findSession } from '@lms/lms/sessions';
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { runLoop } from '../load.js';
import type { PairSide } from '../runner.js';
import type { ScenarioContext } from './context.js';
import { recordedReceipts } from '@lms/lms/testing';

/** The receipts the domain records (on no queue: the bench measures the transaction). */
const receipts = recordedReceipts();

const BUYER = 'bench-buyer@bench.test';
const ADMIN = 'bench-confirmer@bench.test';

/**
 * Row 13c: an admin's confirmation of a transfer and its undo (within 15 minutes), one after the
 * other on one purchase (1 connection: each undo needs the confirmation before it), against the
 * same domain functions called directly after the same session lookup. Both write in one
 * transaction: the purchase, the enrolment (inserted, then deleted) and the counters' triggers.
 */
export async function purchaseScenarios(ctx: ScenarioContext) {
  const { run, lms, filled } = ctx;
  const db = filled.handle.db;
  await db
    .insert(users)
    .values([
      { email: BUYER, name: 'Bench Buyer', role: 'student' as const },
      { email: ADMIN, name: 'Bench Confirmer', role: 'super_admin' as const },
    ])
    .onConflictDoNothing();
  const [buyer] = await db.select({ id: users.id }).from(users).where(eq(users.email, BUYER));
  const [admin] = await db.select({ id: users.id }).from(users).where(eq(users.email, ADMIN));
  const [course] = await db
    .select({ id: courses.id })
    .from(courses)
    .where(and(eq(courses.isPublished, true), isNotNull(courses.eventCode)))
    .limit(1);
  const [purchase] = await db
    .insert(purchases)
    .values({ userId: buyer.id, courseId: course.id, amount: '100000', status: 'pending', reference: 'LMS-BENCH-UNDO1' })
    .returning({ id: purchases.id });
  const session = await createSession(db, admin.id, new Date(), 86_400_000);
  const decider = { userId: admin.id, role: 'super_admin' as const };
  const headers = { 'content-type': 'application/json', cookie: `${lms.cookieName}=${session.token}`, 'x-requested-with': 'bench' };
  // One counter for both sides, which run one after the other: even steps confirm, odd ones undo.
  let step = 0;
  const next = () => (step++ % 2 === 0 ? 'confirm' : 'undo');
  const path = (what: 'confirm' | 'undo') =>
    what === 'confirm' ? `/api/learning/purchases/${purchase.id}/confirm` : `/api/learning/purchases/${purchase.id}/confirmation/undo`;
  const direct = async () => {
    await findSession(db, session.tokenHash, new Date());
    if (next() === 'confirm') await confirmPurchase(db, receipts, decider, purchase.id, new Date());
    else await undoConfirmation(db, receipts.deliveries, decider, purchase.id, new Date());
  };
  const directSide: PairSide = {
    key: 'its SQL: confirmPurchase() / undoConfirmation() called directly',
    ready: async () => null,
    side: () => ({ run: (seconds) => runLoop(direct, 1, seconds) }),
  };
  try {
    await run.comparePaired(
      {
        id: '13c',
        scenario: 'POST .../confirm then .../confirmation/undo, alternately on one purchase (1 connection)',
        baselineName: 'its SQL: confirmPurchase() / undoConfirmation() called directly',
        kind: 'throughput',
        target: { minRatio: 0.6 },
      },
      run.httpSide('confirm and undo', {
        url: lms.url,
        path: path('confirm'),
        method: 'POST',
        headers,
        body: '{}',
        connections: 1,
        expect: 200,
        perRequest: () => ({ path: path(next()) }),
      }),
      directSide,
    );
  } finally {
    await db.execute(sql`delete from purchases where id = ${purchase.id}`);
    await db.execute(sql`delete from enrollments where user_id = ${buyer.id}`);
  }
}
