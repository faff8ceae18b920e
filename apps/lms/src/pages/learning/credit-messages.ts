import type { Format } from '../i18n/format.js';

// The words of a member's credit record (/learn/credits, its CSV and PDF, the dashboard's block),
// in Bahasa Indonesia (the reference) and English. Spread into the catalogs (../i18n/id.ts,
// ../i18n/en.ts) as their `credits` block.

type Period = { period: 'calendar_year' | 'rolling'; years: number };

export function creditMessagesId(f: Format) {
  return {
    credits: {
      title: 'Catatan kredit saya',
      intro: 'Setiap KUM/SKP yang Anda peroleh dari sertifikat, dengan jumlahnya per tahun dan per periode berjalan.',
      none: 'Belum ada kredit. Kredit tercatat saat sertifikat sebuah kursus terbit.',
      records: 'Catatan',
      date: 'Tanggal',
      course: 'Kursus',
      scheme: 'Skema',
      amount: 'Jumlah',
      certificate: 'Sertifikat',
      status: 'Status',
      counted: 'Dihitung',
      voided: 'Dibatalkan (sertifikat dicabut)',
      unaccredited: 'Tidak dihitung (kursus belum terakreditasi saat sertifikat terbit)',
      accreditedOnly: 'Total hanya menghitung kredit dari kursus yang terakreditasi (nomor SK tercantum).',
      expired: 'Dihitung (sertifikat kedaluwarsa)',
      openCertificate: 'Lihat',
      perYear: 'Jumlah per tahun',
      year: 'Tahun',
      rolling: 'Periode berjalan',
      lastYears: (years: number) => `${f.number(years)} tahun terakhir`,
      since: (date: string) => `sejak ${date}`,
      targets: 'Target',
      targetOf: (partner: string) => `Target ${partner}`,
      progress: (earned: number, target: number, scheme: string, p: Period, year: number) =>
        p.period === 'calendar_year'
          ? `${f.number(earned)} / ${f.number(target)} ${scheme} pada ${year}`
          : `${f.number(earned)} / ${f.number(target)} ${scheme} dalam ${f.number(p.years)} tahun terakhir`,
      progressLabel: (scheme: string) => `Kemajuan target ${scheme}`,
      export: 'Unduh',
      csv: 'CSV (untuk Excel)',
      pdf: 'PDF untuk asosiasi Anda',
      csvNote:
        'Berkas CSV memakai UTF-8 dengan BOM, titik koma sebagai pemisah dan koma desimal, seperti Excel dengan pengaturan Indonesia.',
      csvHeaders: ['Tanggal', 'Kursus', 'Skema', 'Jumlah', 'Kode sertifikat', 'Status'],
      csvFile: 'kredit',
      pdfTitle: 'Catatan Kredit',
      member: 'Nama',
      membershipId: 'Nomor anggota',
      printedOn: (date: string) => `Dicetak ${date}`,
      total: 'Jumlah',
      thisYear: 'Kredit tahun ini',
      thisYearNone: 'Belum ada kredit tahun ini.',
      seeAll: 'Lihat catatan kredit',
    },
  };
}

export function creditMessagesEn(f: Format): ReturnType<typeof creditMessagesId> {
  return {
    credits: {
      title: 'My credit record',
      intro: 'Every KUM/SKP your certificates earned you, with the totals per year and over rolling periods.',
      none: 'No credits yet. A credit is recorded when a course certificate is issued.',
      records: 'Records',
      date: 'Date',
      course: 'Course',
      scheme: 'Scheme',
      amount: 'Amount',
      certificate: 'Certificate',
      status: 'Status',
      counted: 'Counted',
      voided: 'Voided (certificate revoked)',
      unaccredited: 'Not counted (the course held no accreditation when the certificate was issued)',
      accreditedOnly: 'Totals count credit from accredited courses only (the decree number is shown).',
      expired: 'Counted (certificate expired)',
      openCertificate: 'View',
      perYear: 'Totals per year',
      year: 'Year',
      rolling: 'Rolling periods',
      lastYears: (years) => f.plural(years, { one: 'last year', other: 'last # years' }),
      since: (date) => `since ${date}`,
      targets: 'Targets',
      targetOf: (partner) => `${partner}'s target`,
      progress: (earned, target, scheme, p, year) =>
        p.period === 'calendar_year'
          ? `${f.number(earned)} / ${f.number(target)} ${scheme} in ${year}`
          : `${f.number(earned)} / ${f.number(target)} ${scheme} in the last ${f.number(p.years)} years`,
      progressLabel: (scheme) => `Progress towards the ${scheme} target`,
      export: 'Download',
      csv: 'CSV (Excel)',
      pdf: 'PDF for your association',
      csvNote:
        'The CSV file is UTF-8 with a BOM, comma-separated with a decimal dot (Excel with English settings). The Indonesian page gives Excel with Indonesian settings its semicolons.',
      csvHeaders: ['Date', 'Course', 'Scheme', 'Amount', 'Certificate code', 'Status'],
      csvFile: 'credits',
      pdfTitle: 'Credit Record',
      member: 'Name',
      membershipId: 'Membership number',
      printedOn: (date) => `Printed ${date}`,
      total: 'Total',
      thisYear: 'Credits this year',
      thisYearNone: 'No credits yet this year.',
      seeAll: 'See my credit record',
    },
  };
}
