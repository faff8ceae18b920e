import { notificationMessagesId } from '../notifications/messages.js';
import { apiKeysMessagesId } from '../api-keys/messages.js';
import { catalogMessagesId } from '../catalog/messages.js';
import { courseMessagesId } from '../course/messages.js';
import { dashboardMessagesId } from '../dashboard/messages.js';
import { reportMessagesId } from '../evidence/messages.js';
import { certificateMessagesId } from '../learning/certificate-messages.js';
import { creditMessagesId } from '../learning/credit-messages.js';
import { evidenceMessagesId } from '../learning/evidence-messages.js';
import { learnMessagesId } from '../learning/learn-messages.js';
import { enrolMessagesId } from '../learning/messages.js';
import { pathMessagesId } from '../learning/path-messages.js';
import { signInMessagesId } from '../sign-in/messages.js';
import { formErrorMessagesId } from '../form-error-messages.js';
import { studioMessagesId } from '../studio/messages.js';
import { studioWordsMessagesId } from '../studio/words-messages.js';
import { type Html, html } from '../view/html.js';
import type { Format } from './format.js';

/**
 * The pages in Bahasa Indonesia: the default language, and the reference of the catalog. Its
 * shape is the type `Messages` (below) that every other language must match key for key, so a
 * message missing in one language, or left over in one, stops the build.
 *
 * A message is a string, or a function of its parameters that returns a string, or `Html` where
 * a sentence holds a link or markup (written with the `html` template, which escapes every
 * parameter). A sentence is one message, never glued together from fragments in code. Numbers,
 * money, dates and plurals go through `f` (./format.ts: Intl); Indonesian has no plural forms,
 * so its plurals have only `other`.
 *
 * Adding a page: its words in `<feature>/messages.ts` beside it (`xxxMessagesId` and
 * `xxxMessagesEn`), spread here and in ./en.ts; the compiler lists what is missing. This file
 * keeps the words every page shares: the layout, the error pages, statuses, the pager.
 */
export function id(f: Format) {
  return {
    ...signInMessagesId(),
    ...notificationMessagesId(),
    ...dashboardMessagesId(f),
    ...catalogMessagesId(f),
    ...courseMessagesId(f),
    ...apiKeysMessagesId(),
    ...enrolMessagesId(f),
    ...creditMessagesId(f),
    ...reportMessagesId(f),
    ...studioMessagesId(),
    ...formErrorMessagesId(),
    ...studioWordsMessagesId((amount, currency) => f.money(amount, currency)),
    ...pathMessagesId(f),
    ...learnMessagesId(f),
    ...certificateMessagesId(f),
    ...evidenceMessagesId(f),
    layout: {
      title: (title: string) => `${title} · LMS`,
      skipToContent: 'Langsung ke konten',
      mainNav: 'Menu utama',
      dashboard: 'Dasbor',
      catalog: 'Katalog',
      bundles: 'Paket',
      apiKeys: 'Kunci API',
      signedInAs: (name: string): Html => html`<span class="sr-only">Masuk sebagai </span>${name}`,
      signOut: 'Keluar',
      language: 'Bahasa',
    },

    /** The error pages; 503 is the page of a database outage. */
    errorPages: {
      403: { title: 'Tidak diizinkan', text: 'Akun Anda tidak dapat membuka halaman ini.' },
      404: { title: 'Halaman tidak ditemukan', text: 'Halaman ini tidak ada, atau tidak dapat Anda lihat.' },
      413: {
        title: 'Kiriman terlalu besar',
        text: 'Isi formulir ini lebih besar dari yang dapat diterima. Kembali, persingkat, lalu kirim lagi.',
      },
      429: {
        title: 'Terlalu banyak permintaan',
        text: 'Terlalu banyak permintaan dari Anda atau dari alamat Anda dalam waktu singkat. Silakan tunggu sebentar, lalu coba lagi.',
      },
      500: { title: 'Terjadi kesalahan', text: 'Halaman ini belum dapat ditampilkan. Silakan coba lagi sebentar lagi.' },
      503: {
        title: 'Layanan sedang tidak tersedia',
        text: 'Layanan kami sedang mengalami gangguan sementara. Silakan coba lagi dalam beberapa menit.',
      },
    },
    errors: {
      backToDashboard: 'Kembali ke dasbor Anda',
      howToSignIn: 'Cara masuk',
    },

    /** A learner's status in a course (the catalog's `status`). */
    status: { 'not-started': 'Belum mulai', 'in-progress': 'Sedang berjalan', completed: 'Selesai' },
    /** A member's price tier (`tier`). */
    tier: { anggota: 'Anggota', umum: 'Umum', mahasiswa: 'Mahasiswa' },
    certificate: { issued: 'Sudah terbit', eligible: 'Memenuhi syarat', notYet: 'Belum' },
    common: {
      none: 'Tidak ada',
      progressOf: (name: string) => `Kemajuan ${name}`,
      kum: (n: number) => `${f.number(n)} KUM`,
      modules: (n: number) => f.plural(n, { other: '# modul' }),
      chapters: (n: number) => f.plural(n, { other: '# bab' }),
      students: (n: number) => f.plural(n, { other: '# peserta' }),
      questions: (n: number) => f.plural(n, { other: '# soal' }),
      /** The note on a page's query parameters that were not valid and were ignored. */
      ignored: (fields: string[]) => `Nilai yang tidak valid diabaikan untuk: ${f.list(fields)}.`,
      pager: {
        label: 'Halaman',
        previous: 'Sebelumnya',
        next: 'Berikutnya',
        pageOf: (page: number, pages: number) => `Halaman ${f.number(page)} dari ${f.number(pages)}`,
      },
    },
  };
}

/** Every message of the pages, as the Indonesian catalog has them. */
export type Messages = ReturnType<typeof id>;
