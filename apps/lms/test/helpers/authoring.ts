import type { Test } from 'tap';
import type { LmsApp } from '../../src/app.js';
import { buildTestApp } from './app.js';
import type { CourseCreator } from './course-creation.js';
import { creationHeaders } from './course-creation.js';
import { makeInstitution, makeUser, sessionCookieFor } from './fixtures.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One authoring call and its answer, as a test reads it. */
export interface Call {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a test reads answers of many shapes, as light-my-request's json() gives them.
  body: any;
  headers: Record<string, unknown>;
}

/** Calls the LMS's authoring routes as one author: a person's session (with the CSRF header) or a partner through the gateway. */
export type Author = (method: Method, url: string, payload?: unknown, headers?: Record<string, string>) => Promise<Call>;

async function call(app: LmsApp, method: Method, url: string, headers: Record<string, string>, payload?: unknown): Promise<Call> {
  const res = await app.inject({
    method,
    url,
    headers: { ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(payload === undefined ? {} : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  });
  let body: unknown = res.body;
  try {
    body = res.json();
  } catch {}
  return { status: res.statusCode, body, headers: res.headers };
}

/** A person by session, sending `x-requested-with` as the pages do. */
export async function bySession(app: LmsApp, userId: string): Promise<Author> {
  const cookie = await sessionCookieFor(app, userId);
  return (method, url, payload, headers = {}) => call(app, method, url, { cookie, 'x-requested-with': 'test', ...headers }, payload);
}

/** A partner as the gateway forwards it: the gateway's credential and a fresh bearer token per call. */
export function byPartner(app: LmsApp, partner: CourseCreator): Author {
  return (method, url, payload, headers = {}) => {
    const { 'content-type': _, ...forwarded } = creationHeaders(partner.token());
    return call(app, method, url, { ...forwarded, ...headers }, payload);
  };
}

const choice = (text: string, right: number, n = 4) => ({
  questionType: 'multiple_choice',
  questionText: text,
  points: 10,
  options: Array.from({ length: n }, (_, i) => ({ id: 'abcdefghij'[i], text: `Pilihan ${i + 1}`, isCorrect: i === right })),
  explanation: 'Karena itu jawabannya.',
});

/** A quiz with one question of each scored kind (and an essay when `essay`), every answer 'a' or 'benar'. */
export function sampleQuiz(name: string, options: { essay?: boolean; questions?: number } = {}) {
  const extra = Array.from({ length: Math.max(0, (options.questions ?? 4) - 4) }, (_, i) => choice(`Soal tambahan ${i + 1}`, 0));
  return {
    name,
    description: `Kuis ${name}`,
    minimumScore: 60,
    timeLimit: 10,
    maxAttempts: 3,
    questions: [
      choice(`Apa inti ${name}?`, 0),
      {
        questionType: 'multiple_answer',
        questionText: 'Pilih semua yang benar',
        points: 10,
        options: [
          { id: 'a', text: 'Benar satu', isCorrect: true },
          { id: 'b', text: 'Salah', isCorrect: false },
          { id: 'c', text: 'Benar dua', isCorrect: true },
        ],
      },
      {
        questionType: 'true_false',
        questionText: 'Pernyataan ini benar',
        points: 10,
        options: [
          { id: 'a', text: 'Benar', isCorrect: true },
          { id: 'b', text: 'Salah', isCorrect: false },
        ],
      },
      { questionType: 'short_answer', questionText: 'Tulis kata "benar"', points: 10, correctAnswer: 'benar' },
      ...extra,
      ...(options.essay ? [{ questionType: 'essay', questionText: 'Jelaskan', points: 20, essayAnswer: 'Jawaban model' }] : []),
    ],
  };
}

/** The right answers of sampleQuiz's questions, by their ids (as a learner submits them). */
export function rightAnswers(quiz: { questions: { id: number; questionType: string; options: { id: string; isCorrect: boolean }[] }[] }) {
  const answers: Record<string, string> = {};
  for (const q of quiz.questions) {
    if (q.questionType === 'short_answer') answers[q.id] = 'Benar';
    else if (q.questionType === 'essay') answers[q.id] = 'Esai saya';
    else
      answers[q.id] = q.options
        .filter((o) => o.isCorrect)
        .map((o) => o.id)
        .join(',');
  }
  return answers;
}

/** A valid course document: `modules` × `chapters`, a quiz on every chapter and module, a final exam. */
export function sampleDocument(
  owner: { institutionId: number; teacherId: string },
  shape: { modules?: number; chapters?: number; name?: string; quizzes?: boolean } = {},
) {
  const modules = shape.modules ?? 2;
  const chapters = shape.chapters ?? 2;
  const quizzes = shape.quizzes ?? true;
  return {
    format: 'lms-course/1',
    course: {
      ...owner,
      name: shape.name ?? 'Etika Profesi Akuntan',
      description: 'Kursus tentang etika profesi.',
      instructor: 'Dr. Sari',
      courseCode: 'EPA-01',
      enrollmentType: 'open',
      eventCode: 'EV-EPA-01',
      // Credit is an accreditation's (an admin's), never a document's: a new course has none.
      nilaiKum: null,
      minPassingScore: 70,
      isPurchasable: false,
      price: '0',
    },
    modules: Array.from({ length: modules }, (_, m) => ({
      name: `Modul ${m + 1}`,
      description: `Isi modul ${m + 1}`,
      quiz: quizzes ? sampleQuiz(`Kuis Modul ${m + 1}`) : null,
      chapters: Array.from({ length: chapters }, (_, c) => ({
        name: `Bab ${m + 1}.${c + 1}`,
        content: `# Bab ${m + 1}.${c + 1}\n\nBacaan **penting** untuk bab ini.`,
        quiz: quizzes ? sampleQuiz(`Kuis Bab ${m + 1}.${c + 1}`) : null,
      })),
    })),
    // The final exam is graded by the course's minPassingScore: a document gives the same number or none.
    finalExam: quizzes ? { ...sampleQuiz('Ujian Akhir', { essay: true }), minimumScore: 70 } : null,
  };
}

/** A test app with an institution, its teacher (by session) and a sample course the teacher imported. */
export async function teacherWithSampleCourse(t: Test) {
  const { app, db } = await buildTestApp(t);
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const as = await bySession(app, teacher.id);
  const created = await as('POST', '/api/course-documents', sampleDocument({ institutionId, teacherId: teacher.id }));
  t.equal(created.status, 201, JSON.stringify(created.body).slice(0, 300));
  return { app, db, institutionId, teacher, as, created, courseId: created.body.courseId as number };
}
