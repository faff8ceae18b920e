import type { CertificateEvidence } from '@lms/db';

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
