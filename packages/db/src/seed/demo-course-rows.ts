/**
 * One demo course as rows: the course (and its KUM accreditation), its modules, chapters,
 * quizzes and questions with keys. demo.ts calls it for each catalog course not there yet.
 */
import type { Db } from '../client.js';
import { chapters, courseAccreditations, courses, modules, questions, quizzes, type QuestionOption } from '../schema/index.js';
import { chapterNamesFor, DEMO_INSTITUTION, detailSectionsFor, type DemoCourse } from './demo-catalog.js';
import { DAY_MS, money } from './demo-util.js';

export async function insertCourse(
  tx: Db,
  course: DemoCourse,
  index: number,
  ctx: { teacherId: string; categoryId: number | null; now: Date; count: (t: string, n: number) => void },
): Promise<number> {
  const start = new Date(ctx.now.getTime() - (90 - index) * DAY_MS);
  start.setUTCHours(1, 0, 0, 0);
  const end = new Date(start.getTime() + (course.type === 'scheduled' ? 45 : 365) * DAY_MS);
  const sections = detailSectionsFor(course);
  const [row] = await tx
    .insert(courses)
    .values({
      name: course.name,
      description: `Kelas ${course.name.toLowerCase()} yang disusun oleh ${course.instructor}: materi ringkas, contoh dari praktik di Indonesia, kuis di setiap bab dan ujian akhir bersertifikat.`,
      instructor: course.instructor,
      courseCode: course.code,
      type: course.type ?? 'self_paced',
      enrollmentType: course.enrollmentType ?? 'code',
      enrollmentCode: (course.enrollmentType ?? 'code') === 'code' ? `DAFTAR-${course.code}` : null,
      startDate: start,
      endDate: end,
      teacherId: ctx.teacherId,
      institutionId: DEMO_INSTITUTION.id,
      categoryId: ctx.categoryId,
      eventCode: course.state === 'live' ? `EV-${course.code}-2025` : null,
      isPublished: course.state !== 'draft',
      nilaiKum: course.nilaiKum,
      coverPicture: `https://images.demo.lms/covers/${course.code.toLowerCase()}.jpg`,
      previewMode: index % 5 === 0,
      isPurchasable: course.price > 0,
      price: money(course.price),
      priceNonMember: course.priceNonMember === null ? null : money(course.priceNonMember),
      priceMahasiswa: course.priceMahasiswa === null ? null : money(course.priceMahasiswa),
      currency: 'IDR',
      minPassingScore: 70,
      ...sections,
    })
    .returning({ id: courses.id });
  const courseId = row.id;
  ctx.count('courses', 1);
  if (course.nilaiKum !== null && course.nilaiKum > 0) {
    // The value a learner earns is an accreditation's (docs/authoring.md, "Accreditations").
    await tx.insert(courseAccreditations).values({
      courseId,
      scheme: 'KUM',
      reference: `SK-DEMO-${course.code}`,
      validFrom: new Date('2000-01-01T00:00:00Z'),
      value: course.nilaiKum,
    });
  }

  const moduleRows = await tx
    .insert(modules)
    .values(
      course.modules.map((name, i) => ({
        courseId,
        name,
        description: `Modul ${i + 1}: ${name}.`,
        orderIndex: i + 1,
      })),
    )
    .returning({ id: modules.id, orderIndex: modules.orderIndex, name: modules.name });
  ctx.count('modules', moduleRows.length);

  const chapterValues = moduleRows.flatMap((m) =>
    chapterNamesFor(m.name, m.orderIndex).map((name, i) => ({
      moduleId: m.id,
      courseId,
      name,
      content: `<h2>${name}</h2><p>Materi bab ini membahas ${name.toLowerCase()} dengan contoh kasus dan rangkuman di akhir bab.</p>`,
      orderIndex: i + 1,
    })),
  );
  const chapterRows = await tx
    .insert(chapters)
    .values(chapterValues)
    .returning({ id: chapters.id, moduleId: chapters.moduleId, orderIndex: chapters.orderIndex, name: chapters.name });
  ctx.count('chapters', chapterRows.length);

  // A quiz on the first chapter of each module, a quiz per module and the final exam.
  const quizValues = [
    ...chapterRows
      .filter((c) => c.orderIndex === 1)
      .map((c) => ({
        courseId,
        scope: 'chapter' as const,
        chapterId: c.id,
        name: `Kuis: ${c.name}`,
        description: 'Kuis singkat untuk memeriksa pemahaman bab.',
        minimumScore: 60,
        timeLimit: 10,
        maxAttempts: 3,
        topic: c.name,
      })),
    ...moduleRows.map((m) => ({
      courseId,
      scope: 'module' as const,
      moduleId: m.id,
      name: `Kuis Modul ${m.orderIndex}: ${m.name}`,
      description: 'Kuis akhir modul.',
      minimumScore: 70,
      timeLimit: 20,
      maxAttempts: 3,
      topic: m.name,
    })),
    {
      courseId,
      scope: 'final' as const,
      name: `Ujian Akhir ${course.name}`,
      description: 'Ujian akhir: lulus untuk memperoleh sertifikat dan SKPK.',
      quizType: 'mixed',
      minimumScore: 70,
      timeLimit: 60,
      maxAttempts: 2,
      topic: course.name,
    },
  ];
  const quizRows = await tx
    .insert(quizzes)
    .values(quizValues.map(({ topic: _topic, ...q }) => q))
    .returning({ id: quizzes.id, scope: quizzes.scope });
  ctx.count('quizzes', quizRows.length);

  const questionValues = quizRows.flatMap((q, i) => questionsFor(q.id, quizValues[i].topic, q.scope === 'final'));
  await tx.insert(questions).values(questionValues);
  ctx.count('questions', questionValues.length);
  return courseId;
}

