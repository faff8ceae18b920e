import { sql } from 'drizzle-orm';
import t from 'tap';
import { bySession, sampleQuiz, teacherWithSampleCourse } from '../../helpers/authoring.js';
import { apiKeyFor, makeInstitution, makeUser } from '../../helpers/fixtures.js';

// The question bank and the import routes (docs/authoring.md, "Question bank", "Importing
// questions"): who may read and write them, what an import writes (all of it or nothing), a
// quiz's draw settings through the quiz PUT and the course document, and the checklist.

const GIFT = [
  '$CATEGORY: etika',
  '::a:: Siapa penanda tangan laporan audit? {=Akuntan publik ~Direksi ~Komisaris}',
  '',
  'Laba bisa negatif. {T}',
  '',
  'PSAK singkatan dari? {=Pernyataan Standar Akuntansi Keuangan}',
].join('\n');

t.test('import into the bank, read it, replace it; a quiz draws from it', async (t) => {
  const { app, db, as, created, courseId, institutionId } = await teacherWithSampleCourse(t);
  const bankSize = async () =>
    Number((await db.db.execute(sql`select count(*)::int as n from bank_questions where course_id = ${courseId}`)).rows[0]!.n);

  const imported = await as('POST', `/api/courses/${courseId}/question-imports`, { format: 'gift', text: GIFT, tags: ['bab-1'] });
  t.equal(imported.status, 201, JSON.stringify(imported.body).slice(0, 400));
  t.match(imported.body, { success: true, courseId, quizId: null, imported: 3 });
  const bank = await as('GET', `/api/courses/${courseId}/question-bank`);
  t.equal(bank.status, 200);
  t.same(
    bank.body.questions.map((q: { questionType: string; tags: string[] }) => [q.questionType, q.tags]),
    [
      ['multiple_choice', ['bab-1', 'etika']],
      ['true_false', ['bab-1', 'etika']],
      ['short_answer', ['bab-1', 'etika']],
    ],
  );
  t.match(bank.body.questions[0].options, [{ id: 'a', text: 'Akuntan publik', isCorrect: true }], 'the author sees the keys');

  // A text with problems: 400 naming each with its line; nothing written.
  const bad = await as('POST', `/api/courses/${courseId}/question-imports`, {
    format: 'gift',
    text: 'Baik {=a ~b}\n\nBerapa? {#4}\n\nRusak {=a ~b\n',
  });
  t.equal(bad.status, 400);
  t.match(bad.body, {
    success: false,
    error: /nothing was written: line 3: numeric questions are not supported; line 5: the answer block/,
    problems: [
      { line: 3, code: 'unsupported_type', detail: 'numeric' },
      { line: 5, code: 'unclosed_brace' },
    ],
  });
  t.equal(await bankSize(), 3, 'the good question of a refused import is not written either');
  for (const [format, text] of [
    ['aiken', 'Q\nA. x\nB. y\nANSWER: C'],
    ['csv', 'soal,jawaban\nQ,A'],
  ]) {
    const res = await as('POST', `/api/courses/${courseId}/question-imports`, { format, text });
    t.equal(res.status, 400, `${format}: refused`);
    t.match(res.body.problems, [{ line: format === 'aiken' ? 4 : 1 }], `${format}: the line is named`);
  }
  const unknown = await as('POST', `/api/courses/${courseId}/question-imports`, { format: 'xml', text: 'x' });
  t.equal(unknown.status, 400, 'an unknown format');

  // Into a quiz of the course: appended, the quiz's version moves; a quiz of another course is a 400.
  const quiz = created.body.document.modules[0].chapters[0].quiz;
  const into = await as('POST', `/api/courses/${courseId}/question-imports`, {
    format: 'aiken',
    text: 'Apa itu IAI?\nA. Ikatan Akuntan Indonesia\nB. Lain\nANSWER: A',
    quizId: quiz.id,
  });
  t.equal(into.status, 201, JSON.stringify(into.body).slice(0, 300));
  const doc = (await as('GET', `/api/courses/${courseId}/document`)).body.document;
  const after = doc.modules[0].chapters[0].quiz;
  t.equal(after.questions.length, quiz.questions.length + 1);
  t.equal(after.questions.at(-1).questionText, 'Apa itu IAI?');
  const otherTeacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const theirs = await (await bySession(app, otherTeacher.id))('POST', '/api/course-documents', {
    format: 'lms-course/1',
    course: { institutionId, teacherId: otherTeacher.id, name: 'Lain', categoryId: doc.course.categoryId },
    modules: [{ name: 'm', chapters: [{ name: 'c', quiz: sampleQuiz('q') }] }],
  });
  t.equal(theirs.status, 201, JSON.stringify(theirs.body).slice(0, 300));
  const foreignQuiz = theirs.body.document.modules[0].chapters[0].quiz.id;
  const wrongQuiz = await as('POST', `/api/courses/${courseId}/question-imports`, { format: 'gift', text: GIFT, quizId: foreignQuiz });
  t.equal(wrongQuiz.status, 400);
  t.match(wrongQuiz.body.error, /quizId: quiz \d+ is not a quiz of this course/);

  // The quiz's draw settings: through the quiz PUT, in the document, and the checklist counts the bank.
  const chapterId = created.body.document.modules[0].chapters[0].id;
  const drawing = await as('PUT', `/api/chapters/${chapterId}/quiz`, {
    ...sampleQuiz('Acak'),
    drawCount: 5,
    drawTag: 'Etika',
    shuffleOptions: true,
  });
  t.equal(drawing.status, 200, JSON.stringify(drawing.body).slice(0, 300));
  t.match(drawing.body.quiz, { drawCount: 5, drawTag: 'etika', shuffleOptions: true });
  const exported = (await as('GET', `/api/courses/${courseId}/document`)).body.document;
  t.match(exported.modules[0].chapters[0].quiz, { drawCount: 5, drawTag: 'etika', shuffleOptions: true }, 'the document carries it');
  const checklist = (await as('GET', `/api/courses/${courseId}/publication`)).body.checklist;
  t.match(
    checklist.find((c: { rule: string }) => c.rule === 'quizzes'),
    {
      ok: false,
      message: /draws 5 question\(s\) from the question bank's "etika" questions, which holds 3/,
    },
  );
  const replaced = await as('PUT', `/api/courses/${courseId}/document`, exported);
  t.equal(replaced.status, 200, JSON.stringify(replaced.body).slice(0, 300));
  t.match(replaced.body.document.modules[0].chapters[0].quiz, { drawCount: 5, drawTag: 'etika' }, 'a document round trip keeps it');
  for (const wrong of [0, 101, 1.5, '3']) {
    const res = await as('PUT', `/api/chapters/${chapterId}/quiz`, { ...sampleQuiz('x'), drawCount: wrong });
    t.equal(res.status, 400, `drawCount ${wrong}: refused`);
  }

  // Replace the bank: keep the first (edited), drop the others, add one; an id of another bank is a 400.
  const [first] = bank.body.questions;
  const put = await as('PUT', `/api/courses/${courseId}/question-bank`, {
    questions: [
      { ...first, questionText: 'Diubah', tags: ['etika'] },
      { questionType: 'short_answer', questionText: 'Baru', correctAnswer: 'ya', tags: ['lain'] },
    ],
  });
  t.equal(put.status, 200, JSON.stringify(put.body).slice(0, 300));
  t.same(
    put.body.questions.map((q: { id: number; questionText: string }) => q.questionText),
    ['Diubah', 'Baru'],
  );
  t.equal(put.body.questions[0].id, first.id, 'kept by id');
  const history = await db.db.execute(sql`select action from authoring_events where course_id = ${courseId} order by id`);
  t.ok(
    ['bank.import', 'quiz.import', 'bank.replace'].every((a) => history.rows.some((r) => r.action === a)),
    'every write is in the history',
  );
  const other = await bySession(app, otherTeacher.id);
  t.equal((await other('POST', `/api/courses/${theirs.body.courseId}/question-imports`, { format: 'gift', text: GIFT })).status, 201);
  const theirBank = await other('GET', `/api/courses/${theirs.body.courseId}/question-bank`);
  const stolen = await as('PUT', `/api/courses/${courseId}/question-bank`, {
    questions: [{ ...theirBank.body.questions[0], id: theirBank.body.questions[0].id }],
  });
  t.equal(stolen.status, 400);
  t.match(stolen.body.error, /is not a question of this bank/);

  // The course document carries the bank: exported, kept when left out, replaced when given, copied by an import.
  const withBank = (await as('GET', `/api/courses/${courseId}/document`)).body.document;
  t.same(
    withBank.questionBank.map((q: { questionText: string; tags: string[] }) => [q.questionText, q.tags]),
    [
      ['Diubah', ['etika']],
      ['Baru', ['lain']],
    ],
  );
  const { questionBank: _left, ...without } = withBank;
  const kept = await as('PUT', `/api/courses/${courseId}/document`, without);
  t.equal(kept.status, 200, JSON.stringify(kept.body).slice(0, 300));
  t.equal(kept.body.document.questionBank.length, 2, 'left out: the bank stays');
  const trimmed = await as('PUT', `/api/courses/${courseId}/document`, {
    ...kept.body.document,
    questionBank: [kept.body.document.questionBank[1]],
  });
  t.equal(trimmed.status, 200, JSON.stringify(trimmed.body).slice(0, 300));
  t.same(
    trimmed.body.document.questionBank.map((q: { id: number }) => q.id),
    [put.body.questions[1].id],
    'given: the bank becomes it',
  );
  const foreignBank = await as('PUT', `/api/courses/${courseId}/document`, {
    ...trimmed.body.document,
    questionBank: theirBank.body.questions,
  });
  t.equal(foreignBank.status, 400);
  t.match(foreignBank.body.error, /questionBank\.0\.id: question \d+ is not a question of this bank/);
  const copy = await as('POST', '/api/course-documents', {
    ...trimmed.body.document,
    course: { ...trimmed.body.document.course, name: 'Salinan' },
  });
  t.equal(copy.status, 201, JSON.stringify(copy.body).slice(0, 300));
  t.equal(copy.body.document.questionBank.length, 1, 'an import copies the bank');
  t.not(copy.body.document.questionBank[0].id, trimmed.body.document.questionBank[0].id, 'as new questions');
});

