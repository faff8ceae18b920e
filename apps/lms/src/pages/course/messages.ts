import type { DateInput, Format } from '../i18n/format.js';
import { examLabelEn, examLabelId, moduleQuizLabelEn, moduleQuizLabelId, quizLabelEn, quizLabelId } from '../learning/path-messages.js';

// The words of the course page (./index.ts), in Bahasa Indonesia (the reference) and English:
// spread into the catalogs (../i18n/id.ts, ../i18n/en.ts) as their `course` block.

export function courseMessagesId(f: Format) {
  return {
    course: {
      backToCatalog: '← Katalog',
      category: 'Kategori',
      instructor: 'Pengajar',
      code: 'Kode kursus',
      enrolmentCode: 'Kode pendaftaran',
      dates: 'Tanggal',
      courseDates: (start: DateInput, end: DateInput): string => {
        const range = f.dayRange(start, end);
        if (range) return range;
        const [from, until] = [f.day(start), f.day(end)];
        if (from) return `Mulai ${from}`;
        if (until) return `Sampai ${until}`;
        return '—';
      },
      credit: 'Kredit',
      notAccredited: 'Belum terakreditasi: sertifikatnya tidak memberi kredit',
      accreditedBy: (scheme: string, body: string, reference: string, until: string | null): string =>
        `${scheme} (${body}), No. ${reference}${until ? `, berlaku sampai ${until}` : ''}`,
      price: 'Harga',
      notForSale: 'Tidak dijual',
      students: 'Peserta',
      yourStatus: 'Status Anda',
      yourProgress: 'Kemajuan Anda',
      courseProgress: 'Kemajuan kursus',
      certificate: 'Sertifikat',
      modules: 'Modul',
      noModules: 'Belum ada modul.',
      noLongerOffered:
        'Kursus ini tidak lagi ditawarkan. Anda tetap dapat mempelajarinya, dengan kemajuan dan sertifikat Anda, karena Anda sudah terdaftar.',
      noChapters: 'Belum ada bab.',
      locked: 'Terkunci',
      unlocked: 'Terbuka',
      done: 'Selesai',
      chapterQuiz: (title: string, questions: number) => `${quizLabelId(title)} (${f.plural(questions, { other: '# soal' })})`,
      moduleQuiz: (title: string, questions: number) => `${moduleQuizLabelId(title)} (${f.plural(questions, { other: '# soal' })})`,
      finalExam: (title: string, questions: number, passMark: number) =>
        `${examLabelId(title)} · ${f.plural(questions, { other: '# soal' })} · nilai lulus ${f.number(passMark)}`,
    },
  };
}

export function courseMessagesEn(f: Format): ReturnType<typeof courseMessagesId> {
  return {
    course: {
      backToCatalog: '← Catalog',
      category: 'Category',
      instructor: 'Instructor',
      code: 'Course code',
      /** Shown to those who manage the course only (the catalog gives the code to no one else). */
      enrolmentCode: 'Enrolment code',
      dates: 'Dates',
      courseDates: (start, end) => {
        const range = f.dayRange(start, end);
        if (range) return range;
        const [from, until] = [f.day(start), f.day(end)];
        if (from) return `From ${from}`;
        if (until) return `Until ${until}`;
        return '—';
      },
      credit: 'Credit',
      notAccredited: 'Not accredited: its certificate earns no credit',
      accreditedBy: (scheme, body, reference, until) => `${scheme} (${body}), No. ${reference}${until ? `, valid until ${until}` : ''}`,
      price: 'Price',
      notForSale: 'Not for sale',
      students: 'Students',
      yourStatus: 'Your status',
      yourProgress: 'Your progress',
      courseProgress: 'Course progress',
      certificate: 'Certificate',
      modules: 'Modules',
      noModules: 'No modules yet.',
      noLongerOffered: 'This course is no longer offered. You keep it, with your progress and certificate, because you are enrolled.',
      noChapters: 'No chapters yet.',
      locked: 'Locked',
      unlocked: 'Unlocked',
      done: 'Done',
      chapterQuiz: (title, questions) => `${quizLabelEn(title)} (${f.plural(questions, { one: '# question', other: '# questions' })})`,
      moduleQuiz: (title, questions) => `${moduleQuizLabelEn(title)} (${f.plural(questions, { one: '# question', other: '# questions' })})`,
      finalExam: (title, questions, passMark) =>
        `${examLabelEn(title)} · ${f.plural(questions, { one: '# question', other: '# questions' })} · pass mark ${f.number(passMark)}`,
    },
  };
}
