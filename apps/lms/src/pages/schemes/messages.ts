import type { Locale } from '../i18n/index.js';

// The words of the credit schemes page (./index.ts), in Bahasa Indonesia (the reference) and
// English. Not spread into the catalogs: a page for super_admins, with codes and units (SKP, JPL)
// the same in both languages.

export function schemesMessagesId() {
  return {
    schemes: {
      title: 'Skema kredit',
      intro:
        'Skema kredit menentukan satuan, menit per satuan, batas per kursus dan bukti yang diwajibkan. Nilai kredit kursus dicatat lewat akreditasi oleh admin institusi atau super_admin, dibatasi oleh skemanya.',
      code: 'Kode',
      body: 'Lembaga',
      unit: 'Satuan',
      minutesPerUnit: 'Menit per satuan',
      rounding: 'Pembulatan',
      maxPerCourse: 'Maks. per kursus',
      preTest: 'Pre-test',
      postTestMin: 'Nilai min. post-test',
      evaluation: 'Evaluasi',
      minutesShare: '% menit bab',
      attendanceShare: '% kehadiran',
      yes: 'ya',
      no: 'tidak',
      none: '—',
      edit: 'Tambah atau ubah skema',
      editHelp: 'Kode yang sudah ada diubah; kode baru ditambahkan. Kosongkan angka opsional untuk "tidak ada".',
      save: 'Simpan skema',
      saved: 'Skema disimpan.',
      invalid: 'Skema tidak disimpan:',
    },
  };
}

export function schemesMessagesEn(): ReturnType<typeof schemesMessagesId> {
  return {
    schemes: {
      title: 'Credit schemes',
      intro:
        "A credit scheme sets the unit, minutes per unit, the most per course and the evidence required. A course's credit is recorded as an accreditation by an institution admin or a super_admin, bounded by its scheme.",
      code: 'Code',
      body: 'Body',
      unit: 'Unit',
      minutesPerUnit: 'Minutes per unit',
      rounding: 'Rounding',
      maxPerCourse: 'Max per course',
      preTest: 'Pre-test',
      postTestMin: 'Post-test min score',
      evaluation: 'Evaluation',
      minutesShare: 'Chapter minutes %',
      attendanceShare: 'Attendance %',
      yes: 'yes',
      no: 'no',
      none: '—',
      edit: 'Add or change a scheme',
      editHelp: 'An existing code is changed; a new code is added. Leave an optional number empty for "none".',
      save: 'Save scheme',
      saved: 'Scheme saved.',
      invalid: 'The scheme was not saved:',
    },
  };
}

const WORDS = { id: schemesMessagesId().schemes, en: schemesMessagesEn().schemes };

/** The schemes page's words in the person's language. */
export const schemesWords = (ctx: { locale: Locale }) => WORDS[ctx.locale === 'id' ? 'id' : 'en'];
