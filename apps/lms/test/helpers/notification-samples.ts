import type { NotificationData, NotificationKind } from '../../src/notifications/contract.js';

// One notification of every kind, its text values hostile (markup, quotes, an ampersand) so that
// any value left unescaped in an HTML part shows, and its URLs distinct, so that each can be found.

export const HOSTILE = 'Audit <script>alert(1)</script> & "Forensik" <img src=x onerror=alert(2)>';
export const url = (path: string) => `https://lms.test/${path}`;

export const SAMPLES: { [K in NotificationKind]: NotificationData[K] } = {
  'enrolment.confirmed': { courseTitle: HOSTILE, courseUrl: url('courses/7') },
  'purchase.transfer_instructions': {
    itemTitle: HOSTILE,
    amount: 350_000,
    reference: 'INV-7Q2K',
    bankName: 'Bank <BCA>',
    accountNumber: '123 456 7890',
    accountName: 'PT Ilmu & Amal',
    payBefore: '2026-11-30T10:00:00Z',
    purchaseUrl: url('dashboard/purchases/42'),
  },
  'purchase.paid': { itemTitle: HOSTILE, amount: 350_000, courseUrl: url('courses/7') },
  'purchase.rejected': {
    itemTitle: HOSTILE,
    amount: 350_000,
    reason: 'Bukti <transfer> tidak terbaca',
    purchaseUrl: url('dashboard/purchases/42'),
  },
  'purchase.refunded': { itemTitle: HOSTILE, amount: 350_000, reason: 'Kelas <dibatalkan>', purchaseUrl: url('dashboard/purchases/42') },
  'purchase.expiring': {
    itemTitle: HOSTILE,
    amount: 1_250_000,
    reference: 'INV-9ZZZ',
    payBefore: '2026-12-01T16:30:00Z',
    purchaseUrl: url('dashboard/purchases/43'),
  },
  'certificate.issued': {
    courseTitle: HOSTILE,
    certificateUrl: url('certificates/ABC'),
    pdfUrl: url('certificates/ABC.pdf'),
    credentialUrl: url('credentials/ABC'),
  },
  'attempt.granted': { courseTitle: HOSTILE, quizTitle: 'Kuis <akhir>', quizUrl: url('courses/7/quizzes/3') },
  'course.ending': { courseTitle: HOSTILE, courseUrl: url('courses/7'), endsAt: '2026-12-20T16:59:00Z', daysLeft: 7, progressPercent: 40 },
  'course.inactive': { courseTitle: HOSTILE, courseUrl: url('courses/7'), daysInactive: 14 },
  'credits.progress': {
    year: 2026,
    earned: 12.5,
    target: 30,
    unit: 'SKP',
    partnerName: 'IAI <Pusat>',
    creditsUrl: url('dashboard/credits'),
  },
  'digest.admin': {
    institutionName: 'Ikatan <Akuntan>',
    pendingTransfers: 3,
    stuckPayments: 1,
    lines: ['INV-7Q2K · Rp 350.000 · Budi <b>', 'INV-8R3L · Rp 200.000 · Sari'],
    transfersUrl: url('dashboard/institution/transfers'),
  },
  'digest.teacher': {
    newLearners: 5,
    evaluationComments: 2,
    lines: ['Audit Forensik: Rina bergabung', 'Audit Forensik: "Materinya <jelas>"'],
    studioUrl: url('dashboard/studio'),
  },
};
