import { certificates, type courses, type Db, type institutions, inTransaction, type RawSelect, typedRows, type users } from '@lms/db';
import { and, eq, sql } from 'drizzle-orm';
import { evidenceCondition, writeCertificateEvidence } from '../evidence/certificate-evidence.js';
import { courseRequirements } from '../evidence/requirements.js';
import { enqueuePartnerEvent } from '../partner-events/enqueue.js';
import { certificateIssued, type Receipts } from '../../notifications/receipts.js';

/**
 * Issues the learner's certificate for the course if it is earned and not issued yet: every
 * chapter completed (a course has at least one) and the final exam, if the course has one,
 * passed (the catalog's certificate rule), and the evidence its accreditations require
 * (domain/evidence/certificate-evidence.ts). One statement: the unique index
 * certificates_user_course_key with ON CONFLICT DO NOTHING makes concurrent callers (20 final
 * submissions at once) issue exactly one. Returns the new certificate's code, or null.
 * The same rule, for display, is catalog/learner-status.ts's `finishedCourse`: a change to what
 * earns a certificate changes both (here in SQL, so the check and the insert are one statement).
 */
export async function issueCertificateIfEarned(
  db: Db,
  receipts: Receipts,
  userId: string,
  courseId: number,
  at: Date,
): Promise<string | null> {
  // The certificate and its certificate.issued event commit together.
  return inTransaction(db, async (tx) => {
    const code = await insertCertificateIfEarned(tx, userId, courseId, at);
    if (code !== null) {
      await writeCertificateEvidence(tx, code, userId, courseId, at);
      const [cert] = await tx.select({ kum: certificates.kum }).from(certificates).where(eq(certificates.code, code));
      await enqueuePartnerEvent(tx, receipts.deliveries, {
        type: 'certificate.issued',
        userId,
        occurredAt: at,
        courseId,
        // verificationUrl is added at delivery (PUBLIC_URL is the delivering instance's configuration).
        data: { certificate: { code, kum: cert?.kum ?? null, issuedAt: at.toISOString() } },
      });
      await certificateIssued(tx, receipts, code);
    }
    return code;
  });
}

async function insertCertificateIfEarned(db: Db, userId: string, courseId: number, at: Date): Promise<string | null> {
  // A revoked certificate is not issued again by finishing again: only an admin's reissue replaces it.
  // The credit records (one per scheme accredited at issue) are written by the same statement;
  // kum is the credited value in the course's own scheme, or null.
  // The evidence its accreditations in force require (pre-test, post-test score, evaluation): one fragment.
  const evidence = evidenceCondition(await courseRequirements(db, courseId, at), userId);
  const { rows } = await db.execute(sql`
    with issued as (
      insert into certificates (user_id, course_id, kum, issued_at, expires_at)
      select ${userId}, c.id,
        (select max(a.value) from course_accreditations a where a.course_id = c.id and a.scheme = c.credit_scheme
          and a.valid_from <= ${at.toISOString()}::timestamptz
          and (a.valid_until is null or a.valid_until > ${at.toISOString()}::timestamptz)),
        ${at.toISOString()}::timestamptz,
        case when c.certificate_valid_months is null then null
          else ${at.toISOString()}::timestamptz + make_interval(months => c.certificate_valid_months) end
      from courses c
      where c.id = ${courseId}
        and exists (select 1 from enrollments e where e.user_id = ${userId} and e.course_id = c.id)
        and exists (select 1 from chapters ch where ch.course_id = c.id)
        and not exists (
          select 1 from chapters ch where ch.course_id = c.id
            and not exists (select 1 from chapter_completions cc where cc.user_id = ${userId} and cc.chapter_id = ch.id))
        and not exists (
          select 1 from quizzes f where f.course_id = c.id and f.scope = 'final'
            and not exists (select 1 from quiz_attempts qa where qa.quiz_id = f.id and qa.user_id = ${userId} and qa.passed))
        and not exists (select 1 from certificates r where r.user_id = ${userId} and r.course_id = c.id and r.revoked_at is not null)
        and ${evidence}
      on conflict (user_id, course_id) where revoked_at is null do nothing
      returning id, code, user_id, course_id, kum, issued_at
    ), credited as (
      -- Credit comes from the accreditations in force at issue, one per scheme (its largest value):
      -- none in force, no credit (the course's nilai_kum is only what the catalog shows).
      insert into credits (user_id, course_id, certificate_id, scheme, amount, earned_at, accreditation_id)
      select distinct on (a.scheme) i.user_id, i.course_id, i.id, a.scheme, a.value, i.issued_at, a.id
      from issued i join course_accreditations a on a.course_id = i.course_id
      where a.valid_from <= i.issued_at and (a.valid_until is null or a.valid_until > i.issued_at)
      order by a.scheme, a.value desc, a.id
    )
    select code from issued`);
  return (rows[0] as { code: string } | undefined)?.code ?? null;
}

