import { bundles, certificates, courses, type Db } from '@lms/db';
import { eq } from 'drizzle-orm';
import type { PaymentInstructions } from '../domain/learning/payment-provider.js';
import type { PurchaseView } from '../domain/learning/purchases.js';
import type { SendDeliveries } from '../domain/partner-events/queue.js';
import type { Notify } from './contract.js';

// The receipts (docs/operations.md, "Notifications"), recorded by the domain's transactions through the app's
// Notify: each is written with the change it tells of, or not at all. Subjects name the record
// (an enrolment is its learner and course), so that repeating an action records nothing more.

/**
 * What the domain records beside a change, in its transaction: people's receipts (the app's
 * Notify, the deployment's PUBLIC_URL for the links) and the jobs of the partner-event deliveries
 * it made due (domain/partner-events/queue.ts).
 */
export interface Receipts {
  notify: Notify;
  publicUrl: string;
  deliveries: SendDeliveries;
}

const url = (r: Receipts, path: string) => new URL(path, r.publicUrl).toString();

async function courseOf(tx: Db, courseId: number): Promise<{ title: string; institutionId: number | null }> {
  const [row] = await tx
    .select({ title: courses.name, institutionId: courses.institutionId })
    .from(courses)
    .where(eq(courses.id, courseId));
  return { title: row?.title ?? '', institutionId: row?.institutionId ?? null };
}

// The pages a receipt links to, as the reminders link them (reminders/settings.ts pageUrls): the
// course page is under /dashboard; a purchase has no page of its own, its course's enrol section
// shows where it stands (a bundle's: the dashboard's "waiting for payment" section).
const coursePage = (courseId: number) => `/dashboard/courses/${courseId}`;
const purchasePage = (p: PurchaseView) => (p.bundleId === null && p.courseId !== null ? `${coursePage(p.courseId)}#enrol` : '/dashboard');

/** enrolment.confirmed, once per (learner, course); `known`: the course's title and institution, already read in `tx`. */
export async function enrolmentConfirmed(
  tx: Db,
  r: Receipts,
  userId: string,
  courseId: number,
  known?: { title: string; institutionId: number | null },
): Promise<void> {
  const course = known ?? (await courseOf(tx, courseId));
  await r.notify(tx, {
    kind: 'enrolment.confirmed',
    userId,
    institutionId: course.institutionId,
    subject: `enrollment:${userId}:${courseId}`,
    data: { courseTitle: course.title, courseUrl: url(r, coursePage(courseId)) },
  });
}

/** The institution that sells a purchase's item (a bundle: its first course's). */
async function sellerOf(tx: Db, purchase: PurchaseView): Promise<number | null> {
  if (purchase.courseId !== null) return (await courseOf(tx, purchase.courseId)).institutionId;
  if (purchase.bundleId === null) return null;
  const [row] = await tx
    .select({ institutionId: courses.institutionId })
    .from(bundles)
    .innerJoin(courses, eq(courses.id, bundles.courseOneId))
    .where(eq(bundles.id, purchase.bundleId));
  return row?.institutionId ?? null;
}

/** Whole rupiah, as the templates take amounts (the amounts are numeric(14,2) strings). */
const wholeAmount = (amount: string) => Math.round(Number(amount));

/** purchase.transfer_instructions for a purchase just started (once per purchase). */
export async function transferInstructions(tx: Db, r: Receipts, purchase: PurchaseView, instructions: PaymentInstructions): Promise<void> {
  await r.notify(tx, {
    kind: 'purchase.transfer_instructions',
    userId: purchase.userId,
    institutionId: await sellerOf(tx, purchase),
    subject: `purchase:${purchase.id}`,
    data: {
      itemTitle: purchase.itemName,
      amount: wholeAmount(purchase.amount),
      reference: instructions.reference,
      bankName: instructions.bankName ?? '',
      accountNumber: instructions.accountNumber ?? '',
      accountName: instructions.accountName ?? '',
      payBefore: (purchase.expiresAt ?? purchase.createdAt).toISOString(),
      purchaseUrl: url(r, purchasePage(purchase)),
    },
  });
}

/**
 * purchase.paid, purchase.rejected or purchase.refunded, once per purchase each (a purchase paid
 * again after an undone confirmation is not told twice). A paid purchase's enrolments get no
 * enrolment.confirmed on top: purchase.paid names what it opens.
 */
export async function purchaseDecided(
  tx: Db,
  r: Receipts,
  kind: 'purchase.paid' | 'purchase.rejected' | 'purchase.refunded',
  purchase: PurchaseView | null,
  reason = '',
): Promise<void> {
  // Read in the deciding transaction, after its update: there (purchases are never deleted).
  if (!purchase) return;
  const institutionId = await sellerOf(tx, purchase);
  const base = { userId: purchase.userId, institutionId, subject: `purchase:${purchase.id}` };
  const item = { itemTitle: purchase.itemName, amount: wholeAmount(purchase.amount) };
  if (kind === 'purchase.paid') {
    // A bundle opens several courses: its page (the bundles list) names them.
    const courseUrl = url(r, purchase.courseId !== null ? coursePage(purchase.courseId) : '/dashboard/bundles');
    await r.notify(tx, { ...base, kind, data: { ...item, courseUrl } });
  } else {
    await r.notify(tx, { ...base, kind, data: { ...item, reason, purchaseUrl: url(r, purchasePage(purchase)) } });
  }
}

/** certificate.issued, once per certificate. */
export async function certificateIssued(tx: Db, r: Receipts, code: string): Promise<void> {
  const [cert] = await tx
    .select({ userId: certificates.userId, courseId: certificates.courseId })
    .from(certificates)
    .where(eq(certificates.code, code));
  if (!cert) return;
  const course = await courseOf(tx, cert.courseId);
  await r.notify(tx, {
    kind: 'certificate.issued',
    userId: cert.userId,
    institutionId: course.institutionId,
    subject: `certificate:${code}`,
    data: {
      courseTitle: course.title,
      certificateUrl: url(r, `/learn/certificates/${cert.courseId}`),
      pdfUrl: url(r, `/learn/certificates/${cert.courseId}/pdf`),
      credentialUrl: url(r, `/api/learning/certificates/${encodeURIComponent(code)}/credential`),
    },
  });
}

/** attempt.granted, once per grant. */
export async function attemptGranted(
  tx: Db,
  r: Receipts,
  grant: { id: number; userId: string; courseId: number; quizId: number; quizTitle: string },
): Promise<void> {
  const course = await courseOf(tx, grant.courseId);
  await r.notify(tx, {
    kind: 'attempt.granted',
    userId: grant.userId,
    institutionId: course.institutionId,
    subject: `grant:${grant.id}`,
    data: { courseTitle: course.title, quizTitle: grant.quizTitle, quizUrl: url(r, `/learn/quizzes/${grant.quizId}`) },
  });
}
