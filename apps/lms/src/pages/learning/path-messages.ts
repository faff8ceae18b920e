import type { DateInput, Format } from '../i18n/format.js';

// The words of the learner's path (outline, continue, locked steps, quiz results and attempts),
// the managers' views (preview, learners, extra attempts), the landing page and the certificate
// check, in Bahasa Indonesia (the reference) and English. Spread into the catalogs
// (../i18n/id.ts, ../i18n/en.ts) as their `path` block.

type Waiting = { kind: 'chapter' | 'quiz'; name: string } | null;

/** A quiz's name as a label: "Kuis: X", unless the name already says it is a quiz ("Kuis: Kuis: …" otherwise). */
const labelled = (prefix: string, words: RegExp) => (name: string) => (words.test(name.trim()) ? name : `${prefix}: ${name}`);

export const quizLabelId = labelled('Kuis', /^(kuis|quiz|ujian|ulangan|tes|test)\b/i);
export const quizLabelEn = labelled('Quiz', /^(quiz|kuis|test|exam|ujian)\b/i);
export const moduleQuizLabelId = labelled('Kuis modul', /^(kuis|quiz|ujian|ulangan|tes|test)\b/i);
export const moduleQuizLabelEn = labelled('Module quiz', /^(quiz|kuis|test|exam|ujian|module quiz)\b/i);
export const examLabelId = labelled('Ujian akhir', /^(ujian|exam|final)\b/i);
export const examLabelEn = labelled('Final exam', /^(final|exam|ujian)\b/i);

