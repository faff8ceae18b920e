import type { DateInput, Format } from '../i18n/format.js';

// The words of the learner's chapter, quiz and certificate screens (./chapter.ts, ./quiz.ts,
// ./certificate.ts), in Bahasa Indonesia (the reference) and English: spread into the catalogs
// (../i18n/id.ts, ../i18n/en.ts) as their `learn` block.

export function learnMessagesId(f: Format) {
  return {
    learn: {
      refused: {
        notEnrolled: 'Anda belum terdaftar di kursus ini. Daftar dulu di halaman kursus.',
        locked: (step: { kind: 'chapter' | 'quiz' | 'pre_test'; name: string } | null) =>
          step === null
            ? 'Bagian ini masih terkunci.'
            : step.kind === 'pre_test'
              ? `Bagian ini masih terkunci: kerjakan dulu pre-test “${step.name}”.`
              : step.kind === 'chapter'
                ? `Bagian ini masih terkunci: selesaikan dulu bab “${step.name}”.`
                : `Bagian ini masih terkunci: lulus dulu kuis “${step.name}”.`,
      },
      chapter: {
        ofCourse: (course: string, module: string) => `${course} · ${module}`,
        backToCourse: 'Kembali ke kursus',
        completed: 'Selesai',
        markComplete: 'Tandai selesai',
        takeQuiz: 'Kerjakan kuis bab ini',
        next: 'Bab berikutnya',
        expected: (minutes: number) => `Perkiraan waktu belajar: ${f.number(minutes)} menit.`,
        // The chapter page's script (../client/chapter-time.ts) fills `{wait}` with the same units.
        units: { min: 'menit', sec: 'detik' },
        timeLeft: 'Kredit kursus ini meminta waktu aktif di halaman ini: masih {wait} lagi sebelum bab ini dapat ditandai selesai.',
        timeMet: 'Waktu aktif yang diminta sudah terpenuhi.',
        tooEarly: 'Belum dapat ditandai selesai: masih {wait} lagi di halaman ini (halaman harus terbuka dan terlihat).',
      },
      quiz: {
        passMark: (score: number) => `Nilai lulus: ${f.number(score)}`,
        timeLimit: (minutes: number) => `Batas waktu: ${f.number(minutes)} menit`,
        attempt: (n: number, max: number) => `Percobaan ${f.number(n)} dari ${f.number(max)}`,
        maxAttempts: (max: number) => `Paling banyak ${f.number(max)} percobaan`,
        start: 'Mulai mengerjakan',
        submit: 'Kirim jawaban',
        answerText: 'Jawaban Anda',
        until: (date: DateInput) => `Kirim sebelum ${f.dateTime(date) ?? ''}`,
        result: 'Hasil',
        score: (score: number) => `Nilai: ${f.number(score)}`,
        passed: 'Lulus',
        failed: 'Belum lulus',
        attemptsLeft: (n: number) => `Sisa percobaan: ${f.number(n)}`,
        tryAgain: 'Coba lagi',
        certificateEarned: 'Selamat! Sertifikat Anda sudah terbit.',
      },
      certificate: {
        title: 'Sertifikat',
        statement: 'Dengan ini menyatakan bahwa',
        completed: 'telah menyelesaikan kursus',
        membershipId: 'Nomor anggota',
        kum: 'Nilai KUM',
        issuedOn: 'Tanggal terbit',
        institution: 'Penyelenggara',
        code: 'Kode verifikasi',
        verifyAt: 'Periksa keaslian di',
        print: 'Gunakan fungsi cetak peramban Anda untuk mencetak halaman ini.',
        valid: 'Sertifikat ini sah.',
        revoked: 'Sertifikat ini dicabut pada {date}. Alasan: {reason}',
        mine: 'Sertifikat saya',
        open: 'Lihat sertifikat',
        credential: 'Unduh kredensial digital (Open Badges 3.0)',
        credentialHint: 'Berkas bertanda tangan yang dapat diverifikasi siapa pun, untuk dompet digital Anda atau asosiasi Anda.',
      },
    },
  };
}

export function learnMessagesEn(f: Format): ReturnType<typeof learnMessagesId> {
  return {
    learn: {
      refused: {
        notEnrolled: 'You are not enrolled in this course yet. Enrol on the course page first.',
        locked: (step: { kind: 'chapter' | 'quiz' | 'pre_test'; name: string } | null) =>
          step === null
            ? 'This part is still locked.'
            : step.kind === 'pre_test'
              ? `This part is still locked: take the pre-test “${step.name}” first.`
              : step.kind === 'chapter'
                ? `This part is still locked: complete the chapter “${step.name}” first.`
                : `This part is still locked: pass the quiz “${step.name}” first.`,
      },
      chapter: {
        ofCourse: (course: string, module: string) => `${course} · ${module}`,
        backToCourse: 'Back to the course',
        completed: 'Completed',
        markComplete: 'Mark as complete',
        takeQuiz: "Take this chapter's quiz",
        next: 'Next chapter',
        expected: (minutes: number) => `Expected time: ${f.number(minutes)} minutes.`,
        units: { min: 'min', sec: 's' },
        timeLeft: "This course's credit asks for active time on this page: {wait} more before this chapter can be marked complete.",
        timeMet: 'The active time asked for is reached.',
        tooEarly: 'Not complete yet: {wait} more on this page (it must be open and visible).',
      },
      quiz: {
        passMark: (score: number) => `Pass mark: ${f.number(score)}`,
        timeLimit: (minutes: number) => `Time limit: ${f.number(minutes)} minutes`,
        attempt: (n: number, max: number) => `Attempt ${f.number(n)} of ${f.number(max)}`,
        maxAttempts: (max: number) => `At most ${f.number(max)} attempts`,
        start: 'Start',
        submit: 'Submit answers',
        answerText: 'Your answer',
        until: (date: DateInput) => `Submit before ${f.dateTime(date) ?? ''}`,
        result: 'Result',
        score: (score: number) => `Score: ${f.number(score)}`,
        passed: 'Passed',
        failed: 'Not passed',
        attemptsLeft: (n: number) => `Attempts left: ${f.number(n)}`,
        tryAgain: 'Try again',
        certificateEarned: 'Congratulations! Your certificate has been issued.',
      },
      certificate: {
        title: 'Certificate',
        statement: 'This certifies that',
        completed: 'has completed the course',
        membershipId: 'Membership number',
        kum: 'KUM points',
        issuedOn: 'Issued on',
        institution: 'Provider',
        code: 'Verification code',
        verifyAt: 'Check it at',
        print: "Use your browser's print function to print this page.",
        valid: 'This certificate is valid.',
        revoked: 'This certificate was revoked on {date}. Reason: {reason}',
        mine: 'My certificates',
        open: 'View certificate',
        credential: 'Download the digital credential (Open Badges 3.0)',
        credentialHint: 'A signed file anyone can verify, for your digital wallet or your association.',
      },
    },
  };
}
