import type { Locale } from '../i18n/index.js';

// The words of the partner webhooks pages (./index.ts), in Bahasa Indonesia (the reference) and
// English. Not spread into the catalogs: a page for super_admins, with words (URL, HTTP, ms) the
// same in both languages, which the catalogs' check (test/pages/languages.test.ts) refuses.

export function webhooksMessagesId() {
  return {
    webhooks: {
      title: 'Webhook mitra',
      intro: 'Peristiwa (pendaftaran, kelulusan, sertifikat, pembayaran) dikirim ke endpoint mitra, ditandatangani (Standard Webhooks).',
      none: 'Belum ada endpoint.',
      partner: 'Mitra',
      url: 'URL',
      events: 'Peristiwa',
      state: 'Status',
      pending: 'Antre',
      actions: 'Tindakan',
      active: 'Aktif',
      failing: (since: string) => `Aktif, gagal sejak ${since}`,
      disabled: (why: string) => `Nonaktif: ${why}`,
      add: 'Tambah endpoint',
      issuer: 'Issuer mitra (domain)',
      allEvents: 'Semua peristiwa',
      addButton: 'Tambah',
      secretOnce: 'Rahasia penandatanganan (hanya ditampilkan sekali; simpan di sistem mitra):',
      rotate: 'Ganti rahasia',
      disable: 'Nonaktifkan',
      enable: 'Aktifkan',
      replaySince: 'Kirim ulang sejak',
      replay: 'Kirim ulang',
      log: 'Log pengiriman',
      logTitle: (id: number) => `Log pengiriman endpoint ${id}`,
      time: 'Waktu',
      event: 'Peristiwa',
      result: 'Hasil',
      status: 'HTTP',
      latency: 'ms',
      answer: 'Jawaban',
      noAttempts: 'Belum ada percobaan.',
      back: 'Kembali ke webhook',
      flash: {
        added: 'Endpoint ditambahkan.',
        rotated: 'Rahasia baru dibuat; rahasia lama tetap berlaku 24 jam.',
        disabled: 'Endpoint dinonaktifkan.',
        enabled: 'Endpoint diaktifkan.',
        replayed: 'Pengiriman diantrekan ulang.',
        invalid: 'Isian tidak sah: periksa issuer, URL (https, alamat publik) dan waktu.',
      },
    },
  };
}

export function webhooksMessagesEn(): ReturnType<typeof webhooksMessagesId> {
  return {
    webhooks: {
      title: 'Partner webhooks',
      intro: 'Events (enrolments, completions, certificates, payments) are sent to partners’ endpoints, signed (Standard Webhooks).',
      none: 'No endpoints yet.',
      partner: 'Partner',
      url: 'URL',
      events: 'Events',
      state: 'State',
      pending: 'Queued',
      actions: 'Actions',
      active: 'Active',
      failing: (since: string) => `Active, failing since ${since}`,
      disabled: (why: string) => `Disabled: ${why}`,
      add: 'Add an endpoint',
      issuer: 'Partner issuer (domain)',
      allEvents: 'All events',
      addButton: 'Add',
      secretOnce: "Signing secret (shown once; keep it in the partner's system):",
      rotate: 'Rotate secret',
      disable: 'Disable',
      enable: 'Enable',
      replaySince: 'Replay since',
      replay: 'Replay',
      log: 'Delivery log',
      logTitle: (id: number) => `Delivery log of endpoint ${id}`,
      time: 'Time',
      event: 'Event',
      result: 'Result',
      status: 'HTTP',
      latency: 'ms',
      answer: 'Answer',
      noAttempts: 'No attempts yet.',
      back: 'Back to webhooks',
      flash: {
        added: 'Endpoint added.',
        rotated: 'New secret made; the old one stays valid for 24 h.',
        disabled: 'Endpoint disabled.',
        enabled: 'Endpoint enabled.',
        replayed: 'Deliveries queued again.',
        invalid: 'Not valid: check the issuer, the URL (https, a public address) and the time.',
      },
    },
  };
}

const WORDS = { id: webhooksMessagesId().webhooks, en: webhooksMessagesEn().webhooks };

/** The webhooks pages' words in the person's language. */
export const webhooksWords = (ctx: { locale: Locale }) => WORDS[ctx.locale === 'id' ? 'id' : 'en'];
