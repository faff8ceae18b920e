import { randomBytes } from 'node:crypto';
import type { PartnerEventPayload } from '@lms/contracts';
import { affectedRows, bundles, courses, type Db, enrollments, institutions, inTransaction, purchases, users } from '@lms/db';
import { and, asc, count, desc, eq, gt, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import { buyerVisible } from '../rules/buyer-visible.js';
import { courseEndedMessage, coursePriceForBuyerColumns, courseTierPrice, isPositiveAmount, salesEnded } from '../rules/tier-prices.js';
import { endedCourseOf, findBundleOffers } from './bundle-offers.js';
import { type Decider, enqueueEnrollmentCreated } from './enrollment.js';
import { enqueuePartnerEvent } from '../partner-events/enqueue.js';
import { MAX_REVOCATION_REASON, revokeCertificatesIn } from './certificates.js';
import type { PaymentInstructions, PaymentProvider } from './payment-provider.js';

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

const item = alias(courses, 'purchased_course');
const bundleFirst = alias(courses, 'purchased_bundle_first');

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
  expiresAt: purchases.expiresAt,
  closedAt: purchases.closedAt,
  closeReason: purchases.closeReason,
  transferAccount: {
    bankName: institutions.transferBank,
    accountNumber: institutions.transferAccountNumber,
    accountName: institutions.transferAccountHolder,
  },
};

function purchaseQuery(db: Db) {
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
        return inserted?.id ?? null;
      });
      const view = insertedId !== null ? await findPurchase(db, insertedId) : await findOpenPurchase(db, userId, what);
      // Nothing inserted and nothing open: the concurrent one was settled meanwhile; start again.
      if (!view) return startPurchase(db, provider, rules, userId, what, at);
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

/** A purchase locked for a staff member's decision (confirm, reject), with what the decision needs. */
async function lockForDecision(tx: Db, decider: Decider, purchaseId: number) {
  const [found] = await tx
    .select({
      userId: purchases.userId,
      status: purchases.status,
      courseId: purchases.courseId,
      bundleId: purchases.bundleId,
      courseIds: sql<number[]>`array_remove(array[${purchases.courseId}, ${bundles.courseOneId}, ${bundles.courseTwoId}], null)`,
      mayConfirm: mayConfirm(decider, purchaseInstitutions),
    })
    .from(purchases)
    .leftJoin(bundles, eq(bundles.id, purchases.bundleId))
    .where(eq(purchases.id, purchaseId))
    .for('update', { of: purchases });
  if (!found) throw new NotFoundError('Purchase not found');
  if (found.userId === decider.userId) throw new ForbiddenError('A buyer cannot decide on their own purchase');
  if (!found.mayConfirm) throw new ForbiddenError("Only an admin of the course's institution or a super_admin decides on this payment");
  return found;
}

/**
 * An admin confirms that the transfer arrived: in one transaction the purchase is locked, the
 * confirmer checked (an admin of the institution of every course in it, or a super_admin; never
 * its buyer), the status moved to paid with the time and the confirmer, and the buyer enrolled in
 * the course, or both courses of a bundle. A pending purchase is confirmed, and so is an expired
 * one (money that arrives late is still a payment), unless the buyer has paid for the same item
 * since; the buyer's newer purchase of the item waiting for payment is then cancelled, so it is
 * not paid a second time. Paid, refunded, cancelled or rejected: 409.
 */
