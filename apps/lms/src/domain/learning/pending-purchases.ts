import { bundles, type Db, institutions, purchases, users } from '@lms/db';
import { and, asc, count, eq, gt, or, sql } from 'drizzle-orm';
import type { Decider } from './enrollment.js';
import { mayConfirm, purchaseInstitutions } from './purchase-decisions.js';
import { bundleFirst, item, purchaseColumns, type PurchaseView } from './purchases.js';

// The purchases waiting for a staff member's decision (the transfers page): a page of them, or the
// one of a transfer reference; one as its decider sees it. The decisions: ./purchase-decisions.ts.

export interface PendingPurchaseView extends PurchaseView {
  buyerName: string;
  buyerEmail: string;
  membershipId: string | null;
}

/** Which of the transfers to confirm: a page of them (1-based), or the one with a transfer reference. */
export interface PendingPurchaseQuery {
  page: number;
  limit: number;
  /** A transfer reference, as the bank statement shows it (case and spaces do not matter). */
  reference?: string;
}

/**
 * The purchases a staff member may confirm, oldest first, a page at a time with their total:
 * those waiting for payment and not past their expiry; or, with a reference, the purchase of that
 * reference whatever its state (an expired one can still be confirmed when its money arrives late).
 */
export async function listPendingPurchases(
  db: Db,
  decider: Decider,
  query: PendingPurchaseQuery,
  now: Date,
): Promise<{ purchases: PendingPurchaseView[]; total: number }> {
  const mine = and(mayConfirm(decider, purchaseInstitutions), sql`${purchases.userId} <> ${decider.userId}`);
  const which =
    query.reference !== undefined
      ? eq(purchases.reference, query.reference.replace(/\s+/g, '').toUpperCase())
      : and(eq(purchases.status, 'pending'), or(sql`${purchases.expiresAt} is null`, gt(purchases.expiresAt, now)));
  const filter = and(which, mine);
  const [rows, [counted]] = await Promise.all([
    withBuyer(db)
      .where(filter)
      .orderBy(asc(purchases.createdAt), asc(purchases.id))
      .limit(query.limit)
      .offset((query.page - 1) * query.limit),
    db.select({ total: count() }).from(purchases).leftJoin(bundles, eq(bundles.id, purchases.bundleId)).where(filter),
  ]);
  return { purchases: rows, total: counted?.total ?? 0 };
}

/**
 * One purchase as the staff member who may decide on it sees it (the confirmation page): null
 * when there is none, or it is theirs, or they may not decide on it (another institution's).
 */
export async function findDecidablePurchase(db: Db, decider: Decider, purchaseId: number): Promise<PendingPurchaseView | null> {
  const [row] = await withBuyer(db).where(
    and(eq(purchases.id, purchaseId), mayConfirm(decider, purchaseInstitutions), sql`${purchases.userId} <> ${decider.userId}`),
  );
  return row ?? null;
}

/** A purchase with its item, its seller and its buyer, as the staff's transfer pages read it. */
function withBuyer(db: Db) {
  return db
    .select({ ...purchaseColumns, buyerName: users.name, buyerEmail: users.email, membershipId: users.membershipId })
    .from(purchases)
    .leftJoin(item, eq(item.id, purchases.courseId))
    .leftJoin(bundles, eq(bundles.id, purchases.bundleId))
    .leftJoin(bundleFirst, eq(bundleFirst.id, bundles.courseOneId))
    .leftJoin(institutions, eq(institutions.id, sql`coalesce(${item.institutionId}, ${bundleFirst.institutionId})`))
    .innerJoin(users, eq(users.id, purchases.userId));
}
