import { randomBytes } from 'node:crypto';
import { affectedRows, bundles, courses, type Db, enrollments, institutions, inTransaction, purchases } from '@lms/db';
import { and, desc, eq, lte, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { ConflictError, NotFoundError } from '../../errors.js';
import { buyerVisible } from '../rules/buyer-visible.js';
import { courseEndedMessage, coursePriceForBuyerColumns, courseTierPrice, isPositiveAmount, salesEnded } from '../rules/tier-prices.js';
import { endedCourseOf, findBundleOffers } from './bundle-offers.js';
import type { PaymentInstructions, PaymentProvider } from './payment-provider.js';
import { type Receipts, transferInstructions } from '../../notifications/receipts.js';

// Purchases (docs/architecture.md, "Taking a course"): a purchasable course or a bundle is bought at the buyer's tier price; the purchase is
// pending until the provider settles it (bank transfer: an admin's confirmation), which marks it
// paid and enrols the buyer, in both courses for a bundle, in one transaction. The counters and
// metrics follow from the status change by the database's triggers.
//
// A pending purchase does not wait for ever: its buyer cancels it, an admin rejects it with a
// reason, or it expires PurchaseRules.pendingMs after it started (housekeeping closes it; every
// read treats it as expired from then on). A buyer has at most PurchaseRules.maxPending at once,
// and one who has never paid at most FIRST_PAYMENT_MAX_PENDING, so nobody can bury the admins'
// list, neither with one account nor with many new ones. Nobody pays twice for a course: a bundle
// holding a course the buyer has, or is paying for, is refused with the course named (buy the
// other one alone).

export type PurchaseItem = { courseId: number; bundleId?: undefined } | { bundleId: number; courseId?: undefined };

export type PurchaseStatus = 'pending' | 'paid' | 'refunded' | 'cancelled' | 'rejected' | 'expired';

/** The deployment's limits on pending purchases (PURCHASE_PENDING_HOURS, PURCHASE_PENDING_MAX). */
export interface PurchaseRules {
  /** How long a purchase waits for its payment before it expires. */
  pendingMs: number;
  /** How many pending purchases one buyer may have at once. */
  maxPending: number;
}

export interface PurchaseView {
  id: number;
  userId: string;
  courseId: number | null;
  bundleId: number | null;
  /** The course's or the bundle's name (empty when it was deleted since). */
  itemName: string;
  amount: string;
  currency: string;
  status: PurchaseStatus;
  provider: string;
  reference: string | null;
  createdAt: Date;
  paidAt: Date | null;
  confirmedBy: string | null;
  /** When a pending purchase expires. */
  expiresAt: Date | null;
  /** When it was closed unpaid (cancelled, rejected, expired), and an admin's reason for a rejection. */
  closedAt: Date | null;
  closeReason: string | null;
  /**
   * The bank account of the institution that sells it (a bundle: its first course's), as the
   * operator set it (`lms-admin institution set-transfer-account`); null fields when not set.
   */
  transferAccount: TransferAccount | null;
}

export interface TransferAccount {
  bankName: string | null;
  accountNumber: string | null;
  accountName: string | null;
}

export const item = alias(courses, 'purchased_course');
export const bundleFirst = alias(courses, 'purchased_bundle_first');

export const purchaseColumns = {
  id: purchases.id,
  userId: purchases.userId,
  courseId: purchases.courseId,
  bundleId: purchases.bundleId,
  itemName: sql<string>`coalesce(${item.name}, ${bundles.name}, '')`,
  amount: purchases.amount,
  currency: purchases.currency,
  status: purchases.status,
  provider: purchases.provider,
  reference: purchases.reference,
  createdAt: purchases.createdAt,
  paidAt: purchases.paidAt,
  confirmedBy: purchases.confirmedBy,
  expiresAt: purchases.expiresAt,
  closedAt: purchases.closedAt,
  closeReason: purchases.closeReason,
  transferAccount: {
    bankName: institutions.transferBank,
    accountNumber: institutions.transferAccountNumber,
    accountName: institutions.transferAccountHolder,
  },
};

export function purchaseQuery(db: Db) {
  return db
    .select(purchaseColumns)
    .from(purchases)
    .leftJoin(item, eq(item.id, purchases.courseId))
    .leftJoin(bundles, eq(bundles.id, purchases.bundleId))
    .leftJoin(bundleFirst, eq(bundleFirst.id, bundles.courseOneId))
    .leftJoin(institutions, eq(institutions.id, sql`coalesce(${item.institutionId}, ${bundleFirst.institutionId})`));
}

/** A transfer reference people can type: `LMS-` and 10 characters of Crockford base32 (50 random bits). */
export function newReference(): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const bytes = randomBytes(10);
  let out = '';
  for (const b of bytes) out += alphabet[b & 31];
  return `LMS-${out.slice(0, 5)}-${out.slice(5)}`;
}

