import {
  type CertificateEvidence,
  certificates,
  chapterTime,
  courseAccreditations,
  credits,
  type Db,
  evaluationCompletions,
  quizAttempts,
  quizzes,
} from '@lms/db';
import { eq } from 'drizzle-orm';

/** A certificate's evidence as issuance writes it: one SKP accreditation, 130 minutes, both tests, the evaluation. */
export const sampleEvidence: CertificateEvidence = {
  minutes: 130,
  expectedMinutes: 120,
  preTestScore: 40,
  postTestScore: 85.5,
  evaluationDone: true,
  accreditations: [
    { scheme: 'SKP', unit: 'SKP', reference: 'KEMKES/SKP/2026/0042', value: 2, validFrom: '2026-01-01T00:00:00.000Z', validUntil: null },
  ],
};

/** An accreditation of a course (as an admin records it), from 2026-01-01, open-ended: its id. */
export async function accredit(
  db: Db,
  courseId: number,
  scheme = 'SKP-KEMENKES',
  reference = 'KEMKES/2026/77',
  value = 2,
): Promise<number> {
  const [row] = await db
    .insert(courseAccreditations)
    .values({ courseId, scheme, reference, value, validFrom: new Date('2026-01-01T00:00:00Z') })
    .returning({ id: courseAccreditations.id });
  return row!.id;
}

/** Marks a course's quizzes as its pre-test and post-test (evidence_role). */
export async function markTests(db: Db, preQuizId: number, postQuizId: number) {
  await db.update(quizzes).set({ evidenceRole: 'pre_test' }).where(eq(quizzes.id, preQuizId));
  await db.update(quizzes).set({ evidenceRole: 'post_test' }).where(eq(quizzes.id, postQuizId));
}

export interface SeededEvidence {
  courseId: number;
  chapterId: number;
  userId: string;
  minutes?: number;
  pre?: { quizId: number; score: number };
  post?: { quizId: number; score: number };
  evaluation?: boolean;
  certificate?: { issuedAt: Date; expiresAt?: Date | null; credit?: { scheme: string; accreditationId: number; amount: number } };
}

/** A learner's evidence written directly (as heartbeats, quizzes, the evaluation and issuance would): the certificate's code, if any. */
export async function seedEvidence(db: Db, s: SeededEvidence): Promise<string | null> {
  if (s.minutes !== undefined)
    await db
      .insert(chapterTime)
      .values({ userId: s.userId, chapterId: s.chapterId, courseId: s.courseId, activeSeconds: s.minutes * 60, beats: s.minutes * 2 });
  for (const test of [s.pre, s.post])
    if (test)
      await db
        .insert(quizAttempts)
        .values({ userId: s.userId, quizId: test.quizId, score: test.score, passed: true, submittedAt: new Date('2026-02-01T00:00:00Z') });
  if (s.evaluation) await db.insert(evaluationCompletions).values({ userId: s.userId, courseId: s.courseId });
  if (!s.certificate) return null;
  const [cert] = await db
    .insert(certificates)
    .values({
      userId: s.userId,
      courseId: s.courseId,
      issuedAt: s.certificate.issuedAt,
      expiresAt: s.certificate.expiresAt ?? null,
      kum: 2,
      evidence: sampleEvidence,
    })
    .returning({ id: certificates.id, code: certificates.code });
  const credit = s.certificate.credit;
  if (credit)
    await db.insert(credits).values({
      userId: s.userId,
      courseId: s.courseId,
      certificateId: cert!.id,
      scheme: credit.scheme,
      accreditationId: credit.accreditationId,
      amount: credit.amount,
      earnedAt: s.certificate.issuedAt,
    });
  return cert!.code;
}
