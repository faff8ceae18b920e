import type { DateInput, Format } from '../i18n/format.js';

// The words of the certificate as a document and as a record others act on: its status (valid,
// revoked, expired), the PDF's text, the holder's privacy choice, and the admins' revoke and
// reissue forms; in Bahasa Indonesia (the reference) and English. Spread into the catalogs
// (../i18n/id.ts, ../i18n/en.ts) as their `certificateDocs` block.

const day = (f: Format, d: DateInput) => f.day(d) ?? '';

export function certificateMessagesId(f: Format) {
  return {
    certificateDocs: {
      /** "4,5 KUM": the credit points with their scheme. */
      credits: (kum: number | null, scheme: string) => (kum === null ? '—' : `${f.number(kum)} ${scheme}`),
      creditsLabel: 'Angka kredit',
      validUntil: 'Berlaku sampai',
      status: {
        label: 'Status',
        valid: 'Sah',
        revoked: 'Dicabut',
        expired: 'Kedaluwarsa',
        validText: 'Sertifikat ini sah.',
        revokedText: (date: DateInput, reason: string | null) =>
          reason ? `Sertifikat ini dicabut pada ${day(f, date)}. Alasan: ${reason}` : `Sertifikat ini dicabut pada ${day(f, date)}.`,
        expiredText: (date: DateInput) => `Masa berlaku sertifikat ini berakhir pada ${day(f, date)}.`,
      },
      privateExists: 'Sertifikat dengan kode ini ada. Pemegangnya memilih untuk tidak menampilkan rinciannya.',
      downloadPdf: 'Unduh PDF',
      privacy: {
        title: 'Siapa yang dapat melihat rinciannya',
        isPublic:
          'Publik: siapa pun yang memegang kode atau tautan verifikasinya melihat nama Anda, kursus, penyelenggara, tanggal, dan angka kredit. Nomor anggota dan e-mail Anda tidak pernah ditampilkan.',
        isPrivate:
          'Pribadi: halaman verifikasinya hanya menyatakan bahwa sertifikat dengan kode ini ada beserta statusnya (sah, dicabut, kedaluwarsa), tanpa nama dan kursus.',
        makePrivate: 'Jadikan pribadi',
        makePublic: 'Jadikan publik',
        saved: 'Pilihan Anda disimpan.',
      },
      pdf: {
        title: 'SERTIFIKAT',
        documentTitle: (course: string) => `Sertifikat: ${course}`,
        statement: 'Diberikan kepada',
        completed: 'yang telah menyelesaikan kursus',
        issuer: 'Penyelenggara',
        issuedOn: 'Tanggal terbit',
        code: 'Kode sertifikat',
        verify: 'Periksa keabsahan sertifikat ini di',
        scan: 'Pindai untuk memeriksa',
        revokedBanner: (date: DateInput) => `DICABUT pada ${day(f, date)}: sertifikat ini tidak lagi sah.`,
        expiredBanner: (date: DateInput) => `KEDALUWARSA sejak ${day(f, date)}: sertifikat ini tidak lagi berlaku.`,
        fileStem: 'sertifikat',
        accreditation: 'Akreditasi',
        /** "SKP KEMKES/SKP/2026/0042: 2 SKP". */
        accreditationLine: (scheme: string, reference: string, value: number, unit: string) =>
          `${scheme} ${reference}: ${f.number(value)} ${unit}`,
        time: 'Waktu belajar',
        minutes: (minutes: number, expected: number) => `${f.number(minutes)} menit (diharapkan ${f.number(expected)} menit)`,
        scores: 'Nilai',
        scoreLine: (pre: number | null, post: number | null) =>
          [pre === null ? null : `Pre-test ${f.number(pre)}`, post === null ? null : `Post-test ${f.number(post)}`]
            .filter((x) => x !== null)
            .join(' · '),
      },
      admin: {
        title: 'Sertifikat',
        manage: 'Kelola',
        manageLabel: (name: string) => `Kelola sertifikat ${name}`,
        none: 'Peserta ini belum memiliki sertifikat kursus ini.',
        issuedOn: (date: DateInput) => `Terbit ${day(f, date)}`,
        reissued: 'Terbitan ulang',
        revokeTitle: 'Cabut sertifikat',
        reason: 'Alasan pencabutan (wajib, 1–500 karakter; tampil di halaman verifikasi publik)',
        revoke: 'Cabut sertifikat',
        revokeWarning:
          'Pencabutan langsung berlaku: halaman verifikasi menyatakan dicabut, angka kreditnya dibatalkan, dan mitra peserta diberi tahu.',
        reissue: 'Terbitkan ulang',
        reissueHelp: 'Menerbitkan sertifikat baru dengan kode baru dan angka kredit yang sama; yang dicabut tetap dicabut.',
        notYours: 'Hanya admin institusi penyelenggara kursus (atau super admin) yang dapat mencabut atau menerbitkan ulang sertifikat.',
        flash: {
          revoked: 'Sertifikat dicabut.',
          reissued: 'Sertifikat baru diterbitkan.',
          already: 'Sertifikat ini sudah dicabut sebelumnya.',
          notRevoked: 'Sertifikat ini masih berlaku: cabut dulu sebelum menerbitkan ulang.',
          exists: 'Peserta ini sudah memiliki sertifikat yang berlaku untuk kursus ini.',
          reasonInvalid: 'Alasan wajib diisi, 1–500 karakter, tanpa karakter kendali. Tidak ada yang diubah.',
        },
      },
    },
  };
}

