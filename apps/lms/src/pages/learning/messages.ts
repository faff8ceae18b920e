import type { Format } from '../i18n/format.js';

// The words of enrolment and purchases on the pages (the course page's enrol section, the
// dashboard's approval and transfer lists), in Bahasa Indonesia (the reference) and English.
// Spread into the catalogs (../i18n/id.ts, ../i18n/en.ts) as their `enrol` and `purchase` blocks.

export function enrolMessagesId(f: Format) {
  return {
    enrol: {
      heading: 'Pendaftaran',
      enrolledSince: (date: string) => `Anda terdaftar di kursus ini sejak ${date}.`,
      openText: 'Kursus ini terbuka: daftar sekarang untuk mulai belajar.',
      enrolButton: 'Daftar',
      codeText: 'Kursus ini memerlukan kode pendaftaran dari pengajar Anda.',
      codeLabel: 'Kode pendaftaran',
      noCodeYet: 'Kursus ini belum memiliki kode pendaftaran. Silakan hubungi pengajarnya.',
      approvalText: 'Kursus ini memerlukan persetujuan pengajar.',
      askButton: 'Minta bergabung',
      pendingRequest: (date: string) => `Permintaan Anda (${date}) sedang menunggu persetujuan pengajar.`,
      rejectedRequest: 'Permintaan Anda sebelumnya ditolak. Anda dapat meminta lagi.',
      flash: {
        enrolled: 'Anda sudah terdaftar. Selamat belajar!',
        requested: 'Permintaan Anda telah dikirim ke pengajar.',
        'wrong-code': 'Kode pendaftaran salah.',
        'code-required': 'Masukkan kode pendaftaran.',
        'payment-required': 'Kursus ini harus dibeli terlebih dahulu.',
        'purchase-started': 'Pembelian dibuat. Lakukan transfer sesuai petunjuk di bawah.',
        'nothing-to-buy': 'Tidak ada yang perlu dibayar untuk kursus ini.',
      },
      requests: {
        heading: 'Permintaan bergabung',
        none: 'Tidak ada permintaan yang menunggu.',
        learner: 'Peserta',
        course: 'Kursus',
        requested: 'Diminta',
        actions: 'Tindakan',
        approve: 'Setujui',
        reject: 'Tolak',
        approveLabel: (name: string, course: string) => `Setujui ${name} untuk ${course}`,
        rejectLabel: (name: string, course: string) => `Tolak ${name} untuk ${course}`,
      },
      forbidden: {
        crossSite: 'Formulir ini harus dikirim dari halaman LMS sendiri.',
        notAllowed: 'Akun Anda tidak diizinkan melakukan ini.',
      },
      decided: {
        approved: 'Permintaan disetujui: peserta sudah terdaftar.',
        rejected: 'Permintaan ditolak.',
        already: 'Permintaan ini sudah diputuskan sebelumnya.',
      },
    },
    purchase: {
      priceForYou: (amount: string) => `Harga untuk Anda: ${amount}.`,
      buyText: 'Bayar dengan transfer bank; admin mengonfirmasi pembayaran lalu Anda langsung terdaftar.',
      buyButton: 'Beli (transfer bank)',
      pendingHeading: 'Menunggu pembayaran',
      transfer: (amount: string) => `Transfer tepat ${amount}`,
      toAccount: 'Ke rekening',
      institutionAccount: 'Rekening lembaga (tanyakan kepada admin)',
      reference: 'Tulis di berita transfer',
      waiting: 'Admin akan mengonfirmasi setelah dana diterima; Anda lalu terdaftar otomatis.',
      pending: {
        heading: 'Transfer menunggu konfirmasi',
        none: 'Tidak ada transfer yang menunggu konfirmasi.',
        buyer: 'Pembeli',
        item: 'Kursus atau paket',
        amount: 'Jumlah',
        reference: 'Referensi',
        created: 'Dibuat',
        action: 'Tindakan',
        confirm: 'Konfirmasi diterima',
        confirmLabel: (reference: string) => `Konfirmasi transfer ${reference}`,
      },
      confirmed: {
        done: 'Pembayaran dikonfirmasi: pembeli sudah terdaftar.',
        already: 'Pembelian ini sudah dikonfirmasi sebelumnya.',
      },
      money: (amount: string, currency: string) => f.money(Number(amount), currency),
    },
  };
}

export type EnrolMessages = ReturnType<typeof enrolMessagesId>;

export function enrolMessagesEn(f: Format): EnrolMessages {
  return {
    enrol: {
      heading: 'Enrolment',
      enrolledSince: (date) => `You have been enrolled in this course since ${date}.`,
      openText: 'This course is open: enrol now to start learning.',
      enrolButton: 'Enrol',
      codeText: 'This course needs the enrolment code from your teacher.',
      codeLabel: 'Enrolment code',
      noCodeYet: 'This course has no enrolment code yet. Please contact its teacher.',
      approvalText: "This course needs the teacher's approval.",
      askButton: 'Ask to join',
      pendingRequest: (date) => `Your request (${date}) is waiting for the teacher's approval.`,
      rejectedRequest: 'Your previous request was rejected. You may ask again.',
      flash: {
        enrolled: 'You are enrolled. Enjoy the course!',
        requested: 'Your request was sent to the teacher.',
        'wrong-code': 'The enrolment code is wrong.',
        'code-required': 'Please enter the enrolment code.',
        'payment-required': 'This course must be bought first.',
        'purchase-started': 'Purchase created. Make the transfer as shown below.',
        'nothing-to-buy': 'There is nothing to pay for this course.',
      },
      requests: {
        heading: 'Requests to join',
        none: 'No requests are waiting.',
        learner: 'Learner',
        course: 'Course',
        requested: 'Requested',
        actions: 'Actions',
        approve: 'Approve',
        reject: 'Reject',
        approveLabel: (name, course) => `Approve ${name} for ${course}`,
        rejectLabel: (name, course) => `Reject ${name} for ${course}`,
      },
      forbidden: {
        crossSite: "This form must be sent from the LMS's own pages.",
        notAllowed: 'Your account is not allowed to do this.',
      },
      decided: {
        approved: 'Request approved: the learner is enrolled.',
        rejected: 'Request rejected.',
        already: 'This request was already decided.',
      },
    },
    purchase: {
      priceForYou: (amount) => `Your price: ${amount}.`,
      buyText: 'Pay by bank transfer; an admin confirms the payment and you are enrolled at once.',
      buyButton: 'Buy (bank transfer)',
      pendingHeading: 'Waiting for payment',
      transfer: (amount) => `Transfer exactly ${amount}`,
      toAccount: 'To the account',
      institutionAccount: "The institution's account (ask an admin)",
      reference: 'Write in the transfer description',
      waiting: 'An admin confirms once the money arrives; you are then enrolled automatically.',
      pending: {
        heading: 'Transfers waiting for confirmation',
        none: 'No transfers are waiting for confirmation.',
        buyer: 'Buyer',
        item: 'Course or bundle',
        amount: 'Amount',
        reference: 'Reference',
        created: 'Created',
        action: 'Action',
        confirm: 'Confirm received',
        confirmLabel: (reference) => `Confirm transfer ${reference}`,
      },
      confirmed: {
        done: 'Payment confirmed: the buyer is enrolled.',
        already: 'This purchase was already confirmed.',
      },
      money: (amount, currency) => f.money(Number(amount), currency),
    },
  };
}