interface Priced {
  amount: string;
  currency: string;
}

/** What a course costs this buyer, or why it cannot be bought (never a second time). */
async function priceCourse(db: Db, userId: string, courseId: number, at: Date): Promise<Priced> {
  const [row] = await db
    .select({
      ...coursePriceForBuyerColumns(userId),
      enrolled: sql<boolean>`exists (select 1 from ${enrollments} e where e.user_id = ${userId} and e.course_id = ${courseId})`,
      paid: sql<boolean>`exists (select 1 from ${purchases} p where p.user_id = ${userId} and p.course_id = ${courseId} and p.status = 'paid')`,
      // A bundle purchase holding this course and waiting for payment: paying both would pay the course twice.
      waitingBundle: sql<string | null>`(select wb.name from ${purchases} wp join ${bundles} wb on wb.id = wp.bundle_id
        where wp.user_id = ${userId} and wp.status = 'pending' and ${courseId} in (wb.course_one_id, wb.course_two_id) limit 1)`,
    })
    .from(courses)
    .where(and(eq(courses.id, courseId), buyerVisible));
  if (!row) throw new NotFoundError('Course not found');
  if (!row.isPurchasable) throw new ConflictError('This course is not for sale');
  if (row.endDate !== null && salesEnded(row.endDate, at)) throw new ConflictError(courseEndedMessage(null, row.endDate));
  if (row.enrolled) throw new ConflictError('You are already enrolled in this course');
  if (row.paid) throw new ConflictError('You already paid for this course');
  if (row.waitingBundle !== null) {
    throw new ConflictError(
      `Your purchase of the bundle "${row.waitingBundle}", waiting for payment, holds this course: pay or cancel it first`,
    );
  }
  const amount = courseTierPrice(row, row.tier);
  if (!isPositiveAmount(amount)) throw new ConflictError('This course costs nothing at your tier: enrol directly');
  return { amount, currency: row.currency };
}

/**
 * What a bundle costs this buyer, or why it cannot be bought: the bundle as the bundles page shows
 * it to them (findBundleOffers: both courses buyer-visible, the catalog's bundle price at their
 * tier). A bundle holding a course the buyer has or is paying for is refused, naming the course
 * (the bundle's price is for both; buy the other course on its own).
 */
async function priceBundle(db: Db, userId: string, bundleId: number, at: Date): Promise<Priced> {
  const [offer] = await findBundleOffers(db, userId, { bundleId });
  if (!offer) throw new NotFoundError('Bundle not found');
  if (offer.enrolledIn === 2) throw new ConflictError('You are already enrolled in both courses of this bundle');
  if (offer.paid) throw new ConflictError('You already paid for this bundle');
  const ended = endedCourseOf(offer, at);
  if (ended) throw new ConflictError(courseEndedMessage(ended.name, ended.endDate));
  const held = offer.held;
  if (held?.why === 'enrolled') {
    throw new ConflictError(`You already have "${held.course.name}": buy "${held.other.name}" on its own instead of this bundle`);
  }
  if (held?.why === 'waiting') {
    throw new ConflictError(`A purchase holding "${held.course.name}" is waiting for payment: pay or cancel it before buying this bundle`);
  }
  if (!offer.forSale) throw new ConflictError('This bundle costs nothing: enrol in its courses directly');
  return { amount: offer.price, currency: offer.currency };
}