export function certificateMessagesEn(f: Format): ReturnType<typeof certificateMessagesId> {
  return {
    certificateDocs: {
      credits: (kum: number | null, scheme: string) => (kum === null ? '—' : `${f.number(kum)} ${scheme}`),
      creditsLabel: 'Credit points',
      validUntil: 'Valid until',
      status: {
        label: 'Status',
        valid: 'Valid',
        revoked: 'Revoked',
        expired: 'Expired',
        validText: 'This certificate is valid.',
        revokedText: (date: DateInput, reason: string | null) =>
          reason
            ? `This certificate was revoked on ${day(f, date)}. Reason: ${reason}`
            : `This certificate was revoked on ${day(f, date)}.`,
        expiredText: (date: DateInput) => `This certificate expired on ${day(f, date)}.`,
      },
      privateExists: 'A certificate with this code exists. Its holder chose not to show its details.',
      downloadPdf: 'Download PDF',
      privacy: {
        title: 'Who can see its details',
        isPublic:
          'Public: anyone holding its code or verification link sees your name, the course, the provider, the date and the credit points. Your membership number and e-mail are never shown.',
        isPrivate:
          'Private: its verification page says only that a certificate with this code exists and its status (valid, revoked, expired), without name or course.',
        makePrivate: 'Make private',
        makePublic: 'Make public',
        saved: 'Your choice is saved.',
      },
      pdf: {
        title: 'CERTIFICATE',
        documentTitle: (course: string) => `Certificate: ${course}`,
        statement: 'This certifies that',
        completed: 'has completed the course',
        issuer: 'Provider',
        issuedOn: 'Issued on',
        code: 'Certificate code',
        verify: 'Check that this certificate is valid at',
        scan: 'Scan to check',
        revokedBanner: (date: DateInput) => `REVOKED on ${day(f, date)}: this certificate is no longer valid.`,
        expiredBanner: (date: DateInput) => `EXPIRED on ${day(f, date)}: this certificate is no longer in force.`,
        fileStem: 'certificate',
        accreditation: 'Accreditation',
        /** "SKP KEMKES/SKP/2026/0042: 2 SKP". */
        accreditationLine: (scheme: string, reference: string, value: number, unit: string) =>
          `${scheme} ${reference}: ${f.number(value)} ${unit}`,
        time: 'Time learning',
        minutes: (minutes: number, expected: number) => `${f.number(minutes)} minutes (${f.number(expected)} expected)`,
        scores: 'Scores',
        scoreLine: (pre: number | null, post: number | null) =>
          [pre === null ? null : `Pre-test ${f.number(pre)}`, post === null ? null : `Post-test ${f.number(post)}`]
            .filter((x) => x !== null)
            .join(' · '),
      },
      admin: {
        title: 'Certificate',
        manage: 'Manage',
        manageLabel: (name: string) => `Manage the certificate of ${name}`,
        none: 'This learner has no certificate of this course yet.',
        issuedOn: (date: DateInput) => `Issued ${day(f, date)}`,
        reissued: 'Reissued',
        revokeTitle: 'Revoke the certificate',
        reason: 'Reason for revoking (required, 1–500 characters; shown on the public verification page)',
        revoke: 'Revoke certificate',
        revokeWarning:
          "Revoking takes effect at once: the verification page says revoked, its credit points are voided, and the learner's partners are told.",
        reissue: 'Reissue',
        reissueHelp: 'Issues a new certificate with a new code and the same credit points; the revoked one stays revoked.',
        notYours: "Only an admin of the course's institution (or a super admin) may revoke or reissue certificates.",
        flash: {
          revoked: 'The certificate is revoked.',
          reissued: 'A new certificate is issued.',
          already: 'This certificate was already revoked.',
          notRevoked: 'This certificate is still in force: revoke it before reissuing.',
          exists: 'This learner already holds a certificate in force for this course.',
          reasonInvalid: 'A reason is required: 1–500 characters, no control characters. Nothing was changed.',
        },
      },
    },
  };
}