export async function confirmPurchase(
  db: Db,
  decider: Decider,
  purchaseId: number,
  at: Date,
): Promise<{ purchase: PurchaseView; enrolledCourseIds: number[] }> {
  const enrolledCourseIds = await inTransaction(db, async (tx) => {
    const found = await lockForDecision(tx, decider, purchaseId);
    if (found.status !== 'pending' && found.status !== 'expired') throw new ConflictError(`This purchase is already ${found.status}`);
    if (found.courseIds.length === 0) throw new ConflictError('What was bought no longer exists');
    const sameItem = and(
      eq(purchases.userId, found.userId),
      found.courseId !== null ? eq(purchases.courseId, found.courseId) : eq(purchases.bundleId, found.bundleId ?? 0),
    );
    if (found.status === 'expired') {
      const [paid] = await tx
        .select({ id: purchases.id })
        .from(purchases)
        .where(and(sameItem, eq(purchases.status, 'paid')));
      if (paid) throw new ConflictError(`The buyer has paid for this since (purchase ${paid.id}): this one is not confirmed`);
      await tx
        .update(purchases)
        .set({
          status: 'cancelled',
          closedAt: at,
          closedBy: decider.userId,
          closeReason: `Superseded by purchase ${purchaseId}, paid late`,
        })
        .where(and(sameItem, eq(purchases.status, 'pending')));
    }
    const [updated] = await tx
      .update(purchases)
      .set({ status: 'paid', paidAt: at, confirmedBy: decider.userId, closedAt: null })
      .where(and(eq(purchases.id, purchaseId), eq(purchases.status, found.status)))
      .returning({ id: purchases.id });
    if (!updated) throw new ConflictError('This purchase was already decided');
    // One statement for the course or both of a bundle's, in course id order: each enrolment
    // updates its course's counters (a row lock), and two bundles may pair the same courses in
    // opposite orders; confirmed at once in the bundles' orders they would deadlock.
    const inLockOrder = [...found.courseIds].sort((x, y) => x - y);
    const created = await tx
      .insert(enrollments)
      .values(inLockOrder.map((courseId) => ({ userId: found.userId, courseId, enrolledAt: at })))
      .onConflictDoNothing({ target: [enrollments.userId, enrollments.courseId] })
      .returning({ courseId: enrollments.courseId });
    await enqueuePurchaseEvent(tx, { type: 'purchase.paid' }, purchaseId, at);
    for (const { courseId } of created) await enqueueEnrollmentCreated(tx, found.userId, courseId, at);
    return found.courseIds.map(Number);
  });
  // biome-ignore lint/style/noNonNullAssertion: the purchase was read in this function; purchases are never deleted.
  return { purchase: (await findPurchase(db, purchaseId))!, enrolledCourseIds };
}

/** How long after confirming a payment its confirmer (or another who may confirm it) can undo it. */
export const CONFIRMATION_UNDO_MS = 15 * 60_000;

/**
 * Undoes an admin's confirmation of a payment confirmed by mistake: who may is who may confirm it
 * (never the buyer); only a paid purchase confirmed by an admin less than CONFIRMATION_UNDO_MS
 * ago, and only while the buyer has not used what it opened (no chapter completed, no quiz
 * attempt, no certificate in its courses): then, in one transaction, the purchase is pending again
 * (its reference and expiry unchanged), the enrolments its confirmation made are removed (the
 * counters follow by trigger), and the undo is recorded (confirmation_undone_at/_by). 409 otherwise.
 */
export async function undoConfirmation(db: Db, decider: Decider, purchaseId: number, at: Date): Promise<PurchaseView> {
  await inTransaction(db, async (tx) => {
    const found = await lockForDecision(tx, decider, purchaseId);
    const [row] = await tx
      .select({ paidAt: purchases.paidAt, confirmedBy: purchases.confirmedBy })
      .from(purchases)
      .where(eq(purchases.id, purchaseId));
    if (found.status !== 'paid' || !row?.paidAt || row.confirmedBy === null) {
      throw new ConflictError(`Only a confirmed payment can be undone; this purchase is ${found.status}`);
    }
    if (at.getTime() - row.paidAt.getTime() > CONFIRMATION_UNDO_MS) {
      throw new ConflictError('A confirmation can be undone for 15 minutes only; this one is older');
    }
    const ids = found.courseIds.map(Number);
    if (ids.length > 0) {
      const idList = sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      );
      const { rows } = await tx.execute(sql`select (
        exists (select 1 from chapter_completions where user_id = ${found.userId} and course_id in (${idList}))
        or exists (select 1 from quiz_attempts qa join quizzes q on q.id = qa.quiz_id
          where qa.user_id = ${found.userId} and q.course_id in (${idList}))
        or exists (select 1 from certificates where user_id = ${found.userId} and course_id in (${idList}))) as used`);
      if ((rows[0] as { used?: boolean } | undefined)?.used)
        throw new ConflictError('The buyer has already started the course: the confirmation can no longer be undone');
    }
    await tx
      .update(purchases)
      .set({ status: 'pending', paidAt: null, confirmedBy: null, confirmationUndoneAt: at, confirmationUndoneBy: decider.userId })
      .where(and(eq(purchases.id, purchaseId), eq(purchases.status, 'paid')));
    if (ids.length > 0) {
      await tx.delete(enrollments).where(and(eq(enrollments.userId, found.userId), inArray(enrollments.courseId, ids)));
    }
    // The partners heard purchase.paid and enrollment.created: they hear that both were taken back.
    await enqueuePurchaseEvent(tx, { type: 'purchase.unconfirmed', unenrolledCourseIds: ids }, purchaseId, at);
  });
  // biome-ignore lint/style/noNonNullAssertion: the purchase was read in this function; purchases are never deleted.
  return (await findPurchase(db, purchaseId))!;
}