export function pathMessagesId(f: Format) {
  const quiz = quizLabelId;
  const exam = examLabelId;
  return {
    path: {
      quizLabel: quiz,
      examLabel: exam,
      outline: 'Isi kursus',
      youAreHere: 'Anda di sini',
      done: 'Selesai',
      locked: 'Terkunci',
      open: 'Terbuka',
      waitsFor: (w: Waiting) =>
        w === null
          ? 'Terbuka setelah bagian sebelumnya selesai.'
          : w.kind === 'chapter'
            ? `Terbuka setelah Anda menyelesaikan bab “${w.name}”.`
            : `Terbuka setelah Anda lulus ${quiz(w.name)}.`,
      continueHeading: 'Lanjutkan belajar',
      continueTo: (name: string) => `Lanjutkan: ${name}`,
      finished: 'Anda sudah menyelesaikan semua bagian kursus ini.',
      finalLeft: (name: string) => `Semua bab sudah selesai. Yang tersisa: lulus ${exam(name)}.`,
      whatIsLeft: (name: string) => `Berikutnya: ${name}.`,
      stuck: (name: string) =>
        `Percobaan Anda untuk ${quiz(name)} sudah habis. Pengajar kursus atau admin lembaganya dapat memberi percobaan tambahan.`,
      nextStep: 'Langkah berikutnya',
      chapterDone: 'Bab ini sudah selesai.',
      lastStep: 'Ini bagian terakhir kursus.',
      nextIsLocked: (name: string) => `Berikutnya: ${name} (masih terkunci).`,
      goTo: (name: string) => `Ke ${name}`,
      takeChapterQuiz: (name: string) => `Kerjakan kuis bab ini: ${quiz(name)}`,
      backToCourse: 'Kembali ke kursus',
      quiz: {
        locked: 'Kuis ini belum terbuka untuk Anda.',
        passedAlready: 'Anda sudah lulus kuis ini.',
        outOfAttempts: (used: number, allowed: number) =>
          `Percobaan Anda sudah habis (${f.number(used)} dari ${f.number(allowed)}). Pengajar kursus atau admin lembaganya dapat memberi percobaan tambahan.`,
        attemptsUsed: (used: number, allowed: number) => `Percobaan terpakai: ${f.number(used)} dari ${f.number(allowed)}`,
        continueAttempt: 'Lanjutkan percobaan yang sedang berjalan',
        yourAttempts: 'Percobaan Anda',
        attemptLine: (n: number, score: number | null, passed: boolean | null) =>
          score === null
            ? `Percobaan ${f.number(n)}: sedang berjalan`
            : `Percobaan ${f.number(n)}: nilai ${f.number(score)} · ${passed ? 'lulus' : 'belum lulus'}`,
        seeResult: 'Lihat hasil',
        best: (score: number) => `Nilai terbaik: ${f.number(score)}`,
        attemptsLeft: (n: number) => `Sisa percobaan: ${f.number(n)}`,
        review: 'Pembahasan',
        reviewLater: 'Pembahasan dan jawaban yang benar ditampilkan setelah Anda lulus kuis ini atau percobaan Anda habis.',
        reviewFinalLater: 'Soal ujian akhir hanya ditampilkan selama percobaan berlangsung, tanpa pembahasan.',
        yourAnswer: 'Jawaban Anda',
        noAnswer: '(tidak dijawab)',
        rightAnswer: 'Jawaban yang benar',
        notScored: 'Tidak dinilai (esai)',
        right: 'Benar',
        wrong: 'Salah',
        explanation: 'Penjelasan',
        question: (n: number) => `Soal ${f.number(n)}`,
      },
      manager: {
        banner: 'Anda mengelola kursus ini: Anda dapat membaca semua bab dan kuis tanpa mendaftar.',
        preview: 'Pratinjau sebagai peserta',
        previewBanner:
          'Pratinjau: halaman ini seperti yang dilihat peserta baru. Anda dapat membuka semua bagian untuk dibaca; tidak ada kemajuan yang dicatat.',
        readOnly: 'Mode baca saja (pratinjau pengelola): tidak ada kemajuan yang dicatat.',
        noStart: 'Dalam pratinjau, kuis tidak dikerjakan. Soal-soalnya (tanpa kunci jawaban):',
        lockedForNew: 'terkunci bagi peserta baru',
        learners: 'Peserta kursus',
      },
      learners: {
        title: (course: string) => `Peserta: ${course}`,
        intro: (n: number) => f.plural(n, { other: '# peserta terdaftar, urut nama.' }),
        refundedCount: (n: number) => f.plural(n, { other: 'Ditambah # yang dana pembeliannya dikembalikan (aksesnya berakhir).' }),
        refunded: (date: string) => `Dana dikembalikan ${date}: akses berakhir`,
        certificateKept: (why: string) => `Sertifikat dipertahankan: ${why}`,
        none: 'Belum ada peserta di kursus ini.',
        csv: 'Unduh CSV',
        learner: 'Peserta',
        progress: 'Kemajuan',
        chapters: 'Bab selesai',
        quizzes: 'Kuis (lulus / percobaan)',
        bestQuiz: 'Nilai kuis terbaik',
        final: 'Ujian akhir',
        certificate: 'Sertifikat',
        lastActivity: 'Aktivitas terakhir',
        actions: 'Tindakan',
        attempts: 'Percobaan kuis',
        attemptsLabel: (name: string) => `Percobaan kuis ${name}`,
        finalPassed: (score: number) => `Lulus (${f.number(score)})`,
        finalNotYet: (score: number | null, attempts: number) =>
          score === null ? 'Belum dikerjakan' : `Belum lulus (terbaik ${f.number(score)}, ${f.number(attempts)} percobaan)`,
        quizzesCell: (passed: number, total: number, attempts: number) =>
          `${f.number(passed)} / ${f.number(total)} (${f.number(attempts)} percobaan)`,
        noCertificate: 'Belum',
      },
      grants: {
        title: (name: string) => `Percobaan kuis: ${name}`,
        quiz: 'Kuis',
        used: 'Terpakai',
        allowed: 'Jatah',
        state: 'Status',
        passed: 'Lulus',
        spent: 'Habis',
        ongoing: 'Masih ada',
        form: 'Beri percobaan tambahan',
        extra: 'Jumlah percobaan tambahan (1-20)',
        reason: 'Alasan (dicatat, paling banyak 500 karakter)',
        submit: 'Beri percobaan',
        keysSeen: 'Catatan: peserta yang percobaannya habis sudah dapat melihat jawaban yang benar untuk kuis itu.',
        refunded: 'Dana pembelian peserta ini sudah dikembalikan: aksesnya ke kursus berakhir, jadi tidak dapat diberi percobaan tambahan.',
        history: 'Riwayat pemberian',
        none: 'Belum pernah diberi percobaan tambahan.',
        row: (n: number, quizName: string, by: string | null, when: string) =>
          `${f.plural(n, { other: '+# percobaan' })} untuk ${quizName} oleh ${by ?? '(akun dihapus)'}, ${when}`,
        flash: {
          granted: 'Percobaan tambahan diberikan dan dicatat.',
          invalid: 'Pilih kuis, jumlah 1-20 dan tulis alasannya.',
          capped: 'Tidak diberikan: seorang peserta mendapat paling banyak 100 percobaan tambahan per kuis, semua pemberian dijumlahkan.',
        },
      },
      landing: {
        title: 'Belajar dan sertifikasi profesi',
        intro:
          'LMS ini tempat anggota asosiasi profesi dan mahasiswa mengikuti kursus, mengerjakan kuis, dan memperoleh sertifikat dengan nilai KUM.',
        signIn: 'Masuk lewat situs organisasi Anda',
        catalog: 'Lihat katalog kursus',
        dashboard: 'Ke dasbor Anda',
        verify: 'Periksa sertifikat',
      },
      certificateCheck: {
        title: 'Periksa sertifikat',
        label: 'Kode verifikasi',
        submit: 'Periksa',
        invalidTitle: 'Sertifikat tidak sah',
        invalid: 'Sertifikat dengan kode ini tidak ada. Periksa kembali kodenya: sertifikat ini tidak sah.',
      },
      dashboard: {
        averageProgress: 'Rata-rata kemajuan peserta',
        finished: (n: number) => f.plural(n, { other: '# peserta menyelesaikan semua bab' }),
      },
      seen: (date: DateInput) => f.dateTime(date) ?? '—',
    },
  };
}