t.test('attackers: another institution, a member, an API key; the institution admin may', async (t) => {
  const { app, db, created, courseId, institutionId } = await teacherWithSampleCourse(t);
  const bankSize = async () =>
    Number((await db.db.execute(sql`select count(*)::int as n from bank_questions where course_id = ${courseId}`)).rows[0]!.n);
  const body = { format: 'gift', text: GIFT };
  const elsewhere = await makeInstitution(db.db, 'Lain');
  const outsider = await bySession(app, (await makeUser(db.db, { role: 'teacher', institutionId: elsewhere })).id);
  t.equal((await outsider('POST', `/api/courses/${courseId}/question-imports`, body)).status, 404, "another institution's teacher");
  t.equal((await outsider('GET', `/api/courses/${courseId}/question-bank`)).status, 404);
  t.equal((await outsider('PUT', `/api/courses/${courseId}/question-bank`, { questions: [] })).status, 404);
  const foreignAdmin = await bySession(app, (await makeUser(db.db, { role: 'admin', institutionId: elsewhere })).id);
  t.equal((await foreignAdmin('POST', `/api/courses/${courseId}/question-imports`, body)).status, 404, "another institution's admin");
  const member = await bySession(app, (await makeUser(db.db, { role: 'student', institutionId })).id);
  t.equal((await member('POST', `/api/courses/${courseId}/question-imports`, body)).status, 403, 'a member');
  t.equal((await member('GET', `/api/courses/${courseId}/question-bank`)).status, 403);
  const key = await apiKeyFor(db.db, created.body.document.course.teacherId);
  const byKey = await app.inject({
    method: 'POST',
    url: `/api/courses/${courseId}/question-imports`,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  t.equal(byKey.statusCode, 403, "the owner's API key");
  t.equal(await bankSize(), 0, 'no attacker wrote');
  const admin = await bySession(app, (await makeUser(db.db, { role: 'admin', institutionId })).id);
  t.equal((await admin('POST', `/api/courses/${courseId}/question-imports`, body)).status, 201, "the course's institution admin may");
  t.equal(await bankSize(), 3);
});

t.test('crafted imports: 10 MB, NUL, 100k lines, deep braces: a clear 4xx, never a 5xx, nothing written', async (t) => {
  const { as, db, courseId } = await teacherWithSampleCourse(t);
  const big = await as('POST', `/api/courses/${courseId}/question-imports`, { format: 'gift', text: 'x'.repeat(10_000_000) });
  t.equal(big.status, 413, '10 MB: over the body limit');
  const crafted: [string, string, RegExp][] = [
    ['gift', 'Q {=a ~b}\n\nR\u0000 {=a ~b}', /NUL|text/],
    ['csv', `question,answer\n${'Q,A\n'.repeat(100_000)}`, /lines|characters|text/],
    ['gift', `Q ${'{'.repeat(300_000)}${'}'.repeat(300_000)}`, /line 1: a \{ inside an answer block/],
    ['aiken', `${'Q\nA. x\nB. y\nANSWER: A\n'.repeat(501)}`, /more than 500 questions/],
  ];
  for (const [format, text, error] of crafted) {
    const res = await as('POST', `/api/courses/${courseId}/question-imports`, { format, text });
    t.equal(res.status, 400, `${format} ${text.length} characters: 400`);
    t.match(res.body.error, error);
  }
  const n = (await db.db.execute(sql`select count(*)::int as n from bank_questions`)).rows[0]!.n;
  t.equal(n, 0, 'nothing imported');
});
