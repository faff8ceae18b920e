import { sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { bySession, sampleDocument, sampleQuiz, teacherWithSampleCourse } from '../../helpers/authoring.js';
import { apiKeyFor, makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { browserOf, fieldValue } from '../../pages/studio/helpers.js';

// A quiz's evidence role (docs/authoring.md, "Pre-test, post-test and evaluation"): written by the
// quiz PUTs, the course document and the studio's quiz editor; one pre-test and one post-test a
// course (a second is a 409 naming the other quiz, or a 400 in a document), never a pre-test final exam.

async function setUp(t: Test) {
  const made = await teacherWithSampleCourse(t);
  const { db, created } = made;
  const roles = async () =>
    (
      await db.db.execute(
        sql`select id, evidence_role as role from quizzes where course_id = ${created.body.courseId} and evidence_role is not null order by id`,
      )
    ).rows.map((r) => [r.id, r.role]);
  return { ...made, roles };
}

t.test('the quiz PUTs: set, answer, refuse a second one, clear', async (t) => {
  const { app, db, institutionId, as, created, courseId, roles } = await setUp(t);
  const [m1, m2] = created.body.document.modules;
  const pre = await as('PUT', `/api/modules/${m1.id}/quiz`, { ...sampleQuiz('Pre-test'), evidenceRole: 'pre_test' });
  t.equal(pre.status, 200, JSON.stringify(pre.body).slice(0, 300));
  t.equal(pre.body.quiz.evidenceRole, 'pre_test', 'the answer carries the role');
  const preId = pre.body.quiz.id as number;

  const second = await as('PUT', `/api/chapters/${m2.chapters[0].id}/quiz`, { ...sampleQuiz('Lagi'), evidenceRole: 'pre_test' });
  t.equal(second.status, 409, 'a second pre-test is refused');
  t.match(second.body, { success: false, error: new RegExp(`quiz ${preId} "Pre-test".*already the course's pre_test`) });
  t.same(await roles(), [[preId, 'pre_test']], 'nothing written');

  const finalPre = await as('PUT', `/api/courses/${courseId}/final-exam`, { ...sampleQuiz('Ujian'), evidenceRole: 'pre_test' });
  t.equal(finalPre.status, 400, 'the final exam is never the pre-test');
  t.match(finalPre.body, { success: false, error: /evidenceRole: the final exam cannot be the pre-test/ });

  const post = await as('PUT', `/api/courses/${courseId}/final-exam`, { ...sampleQuiz('Ujian'), evidenceRole: 'post_test' });
  t.equal(post.status, 200, JSON.stringify(post.body).slice(0, 300));
  t.equal(post.body.quiz.evidenceRole, 'post_test');
  t.ok(post.body.version > 1, 'a changed role is a new version of the quiz');
  const history = await db.db.execute(
    sql`select changes from authoring_events where target_id = ${post.body.quiz.id} order by id desc limit 1`,
  );
  t.match(JSON.stringify(history.rows[0]), /evidenceRole/, 'the history says what changed');

  for (const wrong of ['"pre-test"', '"final"', '1', 'true', '""']) {
    const res = await as('PUT', `/api/chapters/${m1.chapters[0].id}/quiz`, `{"name":"x","evidenceRole":${wrong}}`);
    t.equal(res.status, 400, `${wrong}: refused`);
    t.match(res.body.error, /evidenceRole/, `${wrong}: the error names the field`);
  }

  // A PUT replaces the quiz: without evidenceRole it is an ordinary quiz again, and the role is free.
  const cleared = await as('PUT', `/api/modules/${m1.id}/quiz`, sampleQuiz('Pre-test'));
  t.equal(cleared.body.quiz.evidenceRole, null);
  const moved = await as('PUT', `/api/chapters/${m2.chapters[0].id}/quiz`, { ...sampleQuiz('Lagi'), evidenceRole: 'pre_test' });
  t.equal(moved.status, 200, 'the role moves once the other quiz gave it up');

  // Attackers: another institution's teacher, a member, the owner's own API key.
  const before = await roles();
  const outsider = await makeUser(db.db, { role: 'teacher', institutionId: await makeInstitution(db.db, 'Lain') });
  const foreign = await (await bySession(app, outsider.id))('PUT', `/api/modules/${m1.id}/quiz`, {
    ...sampleQuiz('x'),
    evidenceRole: 'post_test',
  });
  t.equal(foreign.status, 404, "another institution's teacher: no such draft to author");
  const member = await makeUser(db.db, { role: 'student', institutionId });
  const byMember = await (await bySession(app, member.id))('PUT', `/api/modules/${m1.id}/quiz`, { ...sampleQuiz('x'), evidenceRole: null });
  t.equal(byMember.status, 403, 'a member never authors');
  const key = await apiKeyFor(db.db, created.body.document.course.teacherId);
  const byKey = await app.inject({
    method: 'PUT',
    url: `/api/modules/${m1.id}/quiz`,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: JSON.stringify({ ...sampleQuiz('x'), evidenceRole: null }),
  });
  t.equal(byKey.statusCode, 403, 'an API key does not author');
  t.same(await roles(), before, 'no attacker changed a role');
});

t.test('the course document: exported, imported, swapped, refused twice', async (t) => {
  const { as, created, courseId, roles, institutionId, teacher } = await setUp(t);
  const doc = structuredClone(created.body.document);
  t.equal(doc.modules[0].quiz.evidenceRole, null, 'an ordinary quiz exports null');
  doc.modules[0].quiz.evidenceRole = 'pre_test';
  doc.finalExam.evidenceRole = 'post_test';
  const replaced = await as('PUT', `/api/courses/${courseId}/document`, doc);
  t.equal(replaced.status, 200, JSON.stringify(replaced.body).slice(0, 300));
  t.same(await roles(), [
    [doc.modules[0].quiz.id, 'pre_test'],
    [doc.finalExam.id, 'post_test'],
  ]);
  const exported = await as('GET', `/api/courses/${courseId}/document`);
  t.equal(exported.body.document.modules[0].quiz.evidenceRole, 'pre_test', 'export carries the role');
  t.equal(exported.body.document.finalExam.evidenceRole, 'post_test');

  // Round trip: the export, imported as a new course, has the same roles on the same places.
  const copy = await as('POST', '/api/course-documents', exported.body.document);
  t.equal(copy.status, 201, JSON.stringify(copy.body).slice(0, 300));
  t.equal(copy.body.document.modules[0].quiz.evidenceRole, 'pre_test');
  t.equal(copy.body.document.finalExam.evidenceRole, 'post_test');
  const again = await as('PUT', `/api/courses/${courseId}/document`, exported.body.document);
  t.equal(again.status, 200);
  t.equal(again.headers.etag, exported.headers.etag, 'an identical document changes nothing');

  // A swap between two kept quizzes (the unique index sees each role once).
  const swap = structuredClone(exported.body.document);
  swap.modules[0].quiz.evidenceRole = 'post_test';
  swap.finalExam.evidenceRole = null;
  swap.modules[1].quiz.evidenceRole = 'pre_test';
  const swapped = await as('PUT', `/api/courses/${courseId}/document`, swap);
  t.equal(swapped.status, 200, JSON.stringify(swapped.body).slice(0, 300));
  t.same(await roles(), [
    [swap.modules[0].quiz.id, 'post_test'],
    [swap.modules[1].quiz.id, 'pre_test'],
  ]);

  const twice = structuredClone(swap);
  twice.modules[1].chapters[1].quiz.evidenceRole = 'pre_test';
  twice.finalExam.evidenceRole = 'pre_test';
  const refused = await as('PUT', `/api/courses/${courseId}/document`, twice);
  t.equal(refused.status, 400);
  t.match(refused.body.details, [
    { path: 'finalExam.evidenceRole', message: /final exam cannot be the pre-test/ },
    { path: 'modules.1.chapters.1.quiz.evidenceRole', message: /modules\.1\.quiz \("Kuis Modul 2"\) is already the course's pre_test/ },
  ]);
  t.same(
    await roles(),
    [
      [swap.modules[0].quiz.id, 'post_test'],
      [swap.modules[1].quiz.id, 'pre_test'],
    ],
    'nothing written',
  );
  const fresh = sampleDocument({ institutionId, teacherId: teacher.id });
  Object.assign(fresh.modules[0]!.quiz!, { evidenceRole: 'post_test' });
  Object.assign(fresh.modules[1]!.quiz!, { evidenceRole: 'post_test' });
  const imported = await as('POST', '/api/course-documents', fresh);
  t.equal(imported.status, 400, 'an import with two post-tests is refused');
  t.match(imported.body.error, /modules\.1\.quiz\.evidenceRole: modules\.0\.quiz \("Kuis Modul 1"\)/);
});

t.test("the studio's quiz editor: a select, both languages, the other quiz named", async (t) => {
  const { app, teacher, created, courseId, roles } = await setUp(t);
  const [m1, m2] = created.body.document.modules;
  for (const [lang, label, none] of [
    ['id', 'Peran sebagai bukti kredit', 'Kuis biasa'],
    ['en', 'Role in the credit evidence', 'An ordinary quiz'],
  ] as const) {
    const page = await (await browserOf(app, teacher.id, lang)).get(`/dashboard/studio/quizzes/module/${m1.id}`);
    t.equal(page.status, 200);
    t.match(page.body, label, `${lang}: the field's label`);
    t.match(page.body, new RegExp(`<select id="f-evidenceRole" name="evidenceRole"[^>]*><option value="" selected>${none}</option>`));
  }
  const finalPage = await (await browserOf(app, teacher.id)).get(`/dashboard/studio/quizzes/final/${courseId}`);
  t.notMatch(finalPage.body, /value="pre_test"/, 'the final exam is not offered as the pre-test');
  t.match(finalPage.body, /value="post_test"/);

  const a = await browserOf(app, teacher.id);
  const save = async (scope: string, id: number, evidenceRole: string) => {
    const url = `/dashboard/studio/quizzes/${scope}/${id}`;
    const form = (await a.get(url)).body;
    const fields: Record<string, string> = { action: 'save', evidenceRole };
    for (const name of ['version', 'count', 'name', 'description', 'minimumScore', 'timeLimit', 'maxAttempts']) {
      fields[name] = fieldValue(form, name) ?? '';
    }
    const count = Number(fields.count);
    for (let i = 0; i < count; i++) {
      for (const f of ['id', 'text', 'options', 'right', 'points', 'explanation'])
        fields[`q${i}_${f}`] = fieldValue(form, `q${i}_${f}`) ?? '';
      fields[`q${i}_type`] = form.match(new RegExp(`name="q${i}_type"[^]*?<option value="([a-z_]+)" selected`))?.[1] ?? '';
    }
    return a.post(url, fields);
  };
  const saved = await save('module', m1.id, 'pre_test');
  t.equal(saved.status, 303, saved.body.slice(0, 500));
  t.same(await roles(), [[m1.quiz.id, 'pre_test']]);
  t.match((await a.get(`/dashboard/studio/quizzes/module/${m1.id}`)).body, /<option value="pre_test" selected>/, 'shown as stored');

  const clash = await save('module', m2.id, 'pre_test');
  t.equal(clash.status, 409, 'the other quiz holds the role');
  t.match(clash.body, /id="f-evidenceRole-error">The quiz «Kuis Modul 1» already has this role/, 'named next to the field');
  const wrong = await save('module', m2.id, 'pre-test');
  t.equal(wrong.status, 422, 'a value not in the list');
  t.match(wrong.body, /id="f-evidenceRole-error"/);
  t.same(await roles(), [[m1.quiz.id, 'pre_test']], 'neither was written');
});
