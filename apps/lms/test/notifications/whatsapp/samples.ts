import type { NotificationData, NotificationKind } from '../../../src/notifications/contract.js';

/** One notification's data per kind, as the parts that decide to send give it (amounts in whole rupiah, times ISO 8601). */
export const SAMPLE_DATA: { [K in NotificationKind]: NotificationData[K] } = {
  'enrolment.confirmed': { courseTitle: 'Farmakologi Dasar', courseUrl: 'https://lms.test/learn/7' },
  'purchase.transfer_instructions': {
    itemTitle: 'Farmakologi Dasar',
    amount: 1250000,
    reference: 'INV-7Q2K',
    bankName: 'BCA',
    accountNumber: '1234567890',
    accountName: 'PT Belajar',
    payBefore: '2026-11-30T10:05:00Z',
    purchaseUrl: 'https://lms.test/learn/purchases/42',
  },
  'purchase.paid': { itemTitle: 'Farmakologi Dasar', amount: 350000, courseUrl: 'https://lms.test/learn/7' },
  'purchase.rejected': {
    itemTitle: 'Farmakologi Dasar',
    amount: 350000,
    reason: 'Transfer not found',
    purchaseUrl: 'https://lms.test/learn/purchases/42',
  },
  'purchase.refunded': {
    itemTitle: 'Farmakologi Dasar',
    amount: 350000,
    reason: 'Course cancelled',
    purchaseUrl: 'https://lms.test/learn/purchases/42',
  },
  'purchase.expiring': {
    itemTitle: 'Farmakologi Dasar',
    amount: 350000,
    reference: 'INV-7Q2K',
    payBefore: '2026-11-30T10:05:00Z',
    purchaseUrl: 'https://lms.test/learn/purchases/42',
  },
  'certificate.issued': {
    courseTitle: 'Farmakologi Dasar',
    certificateUrl: 'https://lms.test/certificates/AB12',
    pdfUrl: 'https://lms.test/certificates/AB12/pdf',
    credentialUrl: 'https://lms.test/credentials/AB12',
  },
  'attempt.granted': { courseTitle: 'Farmakologi Dasar', quizTitle: 'Ujian Akhir', quizUrl: 'https://lms.test/learn/7/quiz/3' },
  'course.ending': {
    courseTitle: 'Farmakologi Dasar',
    courseUrl: 'https://lms.test/learn/7',
    endsAt: '2026-12-20T16:59:59Z',
    daysLeft: 1,
    progressPercent: 62.5,
  },
  'course.inactive': { courseTitle: 'Farmakologi Dasar', courseUrl: 'https://lms.test/learn/7', daysInactive: 14 },
  'credits.progress': {
    year: 2026,
    earned: 12.5,
    target: 25,
    unit: 'SKP',
    partnerName: 'IAI',
    creditsUrl: 'https://lms.test/learn/credits',
  },
  'digest.admin': {
    institutionName: 'Universitas Contoh',
    pendingTransfers: 3,
    stuckPayments: 1,
    lines: ['INV-7Q2K · Rp 350.000 · Budi', 'INV-9X1A · Rp 1.250.000 · Sari'],
    transfersUrl: 'https://lms.test/dashboard/transfers',
  },
  'digest.teacher': {
    newLearners: 1,
    evaluationComments: 4,
    lines: ['Farmakologi Dasar: "Sangat jelas"'],
    studioUrl: 'https://lms.test/studio',
  },
};
