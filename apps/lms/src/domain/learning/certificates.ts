import { certificates, type Db, inTransaction } from '@lms/db';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { enqueuePartnerEvent } from '../partner-events/enqueue.js';

/**
 * Issues the learner's certificate for the course if it is earned and not issued yet: every
 * chapter completed (a course has at least one) and the final exam, if the course has one,
 * passed (the catalog's certificate rule). One statement: the unique index
 * certificates_user_course_key with ON CONFLICT DO NOTHING makes concurrent callers (20 final
 * submissions at once) issue exactly one. Returns the new certificate's code, or null.
 * The same rule, for display, is catalog/learner-status.ts's `finishedCourse`: a change to what
 * earns a certificate changes both (here in SQL, so the check and the insert are one statement).
 */
export async function issueCertificateIfEarned(db: Db, userId: string, courseId: number, at: Date): Promise<string | null> {
  // The certificate and its certificate.issued event commit together.
  return inTransaction(db, async (tx) => {
    const code = await insertCertificateIfEarned(tx, userId, courseId, at);
    if (code !== null) {
      const [cert] = await tx.select({ kum: certificates.kum }).from(certificates).where(eq(certificates.code, code));
      await enqueuePartnerEvent(tx, {
        type: 'certificate.issued',
        userId,
        occurredAt: at,
        courseId,
        // verificationUrl is added at delivery (PUBLIC_URL is the delivering instance's configuration).
        data: { certificate: { code, kum: cert?.kum ?? null, issuedAt: at.toISOString() } },
      });
    }
    return code;
  });
}

async function insertCertificateIfEarned(db: Db, userId: string, courseId: number, at: Date): Promise<string | null> {
  const { rows } = await db.execute(sql`
    insert into certificates (user_id, course_id, kum, issued_at)
    select ${userId}, c.id, c.nilai_kum, ${at.toISOString()}::timestamptz from courses c
    where c.id = ${courseId}
      and exists (select 1 from enrollments e where e.user_id = ${userId} and e.course_id = c.id)
      and exists (select 1 from chapters ch where ch.course_id = c.id)
      and not exists (
        select 1 from chapters ch where ch.course_id = c.id
          and not exists (select 1 from chapter_completions cc where cc.user_id = ${userId} and cc.chapter_id = ch.id))
      and not exists (
        select 1 from quizzes f where f.course_id = c.id and f.scope = 'final'
          and not exists (select 1 from quiz_attempts qa where qa.quiz_id = f.id and qa.user_id = ${userId} and qa.passed))
    on conflict (user_id, course_id) do nothing
    returning code`);
  return (rows[0] as { code: string } | undefined)?.code ?? null;
}

export interface Certificate {
  code: string;
  courseId: number;
  courseName: string;
  kum: number | null;
  issuedAt: Date;
  memberName: string;
  membershipId: string | null;
  institutionName: string | null;
  revokedAt: Date | null;
  revokedReason: string | null;
}

const columns = sql`k.code, k.course_id as "courseId", c.name as "courseName", k.kum::float8 as kum, k.issued_at as "issuedAt",
  u.name as "memberName", u.membership_id as "membershipId", i.name as "institutionName",
  k.revoked_at as "revokedAt", k.revoked_reason as "revokedReason"`;
const from = sql`certificates k join courses c on c.id = k.course_id join users u on u.id = k.user_id left join institutions i on i.id = c.institution_id`;

function toCertificate(row: Record<string, unknown>): Certificate {
  const revokedAt = row.revokedAt === null || row.revokedAt === undefined ? null : new Date(row.revokedAt as string | Date);
  return { ...(row as unknown as Certificate), issuedAt: new Date(row.issuedAt as string | Date), revokedAt };
}

/** The learner's own certificates, newest first. */
export async function listCertificates(db: Db, userId: string): Promise<Certificate[]> {
  const { rows } = await db.execute(sql`select ${columns} from ${from} where k.user_id = ${userId} order by k.issued_at desc, k.id desc`);
  return rows.map(toCertificate);
}

/** The learner's certificate of one course (for the printable page), or null. */
export async function findOwnCertificate(db: Db, userId: string, courseId: number): Promise<Certificate | null> {
  const { rows } = await db.execute(sql`select ${columns} from ${from} where k.user_id = ${userId} and k.course_id = ${courseId}`);
  return rows[0] ? toCertificate(rows[0]) : null;
}

/** Codes are 32 lowercase hex digits (a UUID without dashes): anything else is not looked up at all. */
export const CERTIFICATE_CODE = /^[0-9a-f]{32}$/;

/**
 * The certificate a verification code names, or null. One lookup by the unique index whatever the
 * code: a forged code costs the same as a real one, and 122 random bits are not guessable.
 */
export async function findCertificateByCode(db: Db, code: string): Promise<Certificate | null> {
  if (!CERTIFICATE_CODE.test(code)) return null;
  const { rows } = await db.execute(sql`select ${columns} from ${from} where k.code = ${code}`);
  return rows[0] ? toCertificate(rows[0]) : null;
}

export type RevokeResult = { outcome: 'revoked'; courseId: number } | { outcome: 'unknown' } | { outcome: 'already'; revokedAt: Date };

/**
 * Revokes a certificate by its code (an operator's decision, with a reason): the public page says
 * revoked from then on, and the holder's partners hear certificate.revoked in the same transaction.
 * A second revocation changes nothing.
 */
export async function revokeCertificate(db: Db, code: string, reason: string, at: Date): Promise<RevokeResult> {
  return inTransaction(db, async (tx) => {
    const [row] = await tx
      .update(certificates)
      .set({ revokedAt: at, revokedReason: reason })
      .where(and(eq(certificates.code, code), isNull(certificates.revokedAt)))
      .returning({ userId: certificates.userId, courseId: certificates.courseId, kum: certificates.kum });
    if (!row) {
      const [found] = await tx.select({ revokedAt: certificates.revokedAt }).from(certificates).where(eq(certificates.code, code));
      return found?.revokedAt ? { outcome: 'already', revokedAt: found.revokedAt } : { outcome: 'unknown' };
    }
    await enqueuePartnerEvent(tx, {
      type: 'certificate.revoked',
      userId: row.userId,
      occurredAt: at,
      courseId: row.courseId,
      data: { certificate: { code, kum: row.kum, revokedAt: at.toISOString(), reason } },
    });
    return { outcome: 'revoked', courseId: row.courseId };
  });
}
