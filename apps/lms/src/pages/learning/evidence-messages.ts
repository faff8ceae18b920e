import type { Format } from '../i18n/format.js';

// The words of credit evidence on the learner's side (what the certificate waits for, the
// evaluation form) and the managers' evaluation summary, in Bahasa Indonesia (the reference) and
// English. Spread into the catalogs (../i18n/id.ts, ../i18n/en.ts) as their `evidence` block.

export function evidenceMessagesId(f: Format) {
  return {
    evidence: {
      waiting: 'Sertifikat menunggu bukti berikut:',
      preTest: 'kerjakan pre-test',
      postTest: (min: number, best: number | null) =>
        `capai nilai post-test minimal ${f.number(min)}${best === null ? '' : ` (nilai terbaik Anda: ${f.number(best)})`}`,
      noQuiz: '(kursus ini belum memiliki kuis tersebut)',
      evaluation: 'isi evaluasi kursus',
      evaluationTitle: (course: string) => `Evaluasi kursus: ${course}`,
      intro: 'Beri nilai 1 (sangat tidak setuju) sampai 5 (sangat setuju) untuk setiap pernyataan. Jawaban Anda disimpan tanpa nama Anda.',
      scale: ['Sangat tidak setuju', 'Tidak setuju', 'Netral', 'Setuju', 'Sangat setuju'],
      comment: (max: number) => `Saran dan komentar (opsional, maksimal ${f.number(max)} karakter)`,
      submit: 'Kirim evaluasi',
      done: 'Anda sudah mengisi evaluasi kursus ini. Terima kasih.',
      notYet: 'Evaluasi terbuka setelah semua bab selesai.',
      invalid: 'Jawab setiap pernyataan dengan nilai 1 sampai 5; komentar berupa teks biasa.',
      backToCourse: '← Kembali ke kursus',
      summaryTitle: (course: string) => `Ringkasan evaluasi: ${course}`,
      summaryLink: 'Ringkasan evaluasi',
      responses: (n: number) => `${f.number(n)} tanggapan`,
      item: 'Pernyataan',
      average: 'Rata-rata',
      counts: 'Jumlah jawaban 1–5',
      comments: 'Komentar',
      noComments: 'Belum ada komentar.',
      fewResponses: (min: number) =>
        `Rata-rata dan komentar ditampilkan mulai ${f.number(min)} tanggapan, agar pengisinya tidak dapat dikenali.`,
      anonymous: 'Ringkasan ini tidak pernah menunjukkan siapa menulis apa.',
    },
  };
}

export function evidenceMessagesEn(f: Format): ReturnType<typeof evidenceMessagesId> {
  return {
    evidence: {
      waiting: 'The certificate waits for this evidence:',
      preTest: 'take the pre-test',
      postTest: (min: number, best: number | null) =>
        `reach a post-test score of at least ${f.number(min)}${best === null ? '' : ` (your best: ${f.number(best)})`}`,
      noQuiz: '(the course has no such quiz yet)',
      evaluation: 'fill in the course evaluation',
      evaluationTitle: (course: string) => `Course evaluation: ${course}`,
      intro: 'Rate each statement from 1 (strongly disagree) to 5 (strongly agree). Your answers are kept without your name.',
      scale: ['Strongly disagree', 'Disagree', 'Neutral', 'Agree', 'Strongly agree'],
      comment: (max: number) => `Suggestions and comments (optional, at most ${f.number(max)} characters)`,
      submit: 'Send the evaluation',
      done: 'You have filled in the evaluation of this course. Thank you.',
      notYet: 'The evaluation opens once every chapter is completed.',
      invalid: 'Answer every statement from 1 to 5; the comment is plain text.',
      backToCourse: '← Back to the course',
      summaryTitle: (course: string) => `Evaluation summary: ${course}`,
      summaryLink: 'Evaluation summary',
      responses: (n: number) => `${f.number(n)} response${n === 1 ? '' : 's'}`,
      item: 'Statement',
      average: 'Average',
      counts: 'Answers 1–5',
      comments: 'Comments',
      noComments: 'No comments yet.',
      fewResponses: (min: number) =>
        `Averages and comments are shown from ${f.number(min)} responses on, so that no one's answers can be recognised.`,
      anonymous: 'This summary never shows who wrote what.',
    },
  };
}
