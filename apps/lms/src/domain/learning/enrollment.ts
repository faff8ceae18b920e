import { createHash, timingSafeEqual } from 'node:crypto';
import { courses, type Db, enrollmentRequests, enrollments, inTransaction, purchases, type UserRole, users } from '@lms/db';
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, TooManyRequestsError } from '../../errors.js';
import { buyerVisible } from '../rules/buyer-visible.js';
import { courseEndedMessage, coursePriceForBuyerColumns, courseTierPrice, isPositiveAmount, salesEnded } from '../rules/tier-prices.js';
import { coursesManagedBy } from '../rules/course-managers.js';
import { enqueuePartnerEvent } from '../partner-events/enqueue.js';
import type { SendDeliveries } from '../partner-events/queue.js';
import { enrolmentConfirmed, type Receipts } from '../../notifications/receipts.js';

/** enrollment.created for a new enrolment (in the enrolment's transaction). */
export function enqueueEnrollmentCreated(tx: Db, send: SendDeliveries, userId: string, courseId: number, at: Date): Promise<number> {
  return enqueuePartnerEvent(tx, send, {
    type: 'enrollment.created',
    userId,
    occurredAt: at,
    courseId,
    data: { enrolledAt: at.toISOString() },
  });
}

// Enrolment (docs/architecture.md, "Taking a course"): open courses at once, code courses with the
// course's code, approval courses on a decision of the course's teacher (or an admin of its
// institution, or a super_admin). A purchasable course with a price for the learner's tier needs a
// paid purchase first (./purchases.ts); the payment, checked by an admin, is then the admission.

/** How many codes a learner may try per course in CODE_WINDOW_MS before 429 (an address: ENROLMENT_CODE_ATTEMPTS_PER_ADDRESS). */
export const CODE_ATTEMPTS = 5;
export const CODE_WINDOW_MS = 15 * 60_000;

export interface EnrollmentBody {
  courseId: number;
  enrolledAt: Date;
}

export type EnrollmentRequestRow = typeof enrollmentRequests.$inferSelect;

export type EnrolOutcome =
  | { kind: 'enrolled'; created: boolean; enrollment: EnrollmentBody }
  | { kind: 'requested'; created: boolean; request: EnrollmentRequestRow }
  | { kind: 'payment-required'; courseId: number; amount: string; currency: string };

/** 429 with Retry-After: too many wrong enrolment codes for this course. */
export class TooManyWrongCodesError extends TooManyRequestsError {
  constructor(retryAfterSeconds: number) {
    super(retryAfterSeconds, 'Too many wrong enrolment codes for this course; try again later');
  }
}

export const WRONG_CODE = 'The enrolment code is wrong';
export const CODE_REQUIRED = 'This course needs its enrolment code: send {"code": "..."}';

/**
 * Counts one code attempt of a user at a course and says whether it is allowed; `retryAfterMs`
 * when not. The routes pass the app's limiter for the request (routes/learning/code-limiter.ts:
 * per person and per client address, sliding windows in Redis or memory).
 */
export type CodeAttemptLimiter = (attempt: { userId: string; courseId: number }) => Promise<{ allowed: boolean; retryAfterMs: number }>;

