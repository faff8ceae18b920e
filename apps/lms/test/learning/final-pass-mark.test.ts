import t from 'tap';
import { quizValues } from '../../src/pages/studio/forms.js';
import { buildTestApp } from '../helpers/app.js';
import { bySession, rightAnswers, sampleDocument } from '../helpers/authoring.js';
import { makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// The final exam ignored its own pass mark (issue 40, finding 11): the studio stored 80 on the
// final exam, while the learner's page said "pass mark 70" and graded by the course's setting. One
// rule now decides it (rules/pass-mark.ts: the course's minPassingScore), and the studio's
// final-exam form, the JSON API, the catalog, the learner's pages, the grading and the
// certificate all follow it.

const ORIGIN = 'http://localhost:3000';
const { app, db } = await buildTestApp(t);
const institutionId = await makeInstitution(db.db);
const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
const author = await bySession(app, teacher.id);
const teacherCookie = await sessionCookieFor(app, teacher.id);
const created = await author(
  'POST',
  '/api/course-documents',
  sampleDocument({ institutionId, teacherId: teacher.id }, { modules: 1, chapters: 1 }),
);
if (created.status !== 201) throw new Error(`the course: ${JSON.stringify(created.body).slice(0, 300)}`);
const courseId = created.body.courseId as number;
const published = await author('POST', `/api/courses/${courseId}/publication`);
if (published.status !== 200) throw new Error(`published: ${published.status}`);
const doc = created.body.document;
const [ch1] = doc.modules[0].chapters;
const learnerUser = await makeUser(db.db, { name: 'Budi' });
const learner = await bySession(app, learnerUser.id);
const learnerCookie = await sessionCookieFor(app, learnerUser.id);
const page = (url: string, cookie: string, lang: string) => app.inject({ url, headers: { cookie, 'accept-language': lang } });
const catalogFinal = async () => {
  const c = (await learner('GET', `/api/courses?courseId=${courseId}`)).body.courses[0];
  return { minPassingScore: c.minPassingScore, finalExam: c.finalExam.minimumScore };
};

t.test("the studio's final-exam form sets the pass mark the final exam is graded by", async (t) => {
  t.same(await catalogFinal(), { minPassingScore: 70, finalExam: 70 }, 'before: 70');
  const form = await page(`/dashboard/studio/quizzes/final/${courseId}`, teacherCookie, 'en');
  t.equal(form.statusCode, 200);
  t.match(form.body, 'Final exam pass mark (%): the course', 'the field says whose pass mark it is');
  t.match(form.body, /name="minimumScore"[^>]*value="70"/, 'and shows the one the exam is graded by');
  const version = /name="version" value="(\d+)"/.exec(form.body)![1]!;
  const fields = { ...quizValues(doc.finalExam, Number(version), 0), minimumScore: '80', action: 'save' };
  const saved = await app.inject({
    method: 'POST',
    url: `/dashboard/studio/quizzes/final/${courseId}`,
    headers: { cookie: teacherCookie, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields as Record<string, string>).toString(),
  });
  t.equal(saved.statusCode, 303, saved.body.slice(0, 300));

  t.same(await catalogFinal(), { minPassingScore: 80, finalExam: 80 }, 'the catalog API says 80, in both fields');
  const exported = (await author('GET', `/api/courses/${courseId}/document`)).body.document;
  t.equal(exported.course.minPassingScore, 80, "the document: the course's minPassingScore");
  t.equal(exported.finalExam.minimumScore, 80, 'and its final exam, the same');
  const history = (await author('GET', `/api/courses/${courseId}/history`)).body;
  t.match(
    history.events[0],
    { action: 'quiz.replace', changes: [{ path: 'course.minPassingScore', from: 70, to: 80 }] },
    'the change is in the course history',
  );
  for (const [lang, words] of [
    ['en', 'pass mark 80'],
    ['id', 'nilai lulus 80'],
  ] as const) {
    t.match((await page(`/dashboard/courses/${courseId}`, learnerCookie, lang)).body, words, `${lang}: the course page says 80`);
  }
});

t.test('graded by 80: 75 fails and earns nothing, 100 passes and earns the certificate', async (t) => {
  t.equal((await learner('POST', `/api/learning/courses/${courseId}/enrollment`, {})).status, 201);
  t.equal((await learner('POST', `/api/learning/chapters/${ch1.id}/completion`)).status, 201);
  for (const quiz of [ch1.quiz, doc.modules[0].quiz]) {
    const a = await learner('POST', `/api/learning/quizzes/${quiz.id}/attempts`);
    t.equal(
      (await learner('POST', `/api/learning/quiz-attempts/${a.body.attemptId}/submission`, { answers: rightAnswers(quiz) })).body.passed,
      true,
    );
  }
  for (const [lang, words] of [
    ['en', 'Pass mark: 80'],
    ['id', 'Nilai lulus: 80'],
  ] as const) {
    const quizPage = await page(`/learn/quizzes/${doc.finalExam.id}`, learnerCookie, lang);
    t.equal(quizPage.statusCode, 200);
    t.match(quizPage.body, words, `${lang}: the final exam's page says 80`);
  }
  const first = await learner('POST', `/api/learning/quizzes/${doc.finalExam.id}/attempts`);
  t.equal(first.status, 201);
  t.equal(first.body.quiz.passMark, 80, 'the attempt is started at 80');
  const multi = doc.finalExam.questions.find((q: { questionType: string }) => q.questionType === 'multiple_answer');
  const threeOfFour = { ...rightAnswers(doc.finalExam), [multi.id]: 'a' };
  const failed = await learner('POST', `/api/learning/quiz-attempts/${first.body.attemptId}/submission`, { answers: threeOfFour });
  t.match(failed.body, { score: 75, passMark: 80, passed: false, certificateCode: null }, '75 is below 80');
  t.same((await learner('GET', '/api/learning/certificates')).body.certificates, [], 'no certificate');
  const attemptPage = await page(`/learn/quiz-attempts/${first.body.attemptId}`, learnerCookie, 'en');
  t.match(attemptPage.body, 'Pass mark: 80');

  const second = await learner('POST', `/api/learning/quizzes/${doc.finalExam.id}/attempts`);
  const passed = await learner('POST', `/api/learning/quiz-attempts/${second.body.attemptId}/submission`, {
    answers: rightAnswers(doc.finalExam),
  });
  t.match(passed.body, { score: 100, passMark: 80, passed: true });
  t.match(passed.body.certificateCode, /^[0-9a-f]{32}$/, 'the certificate, at 80');
});

t.test('the JSON API: the final exam write sets the pass mark; a document that contradicts itself is a 400', async (t) => {
  const final = (await author('GET', `/api/courses/${courseId}/document`)).body.document.finalExam;
  const put = await author('PUT', `/api/courses/${courseId}/final-exam`, { ...final, id: undefined, minimumScore: 90 });
  t.equal(put.status, 200, JSON.stringify(put.body).slice(0, 300));
  t.equal(put.body.quiz.minimumScore, 90);
  t.same(await catalogFinal(), { minPassingScore: 90, finalExam: 90 });
  const { minimumScore: _, ...withoutMark } = { ...final, id: undefined };
  t.equal((await author('PUT', `/api/courses/${courseId}/final-exam`, withoutMark)).status, 200);
  t.same(await catalogFinal(), { minPassingScore: 90, finalExam: 90 }, 'left out: the pass mark stays');

  const contradiction = sampleDocument({ institutionId, teacherId: teacher.id }, { modules: 1, chapters: 1 });
  contradiction.course.minPassingScore = 80;
  contradiction.finalExam!.minimumScore = 60;
  const refused = await author('POST', '/api/course-documents', contradiction);
  t.equal(refused.status, 400);
  t.equal(refused.body.success, false);
  t.match(JSON.stringify(refused.body), /finalExam\.minimumScore/, 'the error names the field');
  t.match(JSON.stringify(refused.body), /course's minPassingScore \(80\)/, 'and the pass mark that holds');
  const omitted = sampleDocument({ institutionId, teacherId: teacher.id }, { modules: 1, chapters: 1 });
  omitted.course.minPassingScore = 80;
  delete (omitted.finalExam as { minimumScore?: number }).minimumScore;
  const imported = await author('POST', '/api/course-documents', omitted);
  t.equal(imported.status, 201, 'left out in a document: the course’s');
  t.equal(imported.body.document.finalExam.minimumScore, 80);
});

t.test("attackers: nobody else changes the final exam's pass mark", async (t) => {
  const otherInstitution = await makeInstitution(db.db, 'Lain');
  const outsider = await bySession(app, (await makeUser(db.db, { role: 'teacher', institutionId: otherInstitution })).id);
  const final = (await author('GET', `/api/courses/${courseId}/document`)).body.document.finalExam;
  for (const [who, as] of [
    ["another institution's teacher", outsider],
    ['a learner of the course', learner],
  ] as const) {
    const res = await as('PUT', `/api/courses/${courseId}/final-exam`, { ...final, id: undefined, minimumScore: 0 });
    t.ok([403, 404].includes(res.status), `${who}: refused (${res.status})`);
    t.equal(res.body.success, false);
  }
  t.same(await catalogFinal(), { minPassingScore: 90, finalExam: 90 }, 'the pass mark is unchanged');
});
