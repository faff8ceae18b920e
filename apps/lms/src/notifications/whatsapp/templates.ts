import { LOCALES } from '../../pages/i18n/index.js';
import { Format, type PluralForms } from '../../pages/i18n/format.js';
import type { NotificationData, NotificationKind, NotificationLocale, OutgoingWhatsApp } from '../contract.js';

// WhatsApp sends only templates Meta approved beforehand, outside a 24-hour window the person
// opened: each kind has one template (a name, a body per language with {{1}}, {{2}}... in order),
// submitted once by the operator (docs/operations.md, "WhatsApp set-up", whose table is this
// file's text: test/notifications/whatsapp/templates.test.ts holds one to the other). Here each
// kind's data becomes the body's parameters, in order, written for the person's language and time
// zone by the pages' formatters (pages/i18n/format.ts).

export interface WhatsAppTemplate {
  /** The template's name at Meta: lowercase letters, digits and underscores. */
  name: string;
  /** Meta's category: receipts, reminders and digests are utility; a one-time code is authentication. */
  category: 'UTILITY' | 'AUTHENTICATION';
  /** What each parameter is, in order (for the operator's table). */
  parameters: readonly string[];
  /** The body to submit per language: {{n}} is parameter n. */
  text: Record<NotificationLocale, string>;
}

type Values<K extends NotificationKind> = (data: NotificationData[K], f: Format, locale: NotificationLocale) => string[];
type KindTemplate<K extends NotificationKind> = WhatsAppTemplate & { values: Values<K> };

/** "3 days" / "3 hari": a count with its word, by the locale's plural rules. */
const counted = (forms: Record<NotificationLocale, PluralForms>) => (n: number, f: Format, locale: NotificationLocale) =>
  f.plural(n, forms[locale]);
const days = counted({ en: { one: '# day', other: '# days' }, id: { other: '# hari' } });
const transfers = counted({ en: { one: '# transfer', other: '# transfers' }, id: { other: '# transfer' } });
const payments = counted({ en: { one: '# payment', other: '# payments' }, id: { other: '# pembayaran' } });
const learners = counted({ en: { one: '# new learner', other: '# new learners' }, id: { other: '# peserta baru' } });
const comments = counted({ en: { one: '# evaluation comment', other: '# evaluation comments' }, id: { other: '# komentar evaluasi' } });
const rupiah = (amount: number, f: Format) => f.money(amount, 'IDR');
/** A transfer account's part that is not set up: said, since Meta refuses an empty parameter. */
const orUnset = (value: string, locale: NotificationLocale) =>
  value || (locale === 'id' ? '(tanyakan ke lembaga)' : '(ask the institution)');
const dateTime = (iso: string, f: Format) => f.dateTime(iso) ?? iso;

const SETTINGS_EN = 'You can turn these messages off in your notification settings.';
const SETTINGS_ID = 'Anda dapat mematikan pesan ini di pengaturan notifikasi.';