/**
 * An admin rejects a purchase whose money did not come (or will not be accepted), with a reason
 * the buyer sees: who may is who may confirm it; pending or expired → rejected. Paid, refunded,
 * cancelled or rejected already: 409.
 */
export async function rejectPurchase(db: Db, decider: Decider, purchaseId: number, reason: string, at: Date): Promise<PurchaseView> {
  await inTransaction(db, async (tx) => {
    const found = await lockForDecision(tx, decider, purchaseId);
    if (found.status !== 'pending' && found.status !== 'expired') throw new ConflictError(`This purchase is already ${found.status}`);
    await tx
      .update(purchases)
      .set({ status: 'rejected', closedAt: at, closedBy: decider.userId, closeReason: reason })
      .where(eq(purchases.id, purchaseId));
  });
  // biome-ignore lint/style/noNonNullAssertion: the purchase was read in this function; purchases are never deleted.
  return (await findPurchase(db, purchaseId))!;
}

/** What a purchase event adds to the purchase it reads: its fields of PartnerEventPayloads (packages/contracts). */
type PurchaseEvent =
  | { type: 'purchase.paid' }
  | ({ type: 'purchase.refunded' } & Pick<
      PartnerEventPayload<'purchase.refunded'>['purchase'],
      'unenrolledCourseIds' | 'revokedCertificateCodes' | 'certificateKeptReason'
    >)
  | ({ type: 'purchase.unconfirmed' } & Pick<PartnerEventPayload<'purchase.unconfirmed'>['purchase'], 'unenrolledCourseIds'>);

/**
 * purchase.paid / purchase.refunded / purchase.unconfirmed (an admin undid a confirmation made by
 * mistake: the purchase waits for payment again, its enrolments are gone) for the buyer's partners,
 * in the transaction that changed it.
 */
async function enqueuePurchaseEvent(tx: Db, event: PurchaseEvent, purchaseId: number, at: Date): Promise<void> {
  const [p] = await tx
    .select({
      userId: purchases.userId,
      courseId: purchases.courseId,
      bundleId: purchases.bundleId,
      amount: purchases.amount,
      currency: purchases.currency,
      reference: purchases.reference,
      paidAt: purchases.paidAt,
      closeReason: purchases.closeReason,
    })
    .from(purchases)
    .where(eq(purchases.id, purchaseId));
  if (!p) return;
  const purchase = {
    id: purchaseId,
    courseId: p.courseId,
    bundleId: p.bundleId,
    amount: p.amount,
    currency: p.currency,
    reference: p.reference,
    paidAt: p.paidAt?.toISOString() ?? null,
  };
  const about = { userId: p.userId, occurredAt: at, courseId: p.courseId };
  if (event.type === 'purchase.paid') {
    await enqueuePartnerEvent(tx, { ...about, type: event.type, data: { purchase } });
  } else if (event.type === 'purchase.refunded') {
    const { type, ...extra } = event;
    await enqueuePartnerEvent(tx, {
      ...about,
      type,
      data: { purchase: { ...purchase, refundedAt: at.toISOString(), reason: p.closeReason, ...extra } },
    });
  } else {
    const { type, ...extra } = event;
    await enqueuePartnerEvent(tx, { ...about, type, data: { purchase: { ...purchase, unconfirmedAt: at.toISOString(), ...extra } } });
  }
}

/** What a refund did besides closing the purchase (docs/architecture.md, "A refund ends what it bought"). */
export interface RefundOutcome {
  purchase: PurchaseView;
  /** The courses whose enrolment the refund ended (a course another paid purchase still covers keeps it). */
  unenrolledCourseIds: number[];
  /** The certificates earned through it, revoked with the refund's reason. */
  revokedCertificates: { code: string; courseId: number }[];
  /** Why the admin kept those certificates instead (then none is revoked), or null. */
  certificateKeptReason: string | null;
}

/** How a certificate revoked by a refund gives its reason: "Refund: " and the refund's reason. */
export const REFUND_REVOCATION_PREFIX = 'Refund: ';