/**
 * A certificate as `columns` reads it (raw: the certificate pages' one-join reads). `userId` is
 * the holder; `reissuedFrom` the revoked certificate this one replaced (an admin's reissue), or null.
 */
type CertificateRow = Pick<
  RawSelect<typeof certificates>,
  | 'id'
  | 'code'
  | 'userId'
  | 'courseId'
  | 'issuedAt'
  | 'revokedAt'
  | 'revokedReason'
  | 'expiresAt'
  | 'isPrivate'
  | 'reissuedFrom'
  | 'evidence'
> & {
  courseName: RawSelect<typeof courses>['name'];
  /** numeric, read as float8. */
  kum: number | null;
  memberName: RawSelect<typeof users>['name'];
  membershipId: RawSelect<typeof users>['membershipId'];
  institutionName: RawSelect<typeof institutions>['name'] | null;
  creditScheme: RawSelect<typeof courses>['creditScheme'];
};

export type Certificate = Omit<CertificateRow, 'issuedAt' | 'revokedAt' | 'expiresAt'> & {
  issuedAt: Date;
  revokedAt: Date | null;
  expiresAt: Date | null;
};

const columns = sql`k.id, k.code, k.user_id as "userId", k.course_id as "courseId", c.name as "courseName", k.kum::float8 as kum, k.issued_at as "issuedAt",
  u.name as "memberName", u.membership_id as "membershipId", i.name as "institutionName",
  k.revoked_at as "revokedAt", k.revoked_reason as "revokedReason", k.expires_at as "expiresAt", k.is_private as "isPrivate",
  c.credit_scheme as "creditScheme", k.reissued_from as "reissuedFrom", k.evidence`;
const from = sql`certificates k join courses c on c.id = k.course_id join users u on u.id = k.user_id left join institutions i on i.id = c.institution_id`;

const optionalDate = (v: string | null) => (v === null ? null : new Date(v));

function toCertificate(row: CertificateRow): Certificate {
  return {
    ...row,
    issuedAt: new Date(row.issuedAt),
    revokedAt: optionalDate(row.revokedAt),
    expiresAt: optionalDate(row.expiresAt),
  };
}

export type CertificateStatus = 'valid' | 'revoked' | 'expired';

/** Valid, revoked (whatever its dates) or expired at `now`: the one rule every page, file and list shows. */
export function certificateStatus(cert: Pick<Certificate, 'revokedAt' | 'expiresAt'>, now: Date): CertificateStatus {
  if (cert.revokedAt) return 'revoked';
  if (cert.expiresAt && cert.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'valid';
}

/** The learner's own certificates, newest first. */
export async function listCertificates(db: Db, userId: string): Promise<Certificate[]> {
  const rows = await typedRows<CertificateRow>(
    db,
    sql`select ${columns} from ${from} where k.user_id = ${userId} order by k.issued_at desc, k.id desc`,
  );
  return rows.map(toCertificate);
}

/** The learner's certificate of one course (for the printable page): the one in force, else the latest revoked, or null. */
export async function findOwnCertificate(db: Db, userId: string, courseId: number): Promise<Certificate | null> {
  const rows = await typedRows<CertificateRow>(
    db,
    sql`select ${columns} from ${from} where k.user_id = ${userId} and k.course_id = ${courseId}
      order by k.revoked_at is null desc, k.id desc limit 1`,
  );
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
  const rows = await typedRows<CertificateRow>(db, sql`select ${columns} from ${from} where k.code = ${code}`);
  return rows[0] ? toCertificate(rows[0]) : null;
}

/** A learner's certificates of one course, the one in force first, then the revoked ones, newest first (the managers' learner page). */
export async function listLearnerCertificates(db: Db, userId: string, courseId: number): Promise<Certificate[]> {
  const rows = await typedRows<CertificateRow>(
    db,
    sql`select ${columns} from ${from} where k.user_id = ${userId} and k.course_id = ${courseId}
      order by k.revoked_at is null desc, k.id desc`,
  );
  return rows.map(toCertificate);
}

/**
 * The holder's choice for one of their certificates: private, the public page says only that a
 * certificate with that code exists and its status; public (the default), its details too. Only
 * the holder's own certificate changes (the statement says whose): false when it is not theirs.
 */
export async function setCertificatePrivacy(db: Db, userId: string, certificateId: number, isPrivate: boolean): Promise<boolean> {
  const changed = await db
    .update(certificates)
    .set({ isPrivate })
    .where(and(eq(certificates.id, certificateId), eq(certificates.userId, userId)))
    .returning({ id: certificates.id });
  return changed.length === 1;
}

/** `at` plus whole calendar months, as PostgreSQL's interval arithmetic does (31 Jan + 1 month = 28/29 Feb). */
export function addMonths(at: Date, months: number): Date {
  const d = new Date(at.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}