const KIND_TEMPLATES: { [K in NotificationKind]: KindTemplate<K> } = {
  'enrolment.confirmed': {
    name: 'lms_enrolment_confirmed',
    category: 'UTILITY',
    parameters: ['courseTitle', 'courseUrl'],
    text: {
      id: 'Anda sudah terdaftar di kursus {{1}}. Mulai belajar: {{2}}\n\nSelamat belajar!',
      en: 'You are enrolled in {{1}}. Start learning: {{2}}\n\nEnjoy the course!',
    },
    values: (d) => [d.courseTitle, d.courseUrl],
  },
  'purchase.transfer_instructions': {
    name: 'lms_purchase_transfer_instructions',
    category: 'UTILITY',
    parameters: ['itemTitle', 'amount', 'reference', 'bankName', 'accountNumber', 'accountName', 'payBefore', 'purchaseUrl'],
    text: {
      id:
        'Pesanan Anda untuk {{1}} menunggu pembayaran.\nJumlah: {{2}}\nReferensi transfer: {{3}}\nBank: {{4}}\n' +
        'Nomor rekening: {{5}}\nAtas nama: {{6}}\nBayar sebelum {{7}}. Rincian: {{8}}\n\nCantumkan referensi pada berita transfer.',
      en:
        'Your order for {{1}} is waiting for payment.\nAmount: {{2}}\nTransfer reference: {{3}}\nBank: {{4}}\n' +
        'Account number: {{5}}\nAccount name: {{6}}\nPay before {{7}}. Details: {{8}}\n\nPlease write the reference in the transfer.',
    },
    values: (d, f, l) => [
      d.itemTitle,
      rupiah(d.amount, f),
      d.reference,
      orUnset(d.bankName, l),
      orUnset(d.accountNumber, l),
      orUnset(d.accountName, l),
      dateTime(d.payBefore, f),
      d.purchaseUrl,
    ],
  },
  'purchase.paid': {
    name: 'lms_purchase_paid',
    category: 'UTILITY',
    parameters: ['itemTitle', 'amount', 'courseUrl'],
    text: {
      id: 'Pembayaran Anda untuk {{1}} ({{2}}) sudah kami terima. Kursus Anda sudah terbuka: {{3}}\n\nTerima kasih.',
      en: 'We received your payment for {{1}} ({{2}}). Your course is open: {{3}}\n\nThank you.',
    },
    values: (d, f) => [d.itemTitle, rupiah(d.amount, f), d.courseUrl],
  },
  'purchase.rejected': {
    name: 'lms_purchase_rejected',
    category: 'UTILITY',
    parameters: ['itemTitle', 'amount', 'reason', 'purchaseUrl'],
    text: {
      id: 'Pembayaran Anda untuk {{1}} ({{2}}) tidak diterima. Alasan: {{3}}. Rincian: {{4}}\n\nHubungi lembaga Anda bila ini keliru.',
      en: 'Your payment for {{1}} ({{2}}) was not accepted. Reason: {{3}}. Details: {{4}}\n\nContact your institution if this is a mistake.',
    },
    values: (d, f) => [d.itemTitle, rupiah(d.amount, f), d.reason, d.purchaseUrl],
  },
  'purchase.refunded': {
    name: 'lms_purchase_refunded',
    category: 'UTILITY',
    parameters: ['itemTitle', 'amount', 'reason', 'purchaseUrl'],
    text: {
      id: 'Pembayaran Anda untuk {{1}} ({{2}}) telah dikembalikan. Alasan: {{3}}. Rincian: {{4}}\n\nDana masuk sesuai proses bank Anda.',
      en: 'Your payment for {{1}} ({{2}}) has been refunded. Reason: {{3}}. Details: {{4}}\n\nThe money arrives as your bank processes it.',
    },
    values: (d, f) => [d.itemTitle, rupiah(d.amount, f), d.reason, d.purchaseUrl],
  },
  'purchase.expiring': {
    name: 'lms_purchase_expiring',
    category: 'UTILITY',
    parameters: ['itemTitle', 'amount', 'reference', 'payBefore', 'purchaseUrl'],
    text: {
      id: 'Pengingat: pesanan Anda untuk {{1}} ({{2}}, referensi {{3}}) berakhir pada {{4}} bila belum dibayar. Rincian: {{5}}\n\nAbaikan pesan ini bila sudah membayar.',
      en: 'Reminder: your order for {{1}} ({{2}}, reference {{3}}) expires on {{4}} unless paid. Details: {{5}}\n\nIgnore this message if you have paid.',
    },
    values: (d, f) => [d.itemTitle, rupiah(d.amount, f), d.reference, dateTime(d.payBefore, f), d.purchaseUrl],
  },
  'certificate.issued': {
    name: 'lms_certificate_issued',
    category: 'UTILITY',
    parameters: ['courseTitle', 'certificateUrl', 'pdfUrl'],
    text: {
      id: 'Selamat! Sertifikat Anda untuk {{1}} sudah terbit. Lihat: {{2}}\nPDF: {{3}}\n\nSimpan pesan ini untuk menemukannya lagi.',
      en: 'Congratulations! Your certificate for {{1}} is issued. View it: {{2}}\nPDF: {{3}}\n\nKeep this message to find it again.',
    },
    values: (d) => [d.courseTitle, d.certificateUrl, d.pdfUrl],
  },
  'attempt.granted': {
    name: 'lms_attempt_granted',
    category: 'UTILITY',
    parameters: ['courseTitle', 'quizTitle', 'quizUrl'],
    text: {
      id: 'Di kursus {{1}}, Anda mendapat kesempatan baru untuk {{2}}. Coba lagi: {{3}}\n\nSemoga berhasil!',
      en: 'In {{1}}, you have a new attempt at {{2}}. Try again: {{3}}\n\nGood luck!',
    },
    values: (d) => [d.courseTitle, d.quizTitle, d.quizUrl],
  },
  'course.ending': {
    name: 'lms_course_ending',
    category: 'UTILITY',
    parameters: ['courseTitle', 'endsAt', 'daysLeft', 'progressPercent', 'courseUrl'],
    text: {
      id: `Kursus Anda {{1}} berakhir pada {{2}} (sisa {{3}}). Kemajuan Anda: {{4}}. Lanjutkan: {{5}}\n\n${SETTINGS_ID}`,
      en: `Your course {{1}} ends on {{2}} ({{3}} left). Your progress: {{4}}. Continue: {{5}}\n\n${SETTINGS_EN}`,
    },
    values: (d, f, l) => [d.courseTitle, f.day(d.endsAt) ?? d.endsAt, days(d.daysLeft, f, l), f.percent(d.progressPercent), d.courseUrl],
  },
  'course.inactive': {
    name: 'lms_course_inactive',
    category: 'UTILITY',
    parameters: ['courseTitle', 'daysInactive', 'courseUrl'],
    text: {
      id: `Anda belum membuka {{1}} selama {{2}}. Lanjutkan dari terakhir kali: {{3}}\n\n${SETTINGS_ID}`,
      en: `You have not opened {{1}} for {{2}}. Pick up where you left off: {{3}}\n\n${SETTINGS_EN}`,
    },
    values: (d, f, l) => [d.courseTitle, days(d.daysInactive, f, l), d.courseUrl],
  },
  'credits.progress': {
    name: 'lms_credits_progress',
    category: 'UTILITY',
    parameters: ['partnerName', 'year', 'earned', 'target', 'unit', 'creditsUrl'],
    text: {
      id: `Kredit {{1}} Anda tahun {{2}}: {{3}} dari {{4}} {{5}}. Lihat rinciannya: {{6}}\n\n${SETTINGS_ID}`,
      en: `Your {{1}} credits for {{2}}: {{3}} of {{4}} {{5}}. See them: {{6}}\n\n${SETTINGS_EN}`,
    },
    // The year as a year ("2026"), not a number ("2.026").
    values: (d, f) => [d.partnerName, String(d.year), f.number(d.earned), f.number(d.target), d.unit, d.creditsUrl],
  },
  'digest.admin': {
    name: 'lms_digest_admin',
    category: 'UTILITY',
    parameters: ['institutionName', 'pendingTransfers', 'stuckPayments', 'transfersUrl'],
    // The lines stay in the e-mail: a WhatsApp parameter holds no line breaks.
    text: {
      id: `Ringkasan untuk {{1}}: menunggu konfirmasi {{2}}; tertahan {{3}}. Periksa: {{4}}\n\n${SETTINGS_ID}`,
      en: `Summary for {{1}}: waiting for confirmation {{2}}; stuck {{3}}. Review them: {{4}}\n\n${SETTINGS_EN}`,
    },
    values: (d, f, l) => [d.institutionName, transfers(d.pendingTransfers, f, l), payments(d.stuckPayments, f, l), d.transfersUrl],
  },
  'digest.teacher': {
    name: 'lms_digest_teacher',
    category: 'UTILITY',
    parameters: ['newLearners', 'evaluationComments', 'studioUrl'],
    text: {
      id: `Ringkasan mengajar Anda: {{1}} dan {{2}}. Buka studio: {{3}}\n\n${SETTINGS_ID}`,
      en: `Your teaching summary: {{1}} and {{2}}. Open the studio: {{3}}\n\n${SETTINGS_EN}`,
    },
    values: (d, f, l) => [learners(d.newLearners, f, l), comments(d.evaluationComments, f, l), d.studioUrl],
  },
};

