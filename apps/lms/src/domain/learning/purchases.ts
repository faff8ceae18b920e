import { randomBytes } from 'node:crypto';
import { bundles, courses, type Db, enrollments, inTransaction, purchases, users } from '@lms/db';
import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import { buyerVisible } from '../catalog/viewer.js';
import { coursePriceForBuyerColumns, courseTierPrice, isPositiveAmount } from '../catalog/tier-prices.js';
import { findBundleOffers } from './bundle-offers.js';
import type { Decider } from './enrollment.js';
import type { PaymentInstructions, PaymentProvider } from './payment-provider.js';

// Purchases (DESIGN §5b): a purchasable course or a bundle is bought at the buyer's tier price;
// the purchase is pending until the provider settles it (bank transfer: an admin's confirmation),
// which marks it paid and enrols the buyer, in both courses for a bundle, in one transaction. The
// counters and metrics follow from the status change by the database's triggers.

export type PurchaseItem = { courseId: number; bundleId?: undefined } | { bundleId: number; courseId?: undefined };

export interface PurchaseView {
  id: number;
  userId: string;
  courseId: number | null;
  bundleId: number | null;
  /** The course's or the bundle's name (empty when it was deleted since). */
  itemName: string;
  amount: string;
  currency: string;
  status: 'pending' | 'paid' | 'refunded';
  provider: string;
  reference: string | null;
  createdAt: Date;
  paidAt: Date | null;
  confirmedBy: string | null;
}

const item = alias(courses, 'purchased_course');

const purchaseColumns = {
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
};