/** The buyer's pending purchase of the item, if any. */
export async function findOpenPurchase(db: Db, userId: string, what: PurchaseItem): Promise<PurchaseView | null> {
  const target = what.courseId !== undefined ? eq(purchases.courseId, what.courseId) : eq(purchases.bundleId, what.bundleId);
  const [row] = await purchaseQuery(db).where(and(eq(purchases.userId, userId), eq(purchases.status, 'pending'), target));
  return row ?? null;
}

/** 409: the buyer has as many purchases waiting for payment as one may. */
export class TooManyPendingPurchasesError extends ConflictError {
  constructor(max: number, firstPayment = false) {
    super(
      firstPayment
        ? 'You have a purchase waiting for payment: until your first payment is confirmed, one may wait at a time. Pay or cancel it first'
        : `You have ${max} purchases waiting for payment, as many as one may: pay or cancel one first`,
    );
  }
}

/**
 * How many purchases a buyer who has never paid may have waiting at once (docs/architecture.md,
 * "Pending purchases and new buyers"). PurchaseRules.maxPending is for buyers with a payment behind
 * them: otherwise twenty new members made a hundred pending transfers for the admins (issue 40).
 */
export const FIRST_PAYMENT_MAX_PENDING = 1;

/** The second key of the buyer's advisory lock (the first is the user's hashtext); quiz attempts use quiz ids, all above 0. */
const PURCHASE_LOCK = 0;

const MAX_REFERENCE_TRIES = 5;

/**
 * Starts a purchase: a pending row at the buyer's tier price with a fresh transfer reference, an
 * expiry (rules.pendingMs), and the provider's instructions. A second request for the same item
 * while one is pending returns that one (`created: false`), with its own amount and reference.
 * The buyer's purchases that are past their expiry are expired first; a buyer with
 * rules.maxPending waiting (FIRST_PAYMENT_MAX_PENDING before their first payment) is refused (409). The count and the insert hold the buyer's advisory
 * lock, so concurrent starts cannot pass the cap; the partial unique indexes
 * purchases_one_pending_* decide races for one item.
 */