export type PathMessages = ReturnType<typeof pathMessagesId>;

export function pathMessagesEn(f: Format): PathMessages {
  const quiz = quizLabelEn;
  const exam = examLabelEn;
  return {
    path: {
      quizLabel: quiz,
      examLabel: exam,
      outline: 'Course outline',
      youAreHere: 'You are here',
      done: 'Done',
      locked: 'Locked',
      open: 'Open',
      waitsFor: (w: Waiting) =>
        w === null
          ? 'Opens once the parts before it are done.'
          : w.kind === 'chapter'
            ? `Opens once you complete the chapter “${w.name}”.`
            : `Opens once you pass ${quiz(w.name)}.`,
      continueHeading: 'Continue where you left off',
      continueTo: (name: string) => `Continue: ${name}`,
      finished: 'You have finished every part of this course.',
      finalLeft: (name: string) => `Every chapter is done. What is left: pass ${exam(name)}.`,
      whatIsLeft: (name: string) => `Next: ${name}.`,
      stuck: (name: string) =>
        `You have no attempts left at ${quiz(name)}. The course's teacher or an admin of its institution can grant more.`,
      nextStep: 'Next step',
      chapterDone: 'This chapter is done.',
      lastStep: 'This is the last part of the course.',
      nextIsLocked: (name: string) => `Next: ${name} (still locked).`,
      goTo: (name: string) => `Go to ${name}`,
      takeChapterQuiz: (name: string) => `Take this chapter's quiz: ${quiz(name)}`,
      backToCourse: 'Back to the course',
      quiz: {
        locked: 'This quiz is not open to you yet.',
        passedAlready: 'You have passed this quiz.',
        outOfAttempts: (used: number, allowed: number) =>
          `You have no attempts left (${f.number(used)} of ${f.number(allowed)} used). The course's teacher or an admin of its institution can grant more.`,
        attemptsUsed: (used: number, allowed: number) => `Attempts used: ${f.number(used)} of ${f.number(allowed)}`,
        continueAttempt: 'Continue your attempt in progress',
        yourAttempts: 'Your attempts',
        attemptLine: (n: number, score: number | null, passed: boolean | null) =>
          score === null
            ? `Attempt ${f.number(n)}: in progress`
            : `Attempt ${f.number(n)}: score ${f.number(score)} · ${passed ? 'passed' : 'not passed'}`,
        seeResult: 'See the result',
        best: (score: number) => `Best score: ${f.number(score)}`,
        attemptsLeft: (n: number) => `Attempts left: ${f.number(n)}`,
        review: 'Review',
        reviewLater: 'The review and the right answers are shown once you pass this quiz or have no attempts left.',
        reviewFinalLater: 'The final exam’s questions are shown only during an attempt, without a review.',
        yourAnswer: 'Your answer',
        noAnswer: '(no answer)',
        rightAnswer: 'Right answer',
        notScored: 'Not scored (essay)',
        right: 'Right',
        wrong: 'Wrong',
        explanation: 'Explanation',
        question: (n: number) => `Question ${f.number(n)}`,
      },
      manager: {
        banner: 'You manage this course: you can read every chapter and quiz without enrolling.',
        preview: 'Preview as a learner',
        previewBanner: 'Preview: this page as a new learner sees it. You can open every part to read it; no progress is recorded.',
        readOnly: 'Read-only (manager preview): no progress is recorded.',
        noStart: 'In the preview, quizzes are not taken. Their questions (without answer keys):',
        lockedForNew: 'locked for a new learner',
        learners: 'Learners of this course',
      },
      learners: {
        title: (course: string) => `Learners: ${course}`,
        intro: (n: number) => f.plural(n, { one: '# learner enrolled, by name.', other: '# learners enrolled, by name.' }),
        refundedCount: (n: number) =>
          f.plural(n, {
            one: 'And # whose purchase was refunded (access ended).',
            other: 'And # whose purchase was refunded (access ended).',
          }),
        refunded: (date: string) => `Refunded ${date}: access ended`,
        certificateKept: (why: string) => `Certificate kept: ${why}`,
        none: 'Nobody is enrolled in this course yet.',
        csv: 'Download CSV',
        learner: 'Learner',
        progress: 'Progress',
        chapters: 'Chapters done',
        quizzes: 'Quizzes (passed / attempts)',
        bestQuiz: 'Best quiz score',
        final: 'Final exam',
        certificate: 'Certificate',
        lastActivity: 'Last activity',
        actions: 'Actions',
        attempts: 'Quiz attempts',
        attemptsLabel: (name: string) => `Quiz attempts of ${name}`,
        finalPassed: (score: number) => `Passed (${f.number(score)})`,
        finalNotYet: (score: number | null, attempts: number) =>
          score === null
            ? 'Not taken'
            : `Not passed (best ${f.number(score)}, ${f.plural(attempts, { one: '# attempt', other: '# attempts' })})`,
        quizzesCell: (passed: number, total: number, attempts: number) =>
          `${f.number(passed)} / ${f.number(total)} (${f.plural(attempts, { one: '# attempt', other: '# attempts' })})`,
        noCertificate: 'Not yet',
      },
      grants: {
        title: (name: string) => `Quiz attempts: ${name}`,
        quiz: 'Quiz',
        used: 'Used',
        allowed: 'Allowed',
        state: 'State',
        passed: 'Passed',
        spent: 'None left',
        ongoing: 'Some left',
        form: 'Grant more attempts',
        extra: 'Extra attempts (1-20)',
        reason: 'Reason (recorded, at most 500 characters)',
        submit: 'Grant attempts',
        keysSeen: 'Note: a learner with no attempts left could already see the right answers of that quiz.',
        refunded: "This learner's purchase was refunded: their access to the course has ended, so no attempts can be granted.",
        history: 'Grants so far',
        none: 'No extra attempts granted yet.',
        row: (n: number, quizName: string, by: string | null, when: string) =>
          `${f.plural(n, { one: '+# attempt', other: '+# attempts' })} at ${quizName} by ${by ?? '(deleted account)'}, ${when}`,
        flash: {
          granted: 'Extra attempts granted and recorded.',
          invalid: 'Choose a quiz, a number from 1 to 20, and write the reason.',
          capped: 'Not granted: a learner gets at most 100 extra attempts per quiz, all grants together.',
        },
      },
      landing: {
        title: 'Professional learning and certification',
        intro:
          'This LMS is where members of professional associations and students take courses, answer quizzes and earn certificates with KUM points.',
        signIn: "Sign in through your organisation's website",
        catalog: 'Browse the course catalog',
        dashboard: 'Go to your dashboard',
        verify: 'Check a certificate',
      },
      certificateCheck: {
        title: 'Check a certificate',
        label: 'Verification code',
        submit: 'Check',
        invalidTitle: 'Certificate not valid',
        invalid: 'There is no certificate with this code. Check the code again: this certificate is not valid.',
      },
      dashboard: {
        averageProgress: "Learners' average progress",
        finished: (n: number) => f.plural(n, { one: '# learner finished every chapter', other: '# learners finished every chapter' }),
      },
      seen: (date: DateInput) => f.dateTime(date) ?? '—',
    },
  };
}
