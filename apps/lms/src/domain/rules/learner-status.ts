import type { CertificateInfo, LearnerStatus } from '@lms/contracts';

// A learner's standing on one course, as the catalog reports it: progress, status and
// certificate. The rules are the contracts' (LearnerStatus, CertificateInfo); API-key callers
// have no record and get not-started defaults.

export interface LearnerStanding {
  totalProgress: number;
  status: LearnerStatus;
  certificate: CertificateInfo;
}

export const round2 = (n: number) => Math.round(n * 100) / 100;

export function learnerStanding(input: {
  /** The enrollment's completed-chapter counter; undefined when not enrolled (or an API key). */
  enrolledChapters: number | undefined;
  /** Chapters of the course. */
  chapterCount: number;
  /** Whether the course has a final exam, and the learner's attempts and pass on it. */
  hasFinal: boolean;
  finalAttempts: number;
  finalPassed: boolean;
  /** A certificate has been issued. */
  certified: boolean;
  /**
   * An accreditation in force asks for evidence (pre-test, post-test score, evaluation): finishing
   * is then not enough, the certificate says the evidence is met (it is issued the moment it is).
   */
  evidenceRequired?: boolean;
}): LearnerStanding {
  const { enrolledChapters, chapterCount } = input;
  const totalProgress =
    enrolledChapters === undefined || chapterCount === 0 ? 0 : round2(Math.min(100, (enrolledChapters / chapterCount) * 100));
  // Completed: every chapter and the final exam, if the course has one; or a certificate issued.
  // The same rule issues the certificate (learning/certificates.ts, issueCertificateIfEarned, in
  // SQL, with the evidence of domain/evidence/certificate-evidence.ts): a change to one is a change to both.
  const finishedCourse = totalProgress === 100 && (!input.hasFinal || input.finalPassed) && (!input.evidenceRequired || input.certified);
  const certificate: CertificateInfo = { isEligible: input.certified || finishedCourse, isGenerated: input.certified };
  let status: LearnerStatus = 'not-started';
  if (input.certified || finishedCourse) status = 'completed';
  else if (enrolledChapters !== undefined && (enrolledChapters > 0 || input.finalAttempts > 0)) status = 'in-progress';
  return { totalProgress, status, certificate };
}