/** Three multiple-choice questions (and a true/false and an essay for a final exam), with keys. */
function questionsFor(quizId: number, topic: string, final: boolean) {
  const mc = (order: number, text: string, options: [string, string, string, string], correct: number, explanation: string) => {
    const opts: QuestionOption[] = options.map((t, i) => ({ id: 'abcd'[i], text: t, isCorrect: i === correct }));
    return {
      quizId,
      questionText: text,
      questionType: 'multiple_choice' as const,
      options: opts,
      correctAnswer: 'abcd'[correct],
      explanation,
      points: 10,
      orderIndex: order,
    };
  };
  const list = [
    mc(
      1,
      `Apa tujuan utama mempelajari "${topic}"?`,
      [
        'Menghafal istilah tanpa konteks',
        'Menerapkan prinsipnya dalam pekerjaan',
        'Menghindari kewajiban pelaporan',
        'Mengganti peran auditor eksternal',
      ],
      1,
      `Materi "${topic}" dirancang agar dapat langsung diterapkan dalam praktik.`,
    ),
    mc(
      2,
      `Manakah langkah pertama yang paling tepat dalam ${topic.toLowerCase()}?`,
      [
        'Mengidentifikasi ketentuan yang berlaku',
        'Langsung menyusun laporan akhir',
        'Meminta persetujuan direksi',
        'Mengabaikan dokumentasi',
      ],
      0,
      'Setiap penerapan dimulai dengan memahami ketentuan yang berlaku.',
    ),
    mc(
      3,
      `Dokumen apa yang sebaiknya disimpan sebagai bukti penerapan ${topic.toLowerCase()}?`,
      ['Catatan pribadi yang tidak diarsipkan', 'Percakapan lisan saja', 'Kertas kerja dan dokumen pendukung', 'Tidak perlu ada dokumen'],
      2,
      'Kertas kerja dan dokumen pendukung memungkinkan penelaahan ulang.',
    ),
  ];
  if (!final) return list;
  return [
    ...list,
    {
      quizId,
      questionText: `Benar atau salah: ${topic} hanya relevan bagi perusahaan terbuka.`,
      questionType: 'true_false' as const,
      options: [
        { id: 'a', text: 'Benar', isCorrect: false },
        { id: 'b', text: 'Salah', isCorrect: true },
      ],
      correctAnswer: 'b',
      explanation: 'Prinsipnya berlaku pula bagi entitas lain, termasuk UMKM dan sektor publik.',
      points: 10,
      orderIndex: 4,
    },
    {
      quizId,
      questionText: `Jelaskan dengan singkat bagaimana Anda akan menerapkan ${topic.toLowerCase()} di tempat kerja Anda.`,
      questionType: 'essay' as const,
      options: [],
      correctAnswer: null,
      essayAnswer: 'Jawaban yang baik menyebut ketentuan yang berlaku, langkah penerapan, dokumentasi dan evaluasi berkala.',
      explanation: 'Dinilai oleh pengajar dengan rubrik.',
      points: 20,
      orderIndex: 5,
    },
  ];
}