/** Constant-time comparison of two codes of any length (compared as SHA-256 digests). */
export function codesMatch(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

async function insertEnrollment(
  db: Db,
  receipts: Receipts,
  userId: string,
  courseId: number,
  at: Date,
): Promise<{ created: boolean; enrollment: EnrollmentBody }> {
  // The enrolment and its partner event commit together (or neither does).
  const inserted = await inTransaction(db, async (tx) => {
    // The course's title and institution come back with the new row, for its receipt: read in the
    // insert's own round trip rather than by a statement of their own (bench row 15w).
    const [row] = await tx
      .insert(enrollments)
      .values({ userId, courseId, enrolledAt: at })
      .onConflictDoNothing({ target: [enrollments.userId, enrollments.courseId] })
      .returning({
        courseId: enrollments.courseId,
        enrolledAt: enrollments.enrolledAt,
        course: sql<{ title: string; institutionId: number | null }>`(
          select json_build_object('title', c.name, 'institutionId', c.institution_id) from ${courses} c where c.id = ${courseId})`,
      });
    if (row) {
      await enqueueEnrollmentCreated(tx, receipts.deliveries, userId, courseId, at);
      await enrolmentConfirmed(tx, receipts, userId, courseId, row.course);
    }
    return row;
  });
  if (inserted) return { created: true, enrollment: { courseId: inserted.courseId, enrolledAt: inserted.enrolledAt } };
  const existing = await findEnrollment(db, userId, courseId);
  // A concurrent request made it first: it is the same enrollment.
  // biome-ignore lint/style/noNonNullAssertion: the insert conflicted, so the row exists (enrollments are never deleted).
  return { created: false, enrollment: existing! };
}

export async function findEnrollment(db: Db, userId: string, courseId: number): Promise<EnrollmentBody | null> {
  const [row] = await db
    .select({ courseId: enrollments.courseId, enrolledAt: enrollments.enrolledAt })
    .from(enrollments)
    .where(and(eq(enrollments.userId, userId), eq(enrollments.courseId, courseId)));
  return row ?? null;
}

/** A paid purchase of the course itself or of a bundle that holds it. */
export function paidPurchaseOf(userId: string, courseId: number): SQL {
  return sql`exists (
    select 1 from ${purchases} p left join bundles b on b.id = p.bundle_id
    where p.user_id = ${userId} and p.status = 'paid'
      and (p.course_id = ${courseId} or b.course_one_id = ${courseId} or b.course_two_id = ${courseId}))`;
}

/**
 * Enrols the user in a buyer-visible course by its enrolment type. Order of the rules: unknown or
 * not buyer-visible → 404; already enrolled → the same enrollment; purchasable with a price for
 * the user's tier and no paid purchase → payment required; a paid purchase → enrolled (the
 * payment is the admission); then open → enrolled; code → the code (wrong: 400; each attempt
 * counts, so the sixth within the window is a 429 whatever the code); approval → a pending request.
 */
export async function enrol(
  db: Db,
  receipts: Receipts,
  userId: string,
  courseId: number,
  code: string | undefined,
  limitCodeAttempt: CodeAttemptLimiter,
  at: Date,
): Promise<EnrolOutcome> {
  const [row] = await db
    .select({
      enrollmentType: courses.enrollmentType,
      enrollmentCode: courses.enrollmentCode,
      ...coursePriceForBuyerColumns(userId),
      enrolledAt: sql<
        string | null
      >`(select e.enrolled_at from ${enrollments} e where e.user_id = ${userId} and e.course_id = ${courseId})`,
      paid: sql<boolean>`${paidPurchaseOf(userId, courseId)}`,
    })
    // (Parameters, not ${courses.id}, in the subqueries: a one-table select renders columns unqualified.)
    .from(courses)
    .where(and(eq(courses.id, courseId), buyerVisible));
  if (!row) throw new NotFoundError('Course not found');
  if (row.enrolledAt !== null) return { kind: 'enrolled', created: false, enrollment: { courseId, enrolledAt: new Date(row.enrolledAt) } };
  // Closed after its end date; a buyer who paid before still gets in (the payment was the admission).
  if (!row.paid && row.endDate !== null && salesEnded(row.endDate, at)) throw new ConflictError(courseEndedMessage(null, row.endDate));

  const amount = courseTierPrice(row, row.tier);
  if (row.isPurchasable && isPositiveAmount(amount)) {
    if (!row.paid) return { kind: 'payment-required', courseId, amount, currency: row.currency };
    return { kind: 'enrolled', ...(await insertEnrollment(db, receipts, userId, courseId, at)) };
  }

  switch (row.enrollmentType) {
    case 'open':
      return { kind: 'enrolled', ...(await insertEnrollment(db, receipts, userId, courseId, at)) };
    case 'code': {
      if (row.enrollmentCode === null || row.enrollmentCode === '') {
        throw new ForbiddenError('This course has no enrolment code yet; ask its teacher');
      }
      if (code === undefined || code === '') throw new BadRequestError(CODE_REQUIRED);
      // Counted before comparing: a right code after five wrong ones is refused too, so the
      // limit cannot be stepped around by telling a 429 from a 400.
      const attempt = await limitCodeAttempt({ userId, courseId });
      if (!attempt.allowed) throw new TooManyWrongCodesError(Math.max(1, Math.ceil(attempt.retryAfterMs / 1000)));
      if (!codesMatch(code, row.enrollmentCode)) throw new BadRequestError(WRONG_CODE);
      return { kind: 'enrolled', ...(await insertEnrollment(db, receipts, userId, courseId, at)) };
    }
    case 'approval': {
      const [created] = await db
        .insert(enrollmentRequests)
        .values({ userId, courseId, requestedAt: at })
        .onConflictDoNothing({ target: [enrollmentRequests.userId, enrollmentRequests.courseId], where: sql`status = 'pending'` })
        .returning();
      if (created) return { kind: 'requested', created: true, request: created };
      const [pending] = await db
        .select()
        .from(enrollmentRequests)
        .where(
          and(eq(enrollmentRequests.userId, userId), eq(enrollmentRequests.courseId, courseId), eq(enrollmentRequests.status, 'pending')),
        );
      if (pending) return { kind: 'requested', created: false, request: pending };
      // The pending one was decided between the two statements: ask again.
      return enrol(db, receipts, userId, courseId, code, limitCodeAttempt, at);
    }
  }
}

/** The staff member deciding: their role and institution. */
export interface Decider {
  userId: string;
  role: UserRole;
}

/**
 * Approves or rejects a pending request, in one transaction: the request is locked, the decider
 * checked against its course, the decision written only while it is still pending (a second
 * decision, or a concurrent one, is a 409), and on approval the enrollment created.
 */
export async function decideEnrollmentRequest(
  db: Db,
  receipts: Receipts,
  decider: Decider,
  requestId: number,
  decision: 'approved' | 'rejected',
  at: Date,
): Promise<{ request: EnrollmentRequestRow; enrollment: EnrollmentBody | null }> {
  return inTransaction(db, async (tx) => {
    const [found] = await tx
      .select({
        id: enrollmentRequests.id,
        status: enrollmentRequests.status,
        mayDecide: sql<boolean>`coalesce(${coursesManagedBy(decider) ?? sql`true`}, false)`,
      })
      .from(enrollmentRequests)
      .innerJoin(courses, eq(courses.id, enrollmentRequests.courseId))
      .where(eq(enrollmentRequests.id, requestId))
      .for('update', { of: enrollmentRequests });
    if (!found) throw new NotFoundError('Enrolment request not found');
    if (!found.mayDecide)
      throw new ForbiddenError("Only the course's teacher, an admin of its institution or a super_admin decides this request");
    if (found.status !== 'pending') throw new ConflictError(`This request was already ${found.status}`);
    const [request] = await tx
      .update(enrollmentRequests)
      .set({ status: decision, decidedAt: at, decidedBy: decider.userId })
      .where(and(eq(enrollmentRequests.id, requestId), eq(enrollmentRequests.status, 'pending')))
      .returning();
    if (!request) throw new ConflictError('This request was already decided');
    const enrollment =
      decision === 'approved' ? (await insertEnrollment(tx, receipts, request.userId, request.courseId, at)).enrollment : null;
    return { request, enrollment };
  });
}

export interface PendingRequestView {
  id: number;
  courseId: number;
  courseName: string;
  userId: string;
  userName: string;
  userEmail: string;
  membershipId: string | null;
  requestedAt: Date;
}

/** The pending requests a staff member decides, oldest first (at most `limit`). */
export async function listPendingRequests(db: Db, decider: Decider, limit = 200): Promise<PendingRequestView[]> {
  return db
    .select({
      id: enrollmentRequests.id,
      courseId: courses.id,
      courseName: courses.name,
      userId: users.id,
      userName: users.name,
      userEmail: users.email,
      membershipId: users.membershipId,
      requestedAt: enrollmentRequests.requestedAt,
    })
    .from(enrollmentRequests)
    .innerJoin(courses, eq(courses.id, enrollmentRequests.courseId))
    .innerJoin(users, eq(users.id, enrollmentRequests.userId))
    .where(and(eq(enrollmentRequests.status, 'pending'), coursesManagedBy(decider)))
    .orderBy(asc(enrollmentRequests.requestedAt), asc(enrollmentRequests.id))
    .limit(limit);
}

/** The user's latest request for a course (pending, or the last decision), or null. */
export async function latestRequest(db: Db, userId: string, courseId: number): Promise<EnrollmentRequestRow | null> {
  const [row] = await db
    .select()
    .from(enrollmentRequests)
    .where(and(eq(enrollmentRequests.userId, userId), eq(enrollmentRequests.courseId, courseId)))
    .orderBy(sql`${enrollmentRequests.requestedAt} desc, ${enrollmentRequests.id} desc`)
    .limit(1);
  return row ?? null;
}

/** What the course page's enrol section shows a person: where they stand with this course. */
export interface EnrolmentState {
  enrolledAt: Date | null;
  /** The latest approval request, pending or decided. */
  request: EnrollmentRequestRow | null;
  /** The price for the person's tier when the course needs a purchase first; null otherwise. */
  price: { amount: string; currency: string } | null;
  paid: boolean;
  /** Whether the course takes enrolments at all (buyer-visible). */
  open: boolean;
  /** When the course ended, if it has (then it is neither sold nor enrolled in). */
  endedAt: Date | null;
}

export async function enrolmentState(db: Db, userId: string, courseId: number, now: Date): Promise<EnrolmentState | null> {
  const [row] = await db
    .select({
      ...coursePriceForBuyerColumns(userId),
      enrolledAt: sql<
        string | null
      >`(select e.enrolled_at from ${enrollments} e where e.user_id = ${userId} and e.course_id = ${courseId})`,
      paid: sql<boolean>`${paidPurchaseOf(userId, courseId)}`,
      open: sql<boolean>`${buyerVisible}`,
    })
    .from(courses)
    .where(eq(courses.id, courseId));
  if (!row) return null;
  const amount = courseTierPrice(row, row.tier);
  return {
    enrolledAt: row.enrolledAt === null ? null : new Date(row.enrolledAt),
    request: await latestRequest(db, userId, courseId),
    price: row.isPurchasable && isPositiveAmount(amount) ? { amount, currency: row.currency } : null,
    paid: row.paid,
    open: row.open,
    endedAt: row.endDate !== null && salesEnded(row.endDate, now) ? new Date(row.endDate) : null,
  };
}
