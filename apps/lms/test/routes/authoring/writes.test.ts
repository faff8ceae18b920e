import { findAnswerKeys } from '../../helpers/answer-keys.js';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { bySession, sampleDocument, sampleQuiz } from '../../helpers/authoring.js';
import { apiKeyFor, makeInstitution, makeUser } from '../../helpers/fixtures.js';

// Authoring through HTTP by the owner teacher's session: a course from a document, every kind of
// item write, the outline, publishing with its checklist, and the history of it all.

t.test('an owner teacher builds a course from nothing to the catalog', async (t) => {
  const { app, db } = await buildTestApp(t);
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const as = await bySession(app, teacher.id);
  const owner = { institutionId, teacherId: teacher.id };

  const created = await as('POST', '/api/course-documents', sampleDocument(owner, { modules: 2, chapters: 2 }));
  t.equal(created.status, 201, JSON.stringify(created.body).slice(0, 500));
  const courseId = created.body.courseId as number;
  t.equal(created.body.isPublished, false, 'created unpublished');
  const doc = created.body.document;
  t.equal(doc.modules.length, 2);
  t.equal(doc.modules[0].chapters.length, 2);
  t.equal(doc.modules[1].chapters[1].name, 'Bab 2.2');
  t.equal(doc.modules[0].chapters[0].quiz.questions.length, 4);
  t.equal(doc.finalExam.questions.at(-1).questionType, 'essay');
  t.equal(doc.course.nilaiKum, null, 'no credit before an accreditation');
  t.equal(doc.modules[0].chapters[0].quiz.questions[0].correctAnswer, 'a', 'a choice question keeps its right option id as its key');
  t.equal(doc.modules[0].chapters[0].quiz.questions[1].correctAnswer, 'a,c');

  const exported = await as('GET', `/api/courses/${courseId}/document`);
  t.equal(exported.status, 200);
  t.same(exported.body.document, doc, 'export reads back what import answered');
  t.ok(findAnswerKeys(exported.body).length > 0, 'the owner reads the answer keys');

  // A replace: rename a chapter, move the second chapter of module 1 to module 2, drop module 2's second chapter, add one.
  const next = structuredClone(doc);
  next.modules[0].chapters[0].name = 'Bab baru';
  const moved = next.modules[0].chapters.pop();
  const dropped = next.modules[1].chapters.pop();
  next.modules[1].chapters.unshift(moved);
  next.modules[1].chapters.push({ name: 'Bab tambahan', content: 'baru', quiz: null });
  next.course.description = 'Deskripsi baru';
  const replaced = await as('PUT', `/api/courses/${courseId}/document`, next);
  t.equal(replaced.status, 200, JSON.stringify(replaced.body).slice(0, 500));
  const after = replaced.body.document;
  t.same(
    after.modules.map((m: { chapters: { id: number; name: string }[] }) => m.chapters.map((c) => c.name)),
    [['Bab baru'], ['Bab 1.2', 'Bab 2.1', 'Bab tambahan']],
  );
  t.equal(after.modules[1].chapters[0].id, moved.id, 'the moved chapter kept its id');
  t.equal(after.modules[1].chapters[0].quiz.id, moved.quiz.id, 'and its quiz');
  t.notOk(
    after.modules.some((m: { chapters: { id: number }[] }) => m.chapters.some((c) => c.id === dropped.id)),
    'the chapter left out is gone',
  );
  t.equal(after.course.description, 'Deskripsi baru');

  // Item writes.
  const mod = await as('POST', `/api/courses/${courseId}/modules`, { name: 'Modul 3' });
  t.equal(mod.status, 201);
  t.match(mod.body.module, { courseId, name: 'Modul 3', orderIndex: 2 });
  const ch = await as('POST', `/api/modules/${mod.body.module.id}/chapters`, { name: 'Bab 3.1', content: 'Isi' });
  t.equal(ch.status, 201);
  t.match(ch.body.chapter, { moduleId: mod.body.module.id, name: 'Bab 3.1', content: 'Isi', orderIndex: 0 });
  const edited = await as('PATCH', `/api/chapters/${ch.body.chapter.id}`, { content: '## Baru' });
  t.equal(edited.status, 200);
  t.equal(edited.body.chapter.content, '## Baru');
  t.equal(edited.body.chapter.name, 'Bab 3.1', 'a patch changes only what it names');
  const quiz = await as('PUT', `/api/chapters/${ch.body.chapter.id}/quiz`, sampleQuiz('Kuis 3.1'));
  t.equal(quiz.status, 200, JSON.stringify(quiz.body));
  t.equal(quiz.body.quiz.questions.length, 4);
  // Replace the quiz: keep the first question (by id), change it, drop the rest, add one.
  const kept = quiz.body.quiz.questions[0];
  const requiz = await as('PUT', `/api/chapters/${ch.body.chapter.id}/quiz`, {
    ...sampleQuiz('Kuis 3.1 baru'),
    questions: [
      { ...kept, questionText: 'Diubah' },
      { questionType: 'short_answer', questionText: 'Kata?', correctAnswer: 'ya' },
    ],
  });
  t.equal(requiz.status, 200, JSON.stringify(requiz.body));
  t.equal(requiz.body.quiz.id, quiz.body.quiz.id, 'the same quiz');
  t.same(
    requiz.body.quiz.questions.map((q: { id: number; questionText: string }) => q.questionText),
    ['Diubah', 'Kata?'],
  );
  t.equal(requiz.body.quiz.questions[0].id, kept.id, 'the kept question kept its id');
  const modQuiz = await as('PUT', `/api/modules/${mod.body.module.id}/quiz`, sampleQuiz('Kuis Modul 3'));
  t.equal(modQuiz.status, 200);
  const final = await as('PUT', `/api/courses/${courseId}/final-exam`, sampleQuiz('Ujian baru'));
  t.equal(final.status, 200);
  t.equal(final.body.quiz.id, doc.finalExam.id, 'the final exam is replaced in place');
  t.equal((await as('DELETE', `/api/modules/${mod.body.module.id}/quiz`)).status, 200);
  t.equal((await as('DELETE', `/api/modules/${mod.body.module.id}/quiz`)).status, 404, 'no quiz left there');
  t.equal(
    (await as('PATCH', `/api/modules/${mod.body.module.id}`, { description: 'Modul ketiga' })).body.module.description,
    'Modul ketiga',
  );

  // The outline: module 3 first, its chapter moved into module 1.
  const outline = (await as('GET', `/api/courses/${courseId}/document`)).body.document.modules.map(
    (m: { id: number; chapters: { id: number }[] }) => ({ id: m.id, chapterIds: m.chapters.map((c) => c.id) }),
  );
  const [m1, m2, m3] = outline;
  const reordered = await as('PUT', `/api/courses/${courseId}/outline`, {
    modules: [
      { id: m3.id, chapterIds: [] },
      { id: m1.id, chapterIds: [...m3.chapterIds, ...m1.chapterIds] },
      { id: m2.id, chapterIds: m2.chapterIds },
    ],
  });
  t.equal(reordered.status, 200, JSON.stringify(reordered.body));
  t.same(
    reordered.body.modules.map((m: { id: number }) => m.id),
    [m3.id, m1.id, m2.id],
  );
  const incomplete = await as('PUT', `/api/courses/${courseId}/outline`, { modules: [{ id: m1.id, chapterIds: [] }] });
  t.equal(incomplete.status, 400, 'an outline that leaves things out is refused');
  t.match(incomplete.body.error, /left out/);

  t.equal((await as('DELETE', `/api/chapters/${ch.body.chapter.id}`)).status, 200);
  t.equal((await as('DELETE', `/api/modules/${m3.id}`)).status, 200);
  t.equal((await as('PATCH', `/api/courses/${courseId}`, { eventCode: 'EV-2', categoryId: null })).status, 200);

  // Publishing: the checklist refuses what is missing, then passes.
  const checklist = await as('GET', `/api/courses/${courseId}/publication`);
  t.equal(checklist.status, 200);
  t.equal(checklist.body.isPublished, false);
  t.ok(
    checklist.body.checklist.every((i: { ok: boolean }) => i.ok),
    JSON.stringify(checklist.body.checklist),
  );
  await as('PATCH', `/api/courses/${courseId}`, { eventCode: null, isPurchasable: true, price: '0' });
  const refused = await as('POST', `/api/courses/${courseId}/publication`);
  t.equal(refused.status, 409);
  t.match(refused.body.error, /eventCode/);
  t.match(refused.body.error, /prices/);
  t.same(
    refused.body.checklist.filter((i: { ok: boolean }) => !i.ok).map((i: { rule: string }) => i.rule),
    ['prices', 'eventCode'],
  );
  await as('PATCH', `/api/courses/${courseId}`, { eventCode: 'EV-3', price: '150000' });
  const published = await as('POST', `/api/courses/${courseId}/publication`);
  t.equal(published.status, 200, JSON.stringify(published.body));
  t.equal(published.body.isPublished, true);
  const key = await apiKeyFor(db.db, teacher.id);
  const listed = await app.inject({ url: `/api/courses?courseId=${courseId}`, headers: { 'x-api-key': key } });
  t.equal(listed.json().courses.length, 1, 'an API key finds it in the catalog');
  const unpublished = await as('DELETE', `/api/courses/${courseId}/publication`);
  t.equal(unpublished.body.isPublished, false);
  t.equal((await app.inject({ url: `/api/courses?courseId=${courseId}`, headers: { 'x-api-key': key } })).json().courses.length, 0);

  // The history: every write, newest first, by whom and through what.
  const history = await as('GET', `/api/courses/${courseId}/history?limit=200`);
  t.equal(history.status, 200);
  const actions = history.body.events.map((e: { action: string }) => e.action).reverse();
  t.same(actions, [
    'course.import',
    'course.replace',
    'module.create',
    'chapter.create',
    'chapter.update',
    'quiz.create',
    'quiz.replace',
    'quiz.create',
    'quiz.replace',
    'quiz.delete',
    'module.update',
    'outline.reorder',
    'chapter.delete',
    'module.delete',
    'course.update',
    'course.update',
    'course.update',
    'course.publish',
    'course.unpublish',
  ]);
  t.match(history.body.events[0], {
    credential: 'session',
    actor: { userId: teacher.id, name: teacher.name, role: 'teacher', partnerIssuer: null },
    changes: [{ path: 'course.isPublished', from: true, to: false }],
  });
  const contentEdit = history.body.events.find((e: { action: string }) => e.action === 'chapter.update');
  t.match(contentEdit.changes, [{ path: `chapters[${ch.body.chapter.id}].content`, from: 'Isi', to: '## Baru' }]);
  const page = await as('GET', `/api/courses/${courseId}/history?limit=5`);
  t.equal(page.body.events.length, 5);
  const older = await as('GET', `/api/courses/${courseId}/history?limit=5&before=${page.body.nextBefore}`);
  t.equal(older.body.events[0].id, page.body.events[4].id - 1, 'the next page goes on where the first stopped');
});
