import { sql } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { bySession, sampleDocument } from '../../helpers/authoring.js';
import { makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { browserOf, fieldValue } from '../../pages/studio/helpers.js';

// A chapter's expected minutes (docs/authoring.md, "Expected minutes"): 1..1440 or null (estimated
// from the text) through the course document, the chapter writes and the studio's chapter form.

t.test('expected minutes: written, read back, kept by the outline, validated', async (t) => {
  const { app, db } = await buildTestApp(t);
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const as = await bySession(app, teacher.id);
  const doc = sampleDocument({ institutionId, teacherId: teacher.id }, { modules: 1, chapters: 2 });
  Object.assign(doc.modules[0]!.chapters[0]!, { expectedMinutes: 30 });
  const created = await as('POST', '/api/course-documents', doc);
  t.equal(created.status, 201, JSON.stringify(created.body).slice(0, 300));
  const courseId = created.body.courseId as number;
  const [first, second] = created.body.document.modules[0].chapters;
  t.equal(first.expectedMinutes, 30, 'the document keeps the author minutes');
  t.equal(second.expectedMinutes, null, 'left out: null (estimated from the text)');
  const exported = await as('GET', `/api/courses/${courseId}/document`);
  t.same(exported.body.document, created.body.document, 'export reads back what import answered');

  const moduleId = created.body.document.modules[0].id as number;
  const added = await as('POST', `/api/modules/${moduleId}/chapters`, { name: 'Bab 3', content: 'teks', expectedMinutes: 1440 });
  t.equal(added.status, 201, JSON.stringify(added.body));
  t.equal(added.body.chapter.expectedMinutes, 1440);

  const patched = await as('PATCH', `/api/chapters/${second.id}`, { expectedMinutes: 12 });
  t.equal(patched.status, 200, JSON.stringify(patched.body));
  t.equal(patched.body.chapter.expectedMinutes, 12);
  const version = patched.body.chapter.version as number;
  t.ok(version > 1, 'a change of minutes is a new version (the studio saves over the version it opened)');
  const history = await db.db.execute(sql`select changes from authoring_events where target_id = ${second.id} order by id desc limit 1`);
  t.match(JSON.stringify(history.rows[0]), /expectedMinutes/, 'the history says what changed');

  const outline = await as('PUT', `/api/courses/${courseId}/outline`, {
    modules: [{ id: moduleId, chapterIds: [added.body.chapter.id, second.id, first.id] }],
  });
  t.equal(outline.status, 200, JSON.stringify(outline.body).slice(0, 300));
  const minutes = await db.db.execute(sql`select id, expected_minutes as m from chapters where course_id = ${courseId} order by id`);
  t.same(
    minutes.rows.map((r) => r.m),
    [30, 12, 1440],
    'the outline moves chapters and keeps their minutes',
  );

  const cleared = await as('PATCH', `/api/chapters/${second.id}`, { expectedMinutes: null });
  t.equal(cleared.body.chapter.expectedMinutes, null, 'null: back to the estimate');

  for (const [label, raw] of [
    ['0', '{"expectedMinutes":0}'],
    ['1441', '{"expectedMinutes":1441}'],
    ['"abc"', '{"expectedMinutes":"abc"}'],
    ['1e309', '{"expectedMinutes":1e309}'],
    ['1.5', '{"expectedMinutes":1.5}'],
    ['-5', '{"expectedMinutes":-5}'],
  ] as const) {
    const res = await as('PATCH', `/api/chapters/${first.id}`, raw);
    t.equal(res.status, 400, `${label}: refused`);
    t.match(res.body, { success: false, error: /expectedMinutes/ }, `${label}: the error names the field`);
    const made = await as('POST', `/api/modules/${moduleId}/chapters`, `{"name":"x",${raw.slice(1)}`);
    t.equal(made.status, 400, `${label}: refused on a new chapter too`);
  }
  const bad = structuredClone(created.body.document);
  bad.modules[0].chapters[0].expectedMinutes = 0;
  const replaced = await as('PUT', `/api/courses/${courseId}/document`, bad);
  t.equal(replaced.status, 400, 'and in a document');
  t.match(replaced.body.error, /modules\.0\.chapters\.0\.expectedMinutes/);

  // Another institution's teacher may not set them.
  const outsider = await makeUser(db.db, { role: 'teacher', institutionId: await makeInstitution(db.db, 'Other') });
  const foreign = await (await bySession(app, outsider.id))('PATCH', `/api/chapters/${first.id}`, { expectedMinutes: 1 });
  t.equal(foreign.status, 404, "another institution's teacher: no such chapter to author");
  const still = await db.db.execute(sql`select expected_minutes as m from chapters where id = ${first.id}`);
  t.equal(still.rows[0]?.m, 30);
});

t.test("the studio's chapter form: a number field, empty for the estimate", async (t) => {
  const { app, db } = await buildTestApp(t);
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const a = await browserOf(app, teacher.id);
  const made = await a.post('/dashboard/studio/new', { name: 'Kursus' });
  const courseId = Number(made.location?.match(/courses\/(\d+)$/)?.[1]);
  await a.post(`/dashboard/studio/courses/${courseId}/modules`, { name: 'Modul' });
  const moduleId = Number((await db.db.execute(sql`select id from modules where course_id = ${courseId}`)).rows[0]?.id);
  await a.post(`/dashboard/studio/modules/${moduleId}/chapters`, { name: 'Bab' });
  const chapterId = Number((await db.db.execute(sql`select id from chapters where course_id = ${courseId}`)).rows[0]?.id);
  const editor = `/dashboard/studio/chapters/${chapterId}`;

  const page = await a.get(editor);
  t.match(page.body, /name="expectedMinutes" type="number" value=""/, 'empty: estimated');
  const save = async (expectedMinutes: string) =>
    a.post(editor, {
      action: 'save',
      version: fieldValue((await a.get(editor)).body, 'version') as string,
      name: 'Bab',
      content: 'Teks',
      expectedMinutes,
    });
  for (const wrong of ['0', '1441', 'abc', '1e309', '2.5']) {
    const res = await save(wrong);
    t.equal(res.status, 422, `${wrong}: refused`);
    t.match(res.body, /id="f-expectedMinutes-error"/);
  }
  t.equal((await save('25')).status, 303, 'saved');
  t.match((await a.get(editor)).body, /name="expectedMinutes" type="number" value="25"/);
  t.equal((await save('')).status, 303);
  const row = await db.db.execute(sql`select expected_minutes as m from chapters where id = ${chapterId}`);
  t.equal(row.rows[0]?.m, null, 'emptied: back to the estimate');
});