function purchaseQuery(db: Db) {
  return db
    .select(purchaseColumns)
    .from(purchases)
    .leftJoin(item, eq(item.id, purchases.courseId))
    .leftJoin(bundles, eq(bundles.id, purchases.bundleId));
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

/** What a course costs this buyer, or why it cannot be bought. */
async function priceCourse(db: Db, userId: string, courseId: number): Promise<Priced> {
  const [row] = await db
    .select({
      ...coursePriceForBuyerColumns(userId),
      enrolled: sql<boolean>`exists (select 1 from ${enrollments} e where e.user_id = ${userId} and e.course_id = ${courseId})`,
      paid: sql<boolean>`exists (select 1 from ${purchases} p where p.user_id = ${userId} and p.course_id = ${courseId} and p.status = 'paid')`,
    })
    .from(courses)
    .where(and(eq(courses.id, courseId), buyerVisible));
  if (!row) throw new NotFoundError('Course not found');
  if (!row.isPurchasable) throw new ConflictError('This course is not for sale');
  if (row.enrolled) throw new ConflictError('You are already enrolled in this course');
  if (row.paid) throw new ConflictError('You already paid for this course');
  const amount = courseTierPrice(row, row.tier);
  if (!isPositiveAmount(amount)) throw new ConflictError('This course costs nothing at your tier: enrol directly');
  return { amount, currency: row.currency };
}

/**
 * What a bundle costs this buyer, or why it cannot be bought: the bundle as the bundles page shows
 * it to them (findBundleOffers: both courses buyer-visible, the catalog's bundle price at their tier).
 */
async function priceBundle(db: Db, userId: string, bundleId: number): Promise<Priced> {
  const [offer] = await findBundleOffers(db, userId, { bundleId });
  if (!offer) throw new NotFoundError('Bundle not found');
  if (offer.enrolledIn === 2) throw new ConflictError('You are already enrolled in both courses of this bundle');
  if (offer.paid) throw new ConflictError('You already paid for this bundle');
  if (!offer.forSale) throw new ConflictError('This bundle costs nothing: enrol in its courses directly');
  return { amount: offer.price, currency: offer.currency };
}

/** The buyer's pending purchase of the item, if any. */
export async function findOpenPurchase(db: Db, userId: string, what: PurchaseItem): Promise<PurchaseView | null> {
  const target = what.courseId !== undefined ? eq(purchases.courseId, what.courseId) : eq(purchases.bundleId, what.bundleId);
  const [row] = await purchaseQuery(db).where(and(eq(purchases.userId, userId), eq(purchases.status, 'pending'), target));
  return row ?? null;
}

const MAX_REFERENCE_TRIES = 5;

/**
 * Starts a purchase: a pending row at the buyer's tier price with a fresh transfer reference,
 * and the provider's instructions. A second request for the same item while one is pending
 * returns that one (`created: false`), with its own amount and reference (the partial unique
 * indexes purchases_one_pending_* decide races).
 */
export async function startPurchase(
  db: Db,
  provider: PaymentProvider,
  userId: string,
  what: PurchaseItem,
  at: Date,
): Promise<{ created: boolean; purchase: PurchaseView; instructions: PaymentInstructions }> {
  const existing = await findOpenPurchase(db, userId, what);
  const done = (created: boolean, purchase: PurchaseView) => ({
    created,
    purchase,
    instructions: provider.begin({
      id: purchase.id,
      amount: purchase.amount,
      currency: purchase.currency,
      reference: purchase.reference ?? '',
    }),
  });
  if (existing) return done(false, existing);
  const price = what.courseId !== undefined ? await priceCourse(db, userId, what.courseId) : await priceBundle(db, userId, what.bundleId);
  const target = what.courseId !== undefined ? purchases.courseId : purchases.bundleId;
  // The predicate of the partial unique index the conflict is decided on (purchases_one_pending_*).
  const pendingIndexPredicate =
    what.courseId !== undefined ? sql`status = 'pending' and course_id is not null` : sql`status = 'pending' and bundle_id is not null`;
  for (let attempt = 1; ; attempt++) {
    try {
      const [inserted] = await db
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
        })
        .onConflictDoNothing({ target: [purchases.userId, target], where: pendingIndexPredicate })
        .returning({ id: purchases.id });
      const view = inserted ? await findPurchase(db, inserted.id) : await findOpenPurchase(db, userId, what);
      // Nothing inserted and nothing open: the concurrent one was settled meanwhile; start again.
      if (!view) return startPurchase(db, provider, userId, what, at);
      return done(Boolean(inserted), view);
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
 * Whether a staff member may confirm purchases of the given courses: a super_admin any, an admin
 * those whose every course belongs to the admin's institution; nobody else.
 */
function mayConfirm(decider: Decider, institutionIds: SQL): SQL {
  if (decider.role === 'super_admin') return sql`true`;
  if (decider.role !== 'admin') return sql`false`;
  // cardinality > 0: `= all` of an empty array is true, and a purchase of deleted courses belongs to nobody.
  return sql`coalesce(cardinality(${institutionIds}) > 0
    and (select ${users.institutionId} from ${users} where ${users.id} = ${decider.userId}) = all(${institutionIds}), false)`;
}

/** The institutions of a purchase's courses (one course, or a bundle's two), as an SQL array. */
const purchaseInstitutions = sql`array(
  select c.institution_id from ${courses} c
  where c.id = ${purchases.courseId} or c.id = ${bundles.courseOneId} or c.id = ${bundles.courseTwoId})`;

/**
 * An admin confirms that the transfer arrived: in one transaction the purchase is locked, the
 * confirmer checked (an admin of the institution of every course in it, or a super_admin; never
 * its buyer), the status moved from pending to paid with the time and the confirmer (only while
 * still pending: confirming twice is a 409), and the buyer enrolled in the course, or both
 * courses of a bundle.
 */
export async function confirmPurchase(
  db: Db,
  decider: Decider,
  purchaseId: number,
  at: Date,
): Promise<{ purchase: PurchaseView; enrolledCourseIds: number[] }> {
  const enrolledCourseIds = await inTransaction(db, async (tx) => {
    const [found] = await tx
      .select({
        userId: purchases.userId,
        status: purchases.status,
        courseIds: sql<number[]>`array_remove(array[${purchases.courseId}, ${bundles.courseOneId}, ${bundles.courseTwoId}], null)`,
        mayConfirm: mayConfirm(decider, purchaseInstitutions),
      })
      .from(purchases)
      .leftJoin(bundles, eq(bundles.id, purchases.bundleId))
      .where(eq(purchases.id, purchaseId))
      .for('update', { of: purchases });
    if (!found) throw new NotFoundError('Purchase not found');
    if (found.userId === decider.userId) throw new ForbiddenError('A buyer cannot confirm their own purchase');
    if (!found.mayConfirm) throw new ForbiddenError("Only an admin of the course's institution or a super_admin confirms this payment");
    if (found.status !== 'pending') throw new ConflictError(`This purchase is already ${found.status}`);
    if (found.courseIds.length === 0) throw new ConflictError('What was bought no longer exists');
    const [updated] = await tx
      .update(purchases)
      .set({ status: 'paid', paidAt: at, confirmedBy: decider.userId })
      .where(and(eq(purchases.id, purchaseId), eq(purchases.status, 'pending')))
      .returning({ id: purchases.id });
    if (!updated) throw new ConflictError('This purchase was already confirmed');
    // One statement for the course or both of a bundle's, in course id order: each enrolment
    // updates its course's counters (a row lock), and two bundles may pair the same courses in
    // opposite orders; confirmed at once in the bundles' orders they would deadlock.
    const inLockOrder = [...found.courseIds].sort((x, y) => x - y);
    await tx
      .insert(enrollments)
      .values(inLockOrder.map((courseId) => ({ userId: found.userId, courseId, enrolledAt: at })))
      .onConflictDoNothing({ target: [enrollments.userId, enrollments.courseId] });
    return found.courseIds.map(Number);
  });
  // biome-ignore lint/style/noNonNullAssertion: the purchase was read in this function; purchases are never deleted.
  return { purchase: (await findPurchase(db, purchaseId))!, enrolledCourseIds };
}

export interface PendingPurchaseView extends PurchaseView {
  buyerName: string;
  buyerEmail: string;
  membershipId: string | null;
}

/** The pending purchases a staff member may confirm, oldest first. */
export async function listPendingPurchases(db: Db, decider: Decider, limit = 200): Promise<PendingPurchaseView[]> {
  return db
    .select({ ...purchaseColumns, buyerName: users.name, buyerEmail: users.email, membershipId: users.membershipId })
    .from(purchases)
    .leftJoin(item, eq(item.id, purchases.courseId))
    .leftJoin(bundles, eq(bundles.id, purchases.bundleId))
    .innerJoin(users, eq(users.id, purchases.userId))
    .where(and(eq(purchases.status, 'pending'), mayConfirm(decider, purchaseInstitutions), sql`${purchases.userId} <> ${decider.userId}`))
    .orderBy(asc(purchases.createdAt), asc(purchases.id))
    .limit(limit);
}
