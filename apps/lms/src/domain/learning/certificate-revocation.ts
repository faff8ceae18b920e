import { certificates, courses, credits, type Db, inTransaction, type RawSelect, typedRows, type UserRole } from '@lms/db';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { ForbiddenError, NotFoundError } from '../../errors.js';
import { enqueuePartnerEvent } from '../partner-events/enqueue.js';
import type { SendDeliveries } from '../partner-events/queue.js';
import { managesCourseColumn } from '../rules/course-managers.js';
import { addMonths, CERTIFICATE_CODE } from './certificates.js';

// Taking a certificate back and giving it again (an institution's act: its admins, the operator's
// CLI, a refund): the holder's partners hear certificate.revoked / certificate.issued in the same
// transaction. Issuing and reading certificates: certificates.ts.

/** The longest reason a revocation takes (the page's form, the CLI). */
export const MAX_REVOCATION_REASON = 500;

/**
 * Whether this person may revoke and reissue the course's certificates: a super_admin, or an admin
 * of the course's institution. Not its teacher, even its owner: a certificate is the institution's
 * word, and taking it back is the institution's act (the teacher sees the certificates, and asks).
 * Null when there is no such course.
 */
export async function mayRevokeCertificates(db: Db, person: { userId: string; role: UserRole }, courseId: number): Promise<boolean | null> {
  const institutional = person.role === 'super_admin' || person.role === 'admin';
  const [row] = await db
    .select({ may: institutional ? managesCourseColumn(person) : sql<boolean>`false` })
    .from(courses)
    .where(eq(courses.id, courseId));
  return row ? row.may : null;
}

/** mayRevokeCertificates as a guard: a 404 for no such course, a 403 for anyone else. */
export async function assertRevokesCertificates(db: Db, person: { userId: string; role: UserRole }, courseId: number): Promise<void> {
  const may = await mayRevokeCertificates(db, person, courseId);
  if (may === null) throw new NotFoundError('Course not found');
  if (!may) throw new ForbiddenError("Only an admin of the course's institution or a super_admin may revoke or reissue its certificates");
}

export type RevokeResult = { outcome: 'revoked'; courseId: number } | { outcome: 'unknown' } | { outcome: 'already'; revokedAt: Date };

/**
 * Revokes a certificate by its code (an operator's decision, with a reason): the public page says
 * revoked from then on, and the holder's partners hear certificate.revoked in the same transaction.
 * A second revocation changes nothing.
 */
export async function revokeCertificate(db: Db, send: SendDeliveries, code: string, reason: string, at: Date): Promise<RevokeResult> {
  return inTransaction(db, async (tx) => {
    const [row] = await tx
      .update(certificates)
      .set({ revokedAt: at, revokedReason: reason })
      .where(and(eq(certificates.code, code), isNull(certificates.revokedAt)))
      .returning({ id: certificates.id, userId: certificates.userId, courseId: certificates.courseId, kum: certificates.kum });
    if (row) await tx.update(credits).set({ voidedAt: at }).where(eq(credits.certificateId, row.id));
    if (!row) {
      const [found] = await tx.select({ revokedAt: certificates.revokedAt }).from(certificates).where(eq(certificates.code, code));
      return found?.revokedAt ? { outcome: 'already', revokedAt: found.revokedAt } : { outcome: 'unknown' };
    }
    await enqueueRevoked(tx, send, { code, ...row }, reason, at);
    return { outcome: 'revoked', courseId: row.courseId };
  });
}

/** certificate.revoked for the holder's partners, in the transaction that revoked it. */
async function enqueueRevoked(
  tx: Db,
  send: SendDeliveries,
  cert: { code: string; userId: string; courseId: number; kum: number | null },
  reason: string,
  at: Date,
): Promise<void> {
  await enqueuePartnerEvent(tx, send, {
    type: 'certificate.revoked',
    userId: cert.userId,
    occurredAt: at,
    courseId: cert.courseId,
    data: { certificate: { code: cert.code, kum: cert.kum, revokedAt: at.toISOString(), reason } },
  });
}

/**
 * Revokes, in the caller's transaction, the certificates in force a learner holds in these courses
 * (a refund's: docs/architecture.md, "A refund ends what it bought"), with the reason, voiding their
 * credits and telling the holder's partners certificate.revoked, once each (a revoked certificate is
 * never revoked again). Returns what it revoked.
 */
