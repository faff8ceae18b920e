import type { NotificationData, NotificationKind } from '../../notifications/contract.js';
import type { Format } from './format.js';

// The words of the notifications (e-mail; the WhatsApp templates are approved apart), in Bahasa
// Indonesia (the reference, here) and English (./notification-messages-en.ts), written the way
// the pages' are: a sentence is one message, numbers, money and times go through `f` (Intl, in
// the person's language and time zone: "Rp 350.000", "22 Nov 2026, 17.05 WIB"). Each kind gives
// what a person reads, as plain text; ../../notifications/templates/ lays it out as the text and
// the HTML part and escapes every value in the HTML.

/** One notification's words: what happened and what to do, then the one thing to press. */
export interface MailWords {
  subject: string;
  /** Short paragraphs: what happened, then what to do. */
  paragraphs: string[];
  /** Label and value pairs (an account number, an amount), shown as a small table. */
  details?: [label: string, value: string][];
  /** A list (a digest's lines). */
  lines?: string[];
  /** The main link. */
  action: { label: string; url: string };
  /** Other links (a certificate's PDF). */
  more?: { label: string; url: string }[];
}

export type NotificationMessages = {
  [K in NotificationKind]: (data: NotificationData[K]) => MailWords;
} & {
  common: {
    greeting: string;
    /** Before the main link written out, for a mail program that shows no button. */
    orOpen: string;
    details: string;
    /** The footer: why this came, and where to change it. */
    why: string;
    settings: string;
    unsubscribe: string;
  };
};

/** A moment in the person's zone ("22 Nov 2026, 17.05 WIB"); the raw text if it is no date. */
export const when = (f: Format, iso: string) => f.dateTime(iso) ?? iso;
export const rupiah = (f: Format, amount: number) => f.money(amount, 'IDR');

