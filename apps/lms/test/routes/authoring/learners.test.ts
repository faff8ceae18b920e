import t from 'tap';
import { VIDEO_FRAME_HOSTS } from '../../../src/pages/view/markdown.js';
import { MARKDOWN_PAGE_CSP } from '../../../src/pages/send.js';
import { buildTestApp } from '../../helpers/app.js';
import { type Author, bySession, rightAnswers, sampleDocument, sampleQuiz } from '../../helpers/authoring.js';
import { makeInstitution, makeUser, sessionCookieFor } from '../../helpers/fixtures.js';
import { findUnsafeHtml, XSS_VECTORS } from '../../helpers/unsafe-html.js';

// Changes under learners' feet: a course with learners may change, but nothing a learner earned
// is lost or silently altered (completions, attempts, scores, certificates), and an author's
// Markdown reaches the learner's page only sanitized.

t.test('authors edit a course while a learner takes it', async (t) => {
  const { app, db } = await buildTestApp(t);
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const author = await bySession(app, teacher.id);
  const created = await author(
    'POST',
    '/api/course-documents',
    sampleDocument({ institutionId, teacherId: teacher.id }, { modules: 1, chapters: 2 }),
  );
  const courseId = created.body.courseId as number;
  // Its credit: an accreditation the institution's admin records (a teacher cannot give credit).
  const admin = await bySession(app, (await makeUser(db.db, { role: 'admin', institutionId })).id);
  const accredited = await admin('POST', `/api/courses/${courseId}/accreditations`, {
    scheme: 'KUM',
    reference: 'SK-TEST-001',
    validFrom: '2000-01-01',
    value: 2.5,
  });
  t.equal(accredited.status, 201, JSON.stringify(accredited.body));
  t.equal((await author('POST', `/api/courses/${courseId}/publication`)).status, 200);
  // The document as it stands once accredited (its nilaiKum is the accreditation's).
  const doc = (await author('GET', `/api/courses/${courseId}/document`)).body.document;
  t.equal(doc.course.nilaiKum, 2.5);
  const [ch1, ch2] = doc.modules[0].chapters;

  const learnerUser = await makeUser(db.db, { name: 'Budi' });
  const learner: Author = await bySession(app, learnerUser.id);
  t.equal((await learner('POST', `/api/learning/courses/${courseId}/enrollment`, {})).status, 201);
  t.equal((await learner('POST', `/api/learning/chapters/${ch1.id}/completion`)).status, 201);
  const attempt1 = await learner('POST', `/api/learning/quizzes/${ch1.quiz.id}/attempts`);
  t.equal(attempt1.status, 201);
  const scored1 = await learner('POST', `/api/learning/quiz-attempts/${attempt1.body.attemptId}/submission`, {
    answers: rightAnswers(ch1.quiz),
  });
  t.equal(scored1.body.score, 100, 'every kind scored right, multiple_answer with both right options');
  const wrongMulti = { ...rightAnswers(ch1.quiz), [ch1.quiz.questions[1].id]: 'a' };
  t.equal((await learner('POST', `/api/learning/quizzes/${ch1.quiz.id}/attempts`)).status, 201);

  // What the learner holds cannot be deleted: a completed chapter, an attempted quiz, the module holding them.
  for (const [what, method, url] of [
    ['the completed chapter', 'DELETE', `/api/chapters/${ch1.id}`],
    ['its attempted quiz', 'DELETE', `/api/chapters/${ch1.id}/quiz`],
    ['the module', 'DELETE', `/api/modules/${doc.modules[0].id}`],
  ] as const) {
    const res = await author(method, url);
    t.equal(res.status, 409, what);
    t.match(res.body.error, /Learners' records would be lost/);
  }
  const leaveOut = structuredClone(doc);
  leaveOut.modules[0].chapters.shift();
  const replace = await author('PUT', `/api/courses/${courseId}/document`, leaveOut);
  t.equal(replace.status, 409, 'a replace that leaves the completed chapter out');
  t.match(replace.body.error, new RegExp(`chapter ${ch1.id} "${ch1.name}" has 1 completion`));
  t.same((await author('GET', `/api/courses/${courseId}/document`)).body.document, doc, 'and nothing of it was written');
  // Its text may change.
  t.equal((await author('PATCH', `/api/chapters/${ch1.id}`, { name: 'Bab pertama (baru)' })).status, 200);

  // An open attempt keeps the questions it began with: the author rewrites every key of the quiz meanwhile.
  const open = await learner('POST', `/api/learning/quizzes/${ch1.quiz.id}/attempts`);
  t.equal(open.status, 200, 'the open attempt again');
  const shown = open.body.questions.map((q: { questionText: string }) => q.questionText);
  const rewritten = sampleQuiz('Kuis ditulis ulang');
  for (const q of rewritten.questions) {
    q.questionText = `Baru: ${q.questionText}`;
    if ('options' in q && q.options) for (const o of q.options) o.isCorrect = !o.isCorrect;
  }
  rewritten.questions = rewritten.questions.filter((q) => q.questionType !== 'true_false' && q.questionType !== 'multiple_choice');
  rewritten.questions.push({ ...rewritten.questions[0], questionType: 'short_answer', options: undefined, correctAnswer: 'lain' } as never);
  rewritten.questions.shift();
  rewritten.minimumScore = 100;
  const put = await author('PUT', `/api/chapters/${ch1.id}/quiz`, rewritten);
  t.equal(put.status, 200, JSON.stringify(put.body));
  const again = await app.inject({
    url: `/learn/quiz-attempts/${open.body.attemptId}`,
    headers: { cookie: await sessionCookieFor(app, learnerUser.id) },
  });
  for (const text of shown) t.match(again.body, text.replace(/"/g, '&quot;'), 'the attempt page shows the questions it began with');
  t.notMatch(again.body, /Baru:/);
  const scoredOpen = await learner('POST', `/api/learning/quiz-attempts/${open.body.attemptId}/submission`, { answers: wrongMulti });
  t.equal(scoredOpen.status, 200);
  t.equal(scoredOpen.body.score, 75, 'scored with the keys it began with (3 of 4 right)');
  t.equal(scoredOpen.body.passMark, 60, 'and the pass mark it began with');
  t.equal(scoredOpen.body.passed, true);

  // Finish the course: a certificate. Then the author adds a chapter and changes the KUM: the certificate stays.
  t.equal((await learner('POST', `/api/learning/chapters/${ch2.id}/completion`)).status, 201);
  const a2 = await learner('POST', `/api/learning/quizzes/${ch2.quiz.id}/attempts`);
  await learner('POST', `/api/learning/quiz-attempts/${a2.body.attemptId}/submission`, { answers: rightAnswers(ch2.quiz) });
  const am = await learner('POST', `/api/learning/quizzes/${doc.modules[0].quiz.id}/attempts`);
  await learner('POST', `/api/learning/quiz-attempts/${am.body.attemptId}/submission`, { answers: rightAnswers(doc.modules[0].quiz) });
  const af = await learner('POST', `/api/learning/quizzes/${doc.finalExam.id}/attempts`);
  t.equal(af.status, 201, JSON.stringify(af.body));
  const final = await learner('POST', `/api/learning/quiz-attempts/${af.body.attemptId}/submission`, {
    answers: rightAnswers(doc.finalExam),
  });
  t.equal(final.body.scoredQuestions, 4, 'the essay is not scored');
  t.equal(final.body.score, 100);
  const code = final.body.certificateCode as string;
  t.match(code, /^[0-9a-f]{32}$/, 'certificate issued');
  t.equal((await author('POST', `/api/modules/${doc.modules[0].id}/chapters`, { name: 'Bab tambahan' })).status, 201);
  t.equal((await author('PATCH', `/api/courses/${courseId}`, { nilaiKum: 10 })).status, 403, 'a teacher does not change the KUM');
  const accreditationId = accredited.body.accreditation.id as number;
  t.equal((await admin('PATCH', `/api/courses/${courseId}/accreditations/${accreditationId}`, { value: 10 })).status, 200);
  const certs = await learner('GET', '/api/learning/certificates');
  t.match(certs.body.certificates, [{ code, courseId, kum: 2.5 }], 'the certificate stays, with the KUM it was issued with');
  t.equal((await app.inject(`/certificates/${code}`)).statusCode, 200, 'and its public verification still answers');

  // Unpublished: out of the catalog, but the learner keeps the course.
  t.equal((await author('DELETE', `/api/courses/${courseId}/publication`)).status, 200);
  t.equal((await learner('GET', `/api/learning/chapters/${ch1.id}`)).status, 200, 'an enrolled learner still opens a chapter');

  // Crafted Markdown: every vector in one chapter, as the learner's page shows it.
  const markdown = Object.values(XSS_VECTORS).join('\n\n');
  t.equal((await author('PATCH', `/api/chapters/${ch1.id}`, { content: `${markdown}\n\n**tetap tebal**` })).status, 200);
  const page = await app.inject({ url: `/learn/chapters/${ch1.id}`, headers: { cookie: await sessionCookieFor(app, learnerUser.id) } });
  t.equal(page.statusCode, 200);
  t.equal(page.headers['content-security-policy'], MARKDOWN_PAGE_CSP);
  t.same(findUnsafeHtml(page.body, VIDEO_FRAME_HOSTS, { wholePage: true }), [], 'nothing on the page runs or frames another site');
  t.match(page.body, '<strong>tetap tebal</strong>', 'the Markdown is rendered');
  const stored = await author('GET', `/api/courses/${courseId}/document`);
  t.equal(stored.body.document.modules[0].chapters[0].content, `${markdown}\n\n**tetap tebal**`, 'stored as the author wrote it');
});