export async function startPurchase(
  db: Db,
  receipts: Receipts,
  provider: PaymentProvider,
  rules: PurchaseRules,
  userId: string,
  what: PurchaseItem,
  at: Date,
): Promise<{ created: boolean; purchase: PurchaseView; instructions: PaymentInstructions }> {
  await expireOverduePurchases(db, at, { userId });
  const existing = await findOpenPurchase(db, userId, what);
  const done = (created: boolean, purchase: PurchaseView) => ({
    created,
    purchase,
    instructions: provider.begin({
      id: purchase.id,
      amount: purchase.amount,
      currency: purchase.currency,
      reference: purchase.reference ?? '',
      account: purchase.transferAccount,
    }),
  });
  if (existing) return done(false, existing);
  const price =
    what.courseId !== undefined ? await priceCourse(db, userId, what.courseId, at) : await priceBundle(db, userId, what.bundleId, at);
  const target = what.courseId !== undefined ? purchases.courseId : purchases.bundleId;
  // The predicate of the partial unique index the conflict is decided on (purchases_one_pending_*).
  const pendingIndexPredicate =
    what.courseId !== undefined ? sql`status = 'pending' and course_id is not null` : sql`status = 'pending' and bundle_id is not null`;
  for (let attempt = 1; ; attempt++) {
    try {
      const insertedId = await inTransaction(db, async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${userId}), ${PURCHASE_LOCK})`);
        const [waiting] = await tx
          .select({
            // The same item's pending purchase is not another one: a concurrent start of it gets that one back.
            n: sql<number>`count(*) filter (where ${purchases.status} = 'pending' and ${target} is distinct from ${what.courseId ?? what.bundleId})::int`,
            // A payment ever confirmed (refunded since included; an undone confirmation clears paid_at).
            hasPaid: sql<boolean>`coalesce(bool_or(${purchases.paidAt} is not null), false)`,
          })
          .from(purchases)
          .where(eq(purchases.userId, userId));
        const cap = waiting?.hasPaid ? rules.maxPending : Math.min(rules.maxPending, FIRST_PAYMENT_MAX_PENDING);
        if ((waiting?.n ?? 0) >= cap) throw new TooManyPendingPurchasesError(cap, !waiting?.hasPaid);
        const [inserted] = await tx
          .insert(purchases)
          .values({
            userId,
            courseId: what.courseId ?? null,
            bundleId: what.bundleId ?? null,
            amount: price.amount,
            currency: price.currency,
            status: 'pending',
            provider: provider.name,
            reference: newReference(),
            createdAt: at,
            expiresAt: new Date(at.getTime() + rules.pendingMs),
          })
          .onConflictDoNothing({ target: [purchases.userId, target], where: pendingIndexPredicate })
          .returning({ id: purchases.id });
        if (inserted) {
          // The transfer instructions go to the buyer with the purchase (the same words as the page's).
          // biome-ignore lint/style/noNonNullAssertion: inserted above in this transaction.
          const view = (await findPurchase(tx, inserted.id))!;
          await transferInstructions(tx, receipts, view, done(true, view).instructions);
        }
        return inserted?.id ?? null;
      });
      const view = insertedId !== null ? await findPurchase(db, insertedId) : await findOpenPurchase(db, userId, what);
      // Nothing inserted and nothing open: the concurrent one was settled meanwhile; start again.
      if (!view) return startPurchase(db, receipts, provider, rules, userId, what, at);
      return done(insertedId !== null, view);
    } catch (err) {
      // Two references alike (50 random bits): draw another.
      if (attempt < MAX_REFERENCE_TRIES && constraintOf(err) === 'purchases_reference_key') continue;
      throw err;
    }
  }
}

function constraintOf(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const name = (e as { constraint?: unknown }).constraint;
    if (typeof name === 'string') return name;
  }
  return undefined;
}

export async function findPurchase(db: Db, id: number): Promise<PurchaseView | null> {
  const [row] = await purchaseQuery(db).where(eq(purchases.id, id));
  return row ?? null;
}

/** The buyer's purchases, newest first. */
export async function listMyPurchases(db: Db, userId: string, limit = 200): Promise<PurchaseView[]> {
  return purchaseQuery(db).where(eq(purchases.userId, userId)).orderBy(desc(purchases.createdAt), desc(purchases.id)).limit(limit);
}

/**
 * Closes the pending purchases that are past their expiry as `expired`, closed when they expired:
 * one buyer's (before their next purchase), or at most `limit` of them, oldest deadline first
 * (housekeeping, batch after batch, without RETURNING). Returns how many it closed.
 */
export async function expireOverduePurchases(db: Db, now: Date, scope: { userId: string } | { limit: number }): Promise<number> {
  const overdue = and(eq(purchases.status, 'pending'), lte(purchases.expiresAt, now));
  const which =
    'userId' in scope
      ? and(overdue, eq(purchases.userId, scope.userId))
      : sql`${purchases.id} in (select ${purchases.id} from ${purchases} where ${overdue} order by ${purchases.expiresAt} limit ${scope.limit})`;
  const closed = await db
    .update(purchases)
    .set({ status: 'expired', closedAt: sql`${purchases.expiresAt}` })
    .where(and(which, eq(purchases.status, 'pending')));
  return affectedRows(closed);
}

/** The buyer cancels their own pending purchase (nobody else can: another's is a 404). */
export async function cancelPurchase(db: Db, userId: string, purchaseId: number, at: Date): Promise<PurchaseView> {
  const [cancelled] = await db
    .update(purchases)
    .set({ status: 'cancelled', closedAt: at, closedBy: userId })
    .where(and(eq(purchases.id, purchaseId), eq(purchases.userId, userId), eq(purchases.status, 'pending')))
    .returning({ id: purchases.id });
  const view = await findPurchase(db, purchaseId);
  if (!view || view.userId !== userId) throw new NotFoundError('Purchase not found');
  if (!cancelled) throw new ConflictError(`This purchase is already ${view.status}`);
  return view;
}