export function notificationMessagesId(f: Format): NotificationMessages {
  const days = (n: number) => `${f.number(n)} hari`;
  return {
    common: {
      greeting: 'Halo,',
      orOpen: 'Jika tombol di atas tidak berfungsi, buka tautan ini:',
      details: 'Rinciannya',
      why: 'Anda menerima e-mail ini karena memiliki akun di LMS.',
      settings: 'Atur pemberitahuan Anda',
      unsubscribe: 'Berhenti menerima e-mail seperti ini',
    },
    'enrolment.confirmed': (d) => ({
      subject: `Anda terdaftar di ${d.courseTitle}`,
      paragraphs: [
        `Pendaftaran Anda di kursus ${d.courseTitle} sudah kami terima.`,
        'Anda bisa mulai belajar kapan saja. Selamat belajar!',
      ],
      action: { label: 'Mulai belajar', url: d.courseUrl },
    }),
    'purchase.transfer_instructions': (d) => ({
      subject: `Cara membayar ${d.itemTitle}`,
      paragraphs: [
        `Terima kasih telah membeli ${d.itemTitle}. Silakan transfer ${rupiah(f, d.amount)} ke rekening di bawah ini sebelum ${when(f, d.payBefore)}.`,
        `Tulis kode ${d.reference} di berita transfer agar pembayaran Anda cepat kami temukan. Kursus terbuka setelah pembayaran dikonfirmasi.`,
      ],
      details: [
        ['Bank', d.bankName],
        ['Nomor rekening', d.accountNumber],
        ['Atas nama', d.accountName],
        ['Jumlah', rupiah(f, d.amount)],
        ['Berita transfer', d.reference],
        ['Bayar sebelum', when(f, d.payBefore)],
      ],
      action: { label: 'Lihat pembelian Anda', url: d.purchaseUrl },
    }),
    'purchase.paid': (d) => ({
      subject: `Pembayaran diterima: ${d.itemTitle}`,
      paragraphs: [
        `Pembayaran Anda sebesar ${rupiah(f, d.amount)} untuk ${d.itemTitle} sudah kami terima. Terima kasih!`,
        'Kursusnya sudah terbuka untuk Anda.',
      ],
      action: { label: 'Buka kursus', url: d.courseUrl },
    }),
    'purchase.rejected': (d) => ({
      subject: `Pembayaran belum bisa dikonfirmasi: ${d.itemTitle}`,
      paragraphs: [
        `Maaf, pembayaran ${rupiah(f, d.amount)} untuk ${d.itemTitle} belum bisa kami konfirmasi.`,
        `Alasannya: ${d.reason}`,
        'Buka pembelian Anda untuk melihat langkah selanjutnya.',
      ],
      action: { label: 'Lihat pembelian Anda', url: d.purchaseUrl },
    }),
    'purchase.refunded': (d) => ({
      subject: `Dana dikembalikan: ${d.itemTitle}`,
      paragraphs: [`Pembayaran Anda sebesar ${rupiah(f, d.amount)} untuk ${d.itemTitle} sudah kami kembalikan.`, `Alasannya: ${d.reason}`],
      action: { label: 'Lihat pembelian Anda', url: d.purchaseUrl },
    }),
    'purchase.expiring': (d) => ({
      subject: `Pengingat: bayar ${d.itemTitle} sebelum ${when(f, d.payBefore)}`,
      paragraphs: [
        `Pembelian ${d.itemTitle} masih menunggu pembayaran sebesar ${rupiah(f, d.amount)}.`,
        `Jika belum dibayar sebelum ${when(f, d.payBefore)}, pembelian ini dibatalkan otomatis. Jangan lupa menulis kode ${d.reference} di berita transfer.`,
      ],
      action: { label: 'Lihat cara membayar', url: d.purchaseUrl },
    }),
    'certificate.issued': (d) => ({
      subject: `Selamat! Sertifikat ${d.courseTitle} sudah terbit`,
      paragraphs: [
        `Selamat, Anda telah menyelesaikan ${d.courseTitle}. Sertifikat Anda sudah terbit.`,
        'Anda bisa mengunduh PDF-nya, atau membagikan kredensial digitalnya kepada siapa saja yang perlu memeriksanya.',
      ],
      action: { label: 'Lihat sertifikat', url: d.certificateUrl },
      more: [
        { label: 'Unduh PDF', url: d.pdfUrl },
        { label: 'Kredensial digital (Open Badges)', url: d.credentialUrl },
      ],
    }),
    'attempt.granted': (d) => ({
      subject: `Kesempatan baru untuk ${d.quizTitle}`,
      paragraphs: [
        `Pengajar Anda memberi kesempatan tambahan untuk mengerjakan ${d.quizTitle} di kursus ${d.courseTitle}.`,
        'Semoga berhasil!',
      ],
      action: { label: 'Kerjakan kuis', url: d.quizUrl },
    }),
    'course.ending': (d) => ({
      subject: d.daysLeft <= 0 ? `${d.courseTitle} berakhir hari ini` : `${d.courseTitle} berakhir dalam ${days(d.daysLeft)}`,
      paragraphs: [
        `Kursus ${d.courseTitle} berakhir pada ${when(f, d.endsAt)}.`,
        d.progressPercent >= 100
          ? 'Anda sudah menyelesaikan semuanya. Anda masih bisa membuka materinya sampai kursus berakhir.'
          : `Anda sudah menyelesaikan ${f.percent(d.progressPercent)}. Masih ada waktu untuk menuntaskannya.`,
      ],
      action: { label: 'Lanjutkan belajar', url: d.courseUrl },
    }),
    'course.inactive': (d) => ({
      subject: `Lanjutkan belajar ${d.courseTitle}`,
      paragraphs: [
        `Sudah ${days(d.daysInactive)} Anda tidak membuka ${d.courseTitle}.`,
        'Sedikit demi sedikit tetap berarti: lanjutkan dari bagian terakhir yang Anda buka.',
      ],
      action: { label: 'Lanjutkan belajar', url: d.courseUrl },
    }),
    'credits.progress': (d) => ({
      subject: `Angka kredit ${d.year}: ${f.number(d.earned)} dari ${f.number(d.target)} ${d.unit}`,
      paragraphs: [
        `Tahun ${d.year} Anda sudah mengumpulkan ${f.number(d.earned)} dari ${f.number(d.target)} ${d.unit} yang diminta ${d.partnerName}.`,
        d.earned >= d.target
          ? 'Target tahun ini sudah tercapai. Selamat!'
          : `Masih kurang ${f.number(d.target - d.earned)} ${d.unit}. Lihat kursus yang bisa menambah angka kredit Anda.`,
      ],
      action: { label: 'Lihat angka kredit Anda', url: d.creditsUrl },
    }),
    'digest.admin': (d) => ({
      subject: `${d.institutionName}: ${f.number(d.pendingTransfers)} transfer menunggu konfirmasi`,
      paragraphs: [
        d.stuckPayments > 0
          ? `Ada ${f.number(d.pendingTransfers)} transfer yang menunggu konfirmasi Anda dan ${f.number(d.stuckPayments)} pembayaran yang tertahan.`
          : `Ada ${f.number(d.pendingTransfers)} transfer yang menunggu konfirmasi Anda.`,
        'Peserta baru bisa belajar setelah pembayarannya Anda konfirmasi.',
      ],
      lines: d.lines,
      action: { label: 'Periksa transfer', url: d.transfersUrl },
    }),
    'digest.teacher': (d) => ({
      subject: `Kursus Anda: ${f.number(d.newLearners)} peserta baru, ${f.number(d.evaluationComments)} komentar evaluasi`,
      paragraphs: [
        `Sejak ringkasan terakhir, kursus Anda mendapat ${f.number(d.newLearners)} peserta baru dan ${f.number(d.evaluationComments)} komentar evaluasi.`,
      ],
      lines: d.lines,
      action: { label: 'Buka studio', url: d.studioUrl },
    }),
  };
}
