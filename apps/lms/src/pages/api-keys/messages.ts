import { API_KEY_SHOWN_ONCE_WARNING } from '@lms/contracts';
import type { ApiKeysScriptMessages } from '../client/api-keys-page.js';
import { html } from '../view/html.js';

// The words of the API keys page (./index.ts) and its script (../client/dashboard.ts), in Bahasa
// Indonesia (the reference) and English: spread into the catalogs (../i18n/id.ts, ../i18n/en.ts) as
// their `apiKeys` block.

export function apiKeysMessagesId() {
  return {
    apiKeys: {
      title: 'Kunci API',
      intro: html`Dengan kunci API, sistem Anda sendiri dapat membaca katalog (<code>GET /api/courses</code>) dan metrik kemajuan. Kirim kunci di header <code>x-api-key</code>. Jaga kerahasiaan kunci seperti kata sandi.`,
      create: 'Buat kunci',
      name: 'Nama',
      namePlaceholder: 'mis. Integrasi situs web',
      submit: 'Buat kunci',
      newKey: html`Kunci baru Anda <span id="new-key-name"></span>:`,
      copy: 'Salin kunci',
      shownOnce:
        'Salin kunci ini sekarang: kunci tidak akan ditampilkan lagi. Kami hanya menyimpan hash-nya; jika kunci hilang, cabut lalu buat kunci baru.',
      yourKeys: 'Kunci Anda',
      column: { name: 'Nama', prefix: 'Awalan', created: 'Dibuat', lastUsed: 'Terakhir dipakai', state: 'Status' },
      none: 'Anda belum memiliki kunci API.',
      teachersOnly: 'Kunci API hanya untuk akun pengajar.',
      /**
       * The texts of the page and of its script (../client/dashboard.ts), which receives them as
       * a data attribute: plain strings whose `{name}`-style placeholders both fill in.
       */
      script: {
        never: 'Belum pernah',
        revoke: 'Cabut',
        revoked: 'Dicabut {date}',
        nameRequired: 'Beri nama untuk kunci ini.',
        copied: 'Tersalin.',
        selectToCopy: 'Sudah dipilih: tekan Ctrl+C (atau Cmd+C) untuk menyalin.',
        confirmRevoke: 'Cabut kunci "{name}"? Sistem yang memakainya akan langsung berhenti bekerja. Tindakan ini tidak dapat dibatalkan.',
        sessionEnded: 'Sesi Anda telah berakhir. Silakan masuk lagi.',
        badName: 'Nama kunci tidak diterima: gunakan 1 sampai 100 karakter.',
        notAllowed: 'Akun Anda tidak diizinkan melakukan ini.',
        notFound: 'Kunci ini tidak ditemukan. Muat ulang halaman untuk melihat keadaan terbaru.',
        tooManyRequests: 'Terlalu banyak permintaan. Silakan coba lagi sebentar lagi.',
        failed: 'Permintaan gagal (kode {status}). Silakan coba lagi.',
        offline: 'Server tidak dapat dihubungi. Periksa koneksi Anda lalu coba lagi.',
      } satisfies ApiKeysScriptMessages,
    },
  };
}

export function apiKeysMessagesEn(): ReturnType<typeof apiKeysMessagesId> {
  return {
    apiKeys: {
      title: 'API keys',
      intro: html`API keys let your own systems read the catalog (<code>GET /api/courses</code>) and the progress metrics. Send the key in the <code>x-api-key</code> header. Treat a key like a password.`,
      create: 'Create a key',
      name: 'Name',
      namePlaceholder: 'e.g. Website integration',
      submit: 'Create key',
      newKey: html`Your new key <span id="new-key-name"></span>:`,
      copy: 'Copy key',
      shownOnce: API_KEY_SHOWN_ONCE_WARNING,
      yourKeys: 'Your keys',
      column: { name: 'Name', prefix: 'Prefix', created: 'Created', lastUsed: 'Last used', state: 'State' },
      none: 'You have no API keys yet.',
      teachersOnly: 'API keys are for teacher accounts.',
      script: {
        never: 'Never',
        revoke: 'Revoke',
        revoked: 'Revoked {date}',
        nameRequired: 'Give the key a name.',
        copied: 'Copied.',
        selectToCopy: 'Selected: press Ctrl+C (or Cmd+C) to copy.',
        confirmRevoke: 'Revoke the key "{name}"? Systems using it will stop working at once. This cannot be undone.',
        sessionEnded: 'Your session has ended. Please sign in again.',
        badName: 'The key name was not accepted: use 1 to 100 characters.',
        notAllowed: 'Your account may not do this.',
        notFound: 'This key was not found. Reload the page to see how things stand.',
        tooManyRequests: 'Too many requests. Please try again in a moment.',
        failed: 'The request failed (status {status}). Please try again.',
        offline: 'The server could not be reached. Check your connection and try again.',
      },
    },
  };
}