/**
 * The phone confirmation code (the settings' "confirm your number"): an authentication template,
 * whose body Meta writes itself (the text here is what it shows) and whose copy-code button the
 * sender fills with the code too (sender.ts).
 */
export const PHONE_CONFIRMATION_TEMPLATE: WhatsAppTemplate = {
  name: 'lms_phone_confirmation',
  category: 'AUTHENTICATION',
  parameters: ['code'],
  text: {
    id: '*{{1}}* adalah kode verifikasi Anda. Demi keamanan, jangan bagikan kode ini.',
    en: '*{{1}}* is your verification code. For your security, do not share this code.',
  },
};

/** Every template to submit to Meta: one per kind, then the phone confirmation. */
export const WHATSAPP_TEMPLATES: readonly WhatsAppTemplate[] = [
  ...Object.values(KIND_TEMPLATES).map(({ name, category, parameters, text }) => ({ name, category, parameters, text })),
  PHONE_CONFIRMATION_TEMPLATE,
];

export function isAuthenticationTemplate(name: string): boolean {
  return name === PHONE_CONFIRMATION_TEMPLATE.name;
}

/** Long free text (a title, a reason) is cut here; a body is at most 1024 characters at Meta. */
const MAX_TEXT_PARAMETER = 200;

/**
 * A value as Meta takes a parameter: no line breaks or tabs, never more than 4 spaces in a row
 * (else the send is refused: error 132018), never empty (131008), free text bounded.
 */