export async function revokeCertificatesIn(
  tx: Db,
  send: SendDeliveries,
  userId: string,
  courseIds: readonly number[],
  reason: string,
  at: Date,
): Promise<{ code: string; courseId: number }[]> {
  if (courseIds.length === 0) return [];
  const revoked = await tx
    .update(certificates)
    .set({ revokedAt: at, revokedReason: reason })
    .where(and(eq(certificates.userId, userId), inArray(certificates.courseId, [...courseIds]), isNull(certificates.revokedAt)))
    .returning({
      id: certificates.id,
      code: certificates.code,
      userId: certificates.userId,
      courseId: certificates.courseId,
      kum: certificates.kum,
    });
  for (const row of revoked) {
    await tx.update(credits).set({ voidedAt: at }).where(eq(credits.certificateId, row.id));
    await enqueueRevoked(tx, send, row, reason, at);
  }
  return revoked.map((r) => ({ code: r.code, courseId: r.courseId }));
}

export type ReissueResult =
  | { outcome: 'reissued'; code: string; courseId: number }
  | { outcome: 'unknown' }
  /** The certificate is still in force: revoke it first. */
  | { outcome: 'not_revoked' }
  /** The learner already holds a certificate in force for that course (reissued before, or earned again). */
  | { outcome: 'exists'; code: string };

/**
 * Reissues a revoked certificate (an operator's decision, for example after a wrong revocation or a
 * corrected name): a new certificate with a new code and its own status entry, issued now, with the
 * old one's KUM and expiry rule; the old one stays revoked (its credential keeps saying so). The
 * credit record moves to the new certificate with its original date (the learning happened then),
 * and so does the holder's privacy choice. The holder's partners hear certificate.issued.
 */
export async function reissueCertificate(db: Db, send: SendDeliveries, code: string, at: Date): Promise<ReissueResult> {
  if (!CERTIFICATE_CODE.test(code)) return { outcome: 'unknown' };
  return inTransaction(db, async (tx) => {
    const { rows } = await tx.execute(sql`
      select k.id, k.user_id as "userId", k.course_id as "courseId", k.kum::float8 as kum, k.revoked_at as "revokedAt", k.is_private as "isPrivate",
        c.certificate_valid_months as "validMonths",
        (select code from certificates n where n.user_id = k.user_id and n.course_id = k.course_id and n.revoked_at is null) as "inForce"
      from certificates k join courses c on c.id = k.course_id where k.code = ${code} for update of k`);
    const old = rows[0] as
      | {
          id: number;
          userId: string;
          courseId: number;
          kum: number | null;
          revokedAt: unknown;
          isPrivate: boolean;
          validMonths: number | null;
          inForce: string | null;
        }
      | undefined;
    if (!old) return { outcome: 'unknown' };
    if (old.revokedAt === null) return { outcome: 'not_revoked' };
    if (old.inForce) return { outcome: 'exists', code: old.inForce };
    const expiresAt = old.validMonths === null ? null : addMonths(at, old.validMonths);
    const [fresh] = await tx
      .insert(certificates)
      .values({
        userId: old.userId,
        courseId: old.courseId,
        kum: old.kum,
        issuedAt: at,
        expiresAt,
        reissuedFrom: old.id,
        // The holder's choice stays theirs: a private certificate is reissued private.
        isPrivate: old.isPrivate,
      })
      .onConflictDoNothing()
      .returning({ id: certificates.id, code: certificates.code });
    if (!fresh) {
      const [inForce] = await typedRows<Pick<RawSelect<typeof certificates>, 'code'>>(
        tx,
        sql`select code from certificates where user_id = ${old.userId} and course_id = ${old.courseId} and revoked_at is null`,
      );
      return { outcome: 'exists', code: inForce?.code ?? '' };
    }
    // Every credit of the old certificate (one per scheme) moves with its date and accreditation.
    await tx.execute(sql`
      insert into credits (user_id, course_id, certificate_id, scheme, amount, earned_at, accreditation_id)
      select user_id, course_id, ${fresh.id}, scheme, amount, earned_at, accreditation_id
      from credits where certificate_id = ${old.id}`);
    await enqueuePartnerEvent(tx, send, {
      type: 'certificate.issued',
      userId: old.userId,
      occurredAt: at,
      courseId: old.courseId,
      data: { certificate: { code: fresh.code, kum: old.kum, issuedAt: at.toISOString() } },
    });
    return { outcome: 'reissued', code: fresh.code, courseId: old.courseId };
  });
}
