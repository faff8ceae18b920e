import type { PartnerEventPayload } from '@lms/contracts';
import { bundles, courses, type Db, enrollments, inTransaction, purchases, users } from '@lms/db';
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import { type Decider, enqueueEnrollmentCreated } from './enrollment.js';
import { enqueuePartnerEvent } from '../partner-events/enqueue.js';
import { purchaseDecided, type Receipts } from '../../notifications/receipts.js';
import type { SendDeliveries } from '../partner-events/queue.js';
import { MAX_REVOCATION_REASON, revokeCertificatesIn } from './certificate-revocation.js';
import { findPurchase, type PurchaseView } from './purchases.js';

// The decisions staff take on a purchase (docs/architecture.md, "Taking a course"): confirm a
// transfer (which enrols the buyer), undo a confirmation made by mistake, reject, refund; the
// partner events each decision writes in its transaction. The list of those waiting is
// ./pending-purchases.ts; the buyer's side (start, cancel, expiry, reads) is ./purchases.ts.

/**
 * Whether a staff member may confirm purchases of the given courses: a super_admin any, an admin
 * those whose every course belongs to the admin's institution; nobody else.
 */
export function mayConfirm(decider: Decider, institutionIds: SQL): SQL {
  if (decider.role === 'super_admin') return sql`true`;
  if (decider.role !== 'admin') return sql`false`;
  // cardinality > 0: `= all` of an empty array is true, and a purchase of deleted courses belongs to nobody.
  return sql`coalesce(cardinality(${institutionIds}) > 0
    and (select ${users.institutionId} from ${users} where ${users.id} = ${decider.userId}) = all(${institutionIds}), false)`;
}

/** The institutions of a purchase's courses (one course, or a bundle's two), as an SQL array. */
export const purchaseInstitutions = sql`array(
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
  receipts: Receipts,
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
    await enqueuePurchaseEvent(tx, receipts.deliveries, { type: 'purchase.paid' }, purchaseId, at);
    for (const { courseId } of created) await enqueueEnrollmentCreated(tx, receipts.deliveries, found.userId, courseId, at);
    await purchaseDecided(tx, receipts, 'purchase.paid', await findPurchase(tx, purchaseId));
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
export async function undoConfirmation(
  db: Db,
  send: SendDeliveries,
  decider: Decider,
  purchaseId: number,
  at: Date,
): Promise<PurchaseView> {
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
    await enqueuePurchaseEvent(tx, send, { type: 'purchase.unconfirmed', unenrolledCourseIds: ids }, purchaseId, at);
  });
  // biome-ignore lint/style/noNonNullAssertion: the purchase was read in this function; purchases are never deleted.
  return (await findPurchase(db, purchaseId))!;
}

/**
 * An admin rejects a purchase whose money did not come (or will not be accepted), with a reason
 * the buyer sees: who may is who may confirm it; pending or expired → rejected. Paid, refunded,
 * cancelled or rejected already: 409.
 */
export async function rejectPurchase(
  db: Db,
  receipts: Receipts,
  decider: Decider,
  purchaseId: number,
  reason: string,
  at: Date,
): Promise<PurchaseView> {
  await inTransaction(db, async (tx) => {
    const found = await lockForDecision(tx, decider, purchaseId);
    if (found.status !== 'pending' && found.status !== 'expired') throw new ConflictError(`This purchase is already ${found.status}`);
    await tx
      .update(purchases)
      .set({ status: 'rejected', closedAt: at, closedBy: decider.userId, closeReason: reason })
      .where(eq(purchases.id, purchaseId));
    await purchaseDecided(tx, receipts, 'purchase.rejected', await findPurchase(tx, purchaseId), reason);
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
async function enqueuePurchaseEvent(tx: Db, send: SendDeliveries, event: PurchaseEvent, purchaseId: number, at: Date): Promise<void> {
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
    await enqueuePartnerEvent(tx, send, { ...about, type: event.type, data: { purchase } });
  } else if (event.type === 'purchase.refunded') {
    const { type, ...extra } = event;
    await enqueuePartnerEvent(tx, send, {
      ...about,
      type,
      data: { purchase: { ...purchase, refundedAt: at.toISOString(), reason: p.closeReason, ...extra } },
    });
  } else {
    const { type, ...extra } = event;
    await enqueuePartnerEvent(tx, send, { ...about, type, data: { purchase: { ...purchase, unconfirmedAt: at.toISOString(), ...extra } } });
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
  receipts: Receipts,
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
        ? await revokeCertificatesIn(
            tx,
            receipts.deliveries,
            found.userId,
            ending,
            `${REFUND_REVOCATION_PREFIX}${reason}`.slice(0, MAX_REVOCATION_REASON),
            at,
          )
        : [];
    const unenrolledCourseIds = removed.map((r) => r.courseId).sort((x, y) => x - y);
    await enqueuePurchaseEvent(
      tx,
      receipts.deliveries,
      { type: 'purchase.refunded', unenrolledCourseIds, revokedCertificateCodes: revoked.map((r) => r.code), certificateKeptReason: kept },
      purchaseId,
      at,
    );
    await purchaseDecided(tx, receipts, 'purchase.refunded', await findPurchase(tx, purchaseId), reason);
    return { unenrolledCourseIds, revokedCertificates: revoked };
  });
  // biome-ignore lint/style/noNonNullAssertion: the purchase was read in this function; purchases are never deleted.
  return { purchase: (await findPurchase(db, purchaseId))!, ...done, certificateKeptReason: kept };
}