export function parameterText(value: string): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  if (flat === '') return '-';
  if (/^https?:\/\//.test(flat) || flat.length <= MAX_TEXT_PARAMETER) return flat;
  return `${flat.slice(0, MAX_TEXT_PARAMETER - 1)}…`;
}

const formats = new Map<string, Format>();
/** One Format per language and zone (each holds several Intl objects). */
function formatFor(locale: NotificationLocale, timeZone: string): Format {
  const key = `${locale} ${timeZone}`;
  let format = formats.get(key);
  if (!format) {
    format = new Format(LOCALES[locale].tag, timeZone);
    if (formats.size < 64) formats.set(key, format);
  }
  return format;
}

/** A kind's template with its parameters, written for the person's language and time zone (IANA). */
export function whatsAppTemplate<K extends NotificationKind>(
  kind: K,
  data: NotificationData[K],
  locale: NotificationLocale,
  timeZone: string,
): OutgoingWhatsApp['template'] {
  const template = KIND_TEMPLATES[kind] as KindTemplate<K>;
  const parameters = template.values(data, formatFor(locale, timeZone), locale).map(parameterText);
  return { name: template.name, language: locale, parameters };
}

/** The phone confirmation message: the code as the one parameter (and the copy-code button's). */
export function phoneConfirmationMessage(input: { to: string; code: string; locale: NotificationLocale; key: string }) {
  return {
    to: input.to,
    kind: 'phone_confirmation' as const,
    key: input.key,
    template: { name: PHONE_CONFIRMATION_TEMPLATE.name, language: input.locale, parameters: [input.code] },
  };
}
