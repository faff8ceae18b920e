import type { Locale } from '../i18n/index.js';

// The words of the institution settings pages (./index.ts), in Bahasa Indonesia (the reference)
// and English.

export function institutionMessagesId() {
  return {
    institution: {
      nav: 'Lembaga',
      listTitle: 'Pengaturan lembaga',
      listIntro: 'Pilih lembaga yang pengaturannya ingin Anda ubah.',
      noInstitutions: 'Belum ada lembaga.',
      hasAccount: 'rekening transfer diatur',
      noAccountYet: 'rekening transfer belum diatur',
      title: (name: string) => `Pengaturan ${name}`,
      noInstitution: 'Akun Anda belum terhubung ke lembaga mana pun; minta operator menghubungkannya.',
      transferHeading: 'Rekening transfer',
      transferIntro:
        'Pembeli kursus lembaga ini mentransfer ke rekening ini; petunjuk transfer (juga pembelian yang sedang menunggu) langsung menampilkannya.',
      current: 'Rekening saat ini',
      none: 'Belum diatur: pembeli diminta untuk tidak mentransfer dulu.',
      bank: 'Nama bank',
      number: 'Nomor rekening',
      holder: 'Atas nama',
      save: 'Simpan rekening',
      clear: 'Hapus rekening',
      clearHelp: 'Setelah dihapus, petunjuk transfer meminta pembeli untuk tidak mentransfer dulu.',
      gatewaysHeading: 'Gateway pembayaran',
      gatewaysText:
        'Kunci gateway pembayaran (pembayaran daring) akan diatur di sini. Untuk sementara pembeli membayar dengan transfer bank.',
      saved: 'Rekening transfer disimpan.',
      cleared: 'Rekening transfer dihapus.',
      invalid: 'Rekening belum disimpan: perbaiki isian yang ditandai.',
      problem: {
        missing: 'Wajib diisi.',
        tooLong: (max: number) => `Paling banyak ${max} karakter.`,
        control: 'Berisi karakter yang tidak dapat dipakai (misalnya karakter kendali).',
      },
      backToList: 'Semua lembaga',
    },
  };
}

export function institutionMessagesEn(): ReturnType<typeof institutionMessagesId> {
  return {
    institution: {
      nav: 'Institution',
      listTitle: 'Institution settings',
      listIntro: 'Choose the institution whose settings you want to change.',
      noInstitutions: 'No institutions yet.',
      hasAccount: 'transfer account set',
      noAccountYet: 'no transfer account yet',
      title: (name: string) => `Settings of ${name}`,
      noInstitution: 'Your account is not linked to any institution yet; ask the operator to link it.',
      transferHeading: 'Transfer account',
      transferIntro:
        "Buyers of this institution's courses transfer to this account; the transfer instructions (pending purchases too) show it at once.",
      current: 'Current account',
      none: 'Not set: buyers are told not to transfer yet.',
      bank: 'Bank',
      number: 'Account number',
      holder: 'Account holder',
      save: 'Save the account',
      clear: 'Remove the account',
      clearHelp: 'Once removed, the transfer instructions tell buyers not to transfer yet.',
      gatewaysHeading: 'Payment gateways',
      gatewaysText: 'Payment gateway keys (online payment) will be set here. For now buyers pay by bank transfer.',
      saved: 'Transfer account saved.',
      cleared: 'Transfer account removed.',
      invalid: 'The account was not saved: correct the fields marked.',
      problem: {
        missing: 'Required.',
        tooLong: (max: number) => `At most ${max} characters.`,
        control: 'Holds a character that cannot be used (such as a control character).',
      },
      backToList: 'All institutions',
    },
  };
}

const WORDS = { id: institutionMessagesId().institution, en: institutionMessagesEn().institution };

/** The institution pages' words in the person's language. */
export const institutionWords = (ctx: { locale: Locale }) => WORDS[ctx.locale === 'id' ? 'id' : 'en'];