/**
 * An admin records that a paid purchase was refunded (the money went back to the buyer), with
 * who, when and why (closedBy, closedAt, closeReason): who may is who may confirm it; only a paid
 * purchase (else 409). A refund ends what it bought, in the same transaction: the buyer's
 * enrolment in its course (a bundle: both), unless another paid purchase of theirs still covers
 * that course; their certificates in force in those courses are revoked with the refund's reason,
 * unless the admin keeps them and says why (`keepCertificateReason`, recorded on the purchase).
 * What the learner did (completions, attempts) stays, for the record and for a purchase made
 * again. The partners hear purchase.refunded and, per certificate revoked, certificate.revoked:
 * once each, as a refunded purchase cannot be refunded again.
 */
export async function refundPurchase(
  db: Db,
  decider: Decider,
  purchaseId: number,
  reason: string,
  at: Date,
  options: { keepCertificateReason?: string | null } = {},
): Promise<RefundOutcome> {
  const kept = options.keepCertificateReason ?? null;
  const done = await inTransaction(db, async (tx) => {
    const found = await lockForDecision(tx, decider, purchaseId);
    if (found.status !== 'paid') throw new ConflictError(`Only a paid purchase is refunded; this one is ${found.status}`);
    await tx
      .update(purchases)
      .set({ status: 'refunded', closedAt: at, closedBy: decider.userId, closeReason: reason, certificateKeptReason: kept })
      .where(eq(purchases.id, purchaseId));
    const ids = found.courseIds.map(Number);
    // A course another paid purchase of the buyer covers (a late payment of the same item, a
    // bundle holding it) stays theirs; every other course of this purchase is no longer.
    const idList = sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    );
    const { rows: covered } =
      ids.length === 0
        ? { rows: [] }
        : await tx.execute(sql`
      select c.id from courses c where c.id in (${idList})
        and exists (
        select 1 from purchases p left join bundles b on b.id = p.bundle_id
        where p.user_id = ${found.userId} and p.status = 'paid' and p.id <> ${purchaseId}
          and (p.course_id = c.id or c.id in (b.course_one_id, b.course_two_id)))`);
    const keep = new Set((covered as { id: number }[]).map((r) => Number(r.id)));
    const ending = ids.filter((id) => !keep.has(id));
    const removed =
      ending.length === 0
        ? []
        : await tx
            .delete(enrollments)
            .where(and(eq(enrollments.userId, found.userId), inArray(enrollments.courseId, ending)))
            .returning({ courseId: enrollments.courseId });
    const revoked =
      kept === null
        ? await revokeCertificatesIn(tx, found.userId, ending, `${REFUND_REVOCATION_PREFIX}${reason}`.slice(0, MAX_REVOCATION_REASON), at)
        : [];
    const unenrolledCourseIds = removed.map((r) => r.courseId).sort((x, y) => x - y);
    await enqueuePurchaseEvent(
      tx,
      { type: 'purchase.refunded', unenrolledCourseIds, revokedCertificateCodes: revoked.map((r) => r.code), certificateKeptReason: kept },
      purchaseId,
      at,
    );
    return { unenrolledCourseIds, revokedCertificates: revoked };
  });
  // biome-ignore lint/style/noNonNullAssertion: the purchase was read in this function; purchases are never deleted.
  return { purchase: (await findPurchase(db, purchaseId))!, ...done, certificateKeptReason: kept };
}

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
    db
      .select({ ...purchaseColumns, buyerName: users.name, buyerEmail: users.email, membershipId: users.membershipId })
      .from(purchases)
      .leftJoin(item, eq(item.id, purchases.courseId))
      .leftJoin(bundles, eq(bundles.id, purchases.bundleId))
      .leftJoin(bundleFirst, eq(bundleFirst.id, bundles.courseOneId))
      .leftJoin(institutions, eq(institutions.id, sql`coalesce(${item.institutionId}, ${bundleFirst.institutionId})`))
      .innerJoin(users, eq(users.id, purchases.userId))
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
  const [row] = await db
    .select({ ...purchaseColumns, buyerName: users.name, buyerEmail: users.email, membershipId: users.membershipId })
    .from(purchases)
    .leftJoin(item, eq(item.id, purchases.courseId))
    .leftJoin(bundles, eq(bundles.id, purchases.bundleId))
    .leftJoin(bundleFirst, eq(bundleFirst.id, bundles.courseOneId))
    .leftJoin(institutions, eq(institutions.id, sql`coalesce(${item.institutionId}, ${bundleFirst.institutionId})`))
    .innerJoin(users, eq(users.id, purchases.userId))
    .where(and(eq(purchases.id, purchaseId), mayConfirm(decider, purchaseInstitutions), sql`${purchases.userId} <> ${decider.userId}`));
  return row ?? null;
}
