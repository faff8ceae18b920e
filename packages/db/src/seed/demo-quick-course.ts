import { eq } from 'drizzle-orm';
import type { Db } from '../client.js';
import { chapters, courseAccreditations, courses, modules, questions, quizzes, type QuestionOption } from '../schema/index.js';

/**
 * A short course the demo member can take end to end in a few minutes (README "Try it"): enrol
 * with the code below, read three chapters (the first has a quiz that opens the second), pass
 * the module quiz and the final exam, get a certificate with 2 KUM. Free, so no purchase is needed.
 */
export const DEMO_QUICK_COURSE = {
  code: 'DEMO-001',
  enrollmentCode: 'COBA-DEMO',
  name: 'Kursus Singkat: Etika Profesi dalam 5 Menit',
  nilaiKum: 2,
} as const;

const option = (id: string, text: string, isCorrect: boolean): QuestionOption => ({ id, text, isCorrect });

/** Inserts the course once (matched on its code); returns the rows inserted per table. */
export async function insertQuickCourse(
  tx: Db,
  ctx: { teacherId: string; institutionId: number; categoryId: number | null; now: Date },
): Promise<Record<string, number>> {
  const [existing] = await tx.select({ id: courses.id }).from(courses).where(eq(courses.courseCode, DEMO_QUICK_COURSE.code));
  if (existing) return {};
  const [course] = await tx
    .insert(courses)
    .values({
      name: DEMO_QUICK_COURSE.name,
      description: 'Tiga bab pendek, satu kuis bab dan ujian akhir: cara tercepat mencoba LMS dari awal sampai sertifikat.',
      instructor: 'Budi Santoso, S.E., M.Ak.',
      courseCode: DEMO_QUICK_COURSE.code,
      enrollmentType: 'code',
      enrollmentCode: DEMO_QUICK_COURSE.enrollmentCode,
      startDate: ctx.now,
      teacherId: ctx.teacherId,
      institutionId: ctx.institutionId,
      categoryId: ctx.categoryId,
      eventCode: 'EV-DEMO-001',
      isPublished: true,
      nilaiKum: DEMO_QUICK_COURSE.nilaiKum,
      isPurchasable: false,
      price: '0',
      minPassingScore: 70,
    })
    .returning({ id: courses.id });
  const courseId = course.id;
  await tx.insert(courseAccreditations).values({
    courseId,
    scheme: 'KUM',
    reference: 'SK-DEMO-001',
    validFrom: new Date('2000-01-01T00:00:00Z'),
    value: DEMO_QUICK_COURSE.nilaiKum,
  });
  const [mod] = await tx
    .insert(modules)
    .values({ courseId, name: 'Etika Sehari-hari', description: 'Satu modul, tiga bab.', orderIndex: 1 })
    .returning({ id: modules.id });
  const chapterRows = await tx
    .insert(chapters)
    .values(
      [
        [
          'Apa itu etika profesi',
          'Etika profesi adalah aturan perilaku yang disepakati anggota suatu profesi.\n\nIntinya: jujur, cermat, dan menjaga kepercayaan klien.',
        ],
        [
          'Konflik kepentingan',
          'Konflik kepentingan terjadi ketika kepentingan pribadi dapat memengaruhi penilaian profesional.\n\nUngkapkan, lalu hindari.',
        ],
        [
          'Menjaga kerahasiaan',
          'Informasi klien hanya dipakai untuk tujuan penugasan.\n\nJangan membagikannya tanpa izin, kecuali diwajibkan hukum.',
        ],
      ].map(([name, content], i) => ({ moduleId: mod.id, courseId, name, content, orderIndex: i + 1 })),
    )
    .returning({ id: chapters.id });
  const [chapterQuiz, moduleQuiz, finalExam] = await tx
    .insert(quizzes)
    .values([
      {
        courseId,
        scope: 'chapter' as const,
        moduleId: mod.id,
        chapterId: chapterRows[0].id,
        name: 'Kuis: Apa itu etika profesi',
        minimumScore: 100,
        timeLimit: 10,
        maxAttempts: 3,
      },
      {
        courseId,
        scope: 'module' as const,
        moduleId: mod.id,
        name: 'Kuis Modul: Etika Sehari-hari',
        minimumScore: 50,
        timeLimit: 10,
        maxAttempts: 3,
      },
      { courseId, scope: 'final' as const, name: 'Ujian Akhir Etika Profesi', minimumScore: 70, timeLimit: 10, maxAttempts: 3 },
    ])
    .returning({ id: quizzes.id });
  await tx.insert(questions).values([
    {
      quizId: chapterQuiz.id,
      questionText: 'Etika profesi terutama bertujuan untuk...',
      options: [option('a', 'Menjaga kepercayaan klien dan publik', true), option('b', 'Menaikkan tarif jasa', false)],
      correctAnswer: 'a',
      explanation: 'Etika profesi menjaga kepercayaan.',
      orderIndex: 1,
    },
    {
      quizId: moduleQuiz.id,
      questionText: 'Sikap yang tepat terhadap informasi klien adalah...',
      options: [option('a', 'Menjaga kerahasiaannya', true), option('b', 'Menyebarkannya', false)],
      correctAnswer: 'a',
      orderIndex: 1,
    },
    {
      quizId: finalExam.id,
      questionText: 'Apa langkah pertama ketika ada konflik kepentingan?',
      options: [option('a', 'Mengungkapkannya', true), option('b', 'Mengabaikannya', false)],
      correctAnswer: 'a',
      orderIndex: 1,
    },
    {
      quizId: finalExam.id,
      questionText: 'Bolehkah informasi klien dibagikan tanpa izin?',
      options: [option('a', 'Boleh, jika berguna', false), option('b', 'Tidak, kecuali diwajibkan hukum', true)],
      correctAnswer: 'b',
      orderIndex: 2,
    },
  ]);
  return { courses: 1, modules: 1, chapters: 3, quizzes: 3, questions: 4 };
}
