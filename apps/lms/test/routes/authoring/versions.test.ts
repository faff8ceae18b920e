import { sql } from 'drizzle-orm';
import t from 'tap';
import { browserOf, fieldValue } from '../../pages/studio/helpers.js';
import { buildTestApp } from '../../helpers/app.js';
import { byPartner, bySession, sampleDocument, sampleQuiz } from '../../helpers/authoring.js';
import { makeCourseCreator } from '../../helpers/course-creation.js';
import { makeInstitution, makeUser } from '../../helpers/fixtures.js';

// The authoring API's version check (If-Match / ETag): a stale save is refused with a 409 and
// nothing is written, a save without If-Match still wins as before, and the studio's forms and
// the API check the same versions. A document replace moves the versions of what it rewrites.

t.test('authoring API versions', async (t) => {
  const { app, db } = await buildTestApp(t);
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const admin = await makeUser(db.db, { role: 'admin', institutionId });
  const as = await bySession(app, teacher.id);
  const colleague = await bySession(app, admin.id);
  const created = await as(
    'POST',
    '/api/course-documents',
    sampleDocument({ institutionId, teacherId: teacher.id }, { modules: 1, chapters: 2 }),
  );
  t.equal(created.status, 201);
  const courseId = created.body.courseId as number;
  const chapterId = created.body.document.modules[0].chapters[0].id as number;
  const moduleId = created.body.document.modules[0].id as number;
  const stored = async (table: string, id: number) =>
    (await db.db.execute(sql`select * from ${sql.raw(table)} where id = ${id}`)).rows[0] as Record<string, unknown>;

  t.test('a chapter: ETag, stale If-Match refused, fresh one and none accepted', async (t) => {
    const first = await as('PATCH', `/api/chapters/${chapterId}`, { content: 'Satu' });
    t.equal(first.status, 200);
    const v = first.body.chapter.version as number;
    t.equal(first.headers.etag, `"${v}"`, 'the answer carries the version as its ETag');
    t.equal(v, (await stored('chapters', chapterId)).version);

    const theirs = await colleague('PATCH', `/api/chapters/${chapterId}`, { content: 'Rekan' }, { 'if-match': `"${v}"` });
    t.equal(theirs.status, 200, 'a save on the current version passes');
    t.equal(theirs.body.chapter.version, v + 1);
    t.equal(theirs.headers.etag, `"${v + 1}"`);

    const stale = await as('PATCH', `/api/chapters/${chapterId}`, { content: 'Saya' }, { 'if-match': `"${v}"` });
    t.equal(stale.status, 409, 'a save on the version before is refused');
    t.equal(stale.body.success, false);
    t.match(stale.body.error, `you edited version ${v}; it is now at version ${v + 1}`);
    t.equal(stale.headers.etag, `"${v + 1}"`, 'the refusal names the current ETag');
    t.equal(stale.body.etag, `"${v + 1}"`, 'in its body too');
    t.equal((await stored('chapters', chapterId)).content, 'Rekan', 'nothing overwritten');

    const weak = await as('PATCH', `/api/chapters/${chapterId}`, { content: 'Saya lagi' }, { 'if-match': `W/"${v + 1}"` });
    t.equal(weak.status, 200, 'a weak ETag is read as its version');
    const star = await as('PATCH', `/api/chapters/${chapterId}`, { content: 'Bintang' }, { 'if-match': '*' });
    t.equal(star.status, 200, '* checks nothing');
    const none = await as('PATCH', `/api/chapters/${chapterId}`, { content: 'Terakhir' });
    t.equal(none.status, 200, 'without If-Match the last save wins, as before');
    t.equal(none.body.chapter.version, v + 4);
  });

  t.test('malformed If-Match, and If-Match where there is no version', async (t) => {
    for (const value of ['3', '"abc"', '"1", "2"', 'W/3', `"${'9'.repeat(12)}"`]) {
      const res = await as('PATCH', `/api/chapters/${chapterId}`, { content: 'X' }, { 'if-match': value });
      t.equal(res.status, 400, `refused: ${value}`);
      t.equal(res.body.success, false);
      t.match(res.body.error, 'If-Match');
    }
    const mod = await as('PATCH', `/api/modules/${moduleId}`, { name: 'M' }, { 'if-match': '"1"' });
    t.equal(mod.status, 400, 'a module has no version to check');
    t.match(mod.body.error, 'no version');
    t.not((await stored('chapters', chapterId)).content, 'X', 'nothing written');
  });

  t.test("the course's fields", async (t) => {
    const read = await as('PATCH', `/api/courses/${courseId}`, { instructor: 'Bu Ani' });
    t.equal(read.status, 200);
    const v = read.body.version as number;
    t.equal(read.headers.etag, `"${v}"`);
    t.equal((await colleague('PATCH', `/api/courses/${courseId}`, { instructor: 'Rekan' }, { 'if-match': `"${v}"` })).status, 200);
    const stale = await as('PATCH', `/api/courses/${courseId}`, { instructor: 'Saya' }, { 'if-match': `"${v}"` });
    t.equal(stale.status, 409);
    t.match(stale.body.error, 'course was changed by someone else');
    t.equal((await stored('courses', courseId)).instructor, 'Rekan');
  });

  t.test('a quiz: "0" creates only where there is none', async (t) => {
    const chapter2 = created.body.document.modules[0].chapters[1].id as number;
    await as('DELETE', `/api/chapters/${chapter2}/quiz`);
    const make = await as('PUT', `/api/chapters/${chapter2}/quiz`, sampleQuiz('Baru'), { 'if-match': '"0"' });
    t.equal(make.status, 200, JSON.stringify(make.body).slice(0, 300));
    t.equal(make.body.version, 1);
    t.equal(make.headers.etag, '"1"');
    const again = await colleague('PUT', `/api/chapters/${chapter2}/quiz`, sampleQuiz('Ganda'), { 'if-match': '"0"' });
    t.equal(again.status, 409, 'a second "create" is refused');
    const edit = await colleague(
      'PUT',
      `/api/chapters/${chapter2}/quiz`,
      { ...sampleQuiz('Baru'), minimumScore: 80 },
      { 'if-match': '"1"' },
    );
    t.equal(edit.status, 200);
    t.equal(edit.body.version, 2);
    const stale = await as('PUT', `/api/chapters/${chapter2}/quiz`, { ...sampleQuiz('Baru'), minimumScore: 10 }, { 'if-match': '"1"' });
    t.equal(stale.status, 409);
    t.equal((await stored('quizzes', make.body.quiz.id)).minimum_score, 80);
    const final = await as('PUT', `/api/courses/${courseId}/final-exam`, sampleQuiz('Akhir'), { 'if-match': '"7"' });
    t.equal(final.status, 409, 'the final exam is checked too');
  });

  t.test('a document replace: digest ETag, stale refused, versions moved', async (t) => {
    const exported = await as('GET', `/api/courses/${courseId}/document`);
    t.equal(exported.status, 200);
    const tag = exported.headers.etag as string;
    t.match(tag, /^"d[A-Za-z0-9_-]{27}"$/, 'the document ETag is its digest');
    t.equal((await as('GET', `/api/courses/${courseId}/document`)).headers.etag, tag, 'the same document, the same ETag');
    const doc = exported.body.document;
    const before = {
      course: (await stored('courses', courseId)).version as number,
      chapter0: (await stored('chapters', doc.modules[0].chapters[0].id)).version as number,
      chapter1: (await stored('chapters', doc.modules[0].chapters[1].id)).version as number,
      quiz0: (await stored('quizzes', doc.modules[0].chapters[0].quiz.id)).version as number,
      quiz1: (await stored('quizzes', doc.modules[0].chapters[1].quiz.id)).version as number,
    };

    // Someone edits one chapter through the API: the whole document's ETag moves.
    t.equal((await colleague('PATCH', `/api/chapters/${doc.modules[0].chapters[1].id}`, { name: 'Bab rekan' })).status, 200);
    const next = structuredClone(doc);
    next.course.description = 'Dari dokumen';
    next.modules[0].chapters[0].content = 'Isi dari dokumen';
    next.modules[0].chapters[0].quiz.minimumScore = 55;
    const stale = await as('PUT', `/api/courses/${courseId}/document`, next, { 'if-match': tag });
    t.equal(stale.status, 409, 'a replace over an older document is refused');
    t.match(stale.body.error, 'export it again');
    t.not(stale.headers.etag, tag);
    t.equal((await stored('chapters', doc.modules[0].chapters[1].id)).name, 'Bab rekan', "the colleague's edit stays");
    t.not((await stored('courses', courseId)).description, 'Dari dokumen', 'nothing of the document was written');

    next.modules[0].chapters[1].name = 'Bab rekan';
    const replaced = await as('PUT', `/api/courses/${courseId}/document`, next, { 'if-match': stale.headers.etag as string });
    t.equal(replaced.status, 200, JSON.stringify(replaced.body).slice(0, 300));
    t.not(replaced.headers.etag, stale.headers.etag, 'a new ETag');
    t.equal((await as('GET', `/api/courses/${courseId}/document`)).headers.etag, replaced.headers.etag, 'the export agrees');
    t.equal(replaced.body.version, before.course + 1, "the course's version moved");
    t.equal((await stored('courses', courseId)).version, before.course + 1);
    t.equal((await stored('chapters', doc.modules[0].chapters[0].id)).version, before.chapter0 + 1, 'the rewritten chapter moved');
    t.equal((await stored('chapters', doc.modules[0].chapters[1].id)).version, before.chapter1 + 1, 'by the colleague only');
    t.equal((await stored('quizzes', doc.modules[0].chapters[0].quiz.id)).version, before.quiz0 + 1, 'the rewritten quiz moved');
    t.equal((await stored('quizzes', doc.modules[0].chapters[1].quiz.id)).version, before.quiz1, 'the untouched quiz did not');

    const same = await as('PUT', `/api/courses/${courseId}/document`, next);
    t.equal(same.status, 200, 'the same document again, without If-Match');
    t.equal(same.body.version, before.course + 1, 'changes nothing, moves nothing');

    // The course's fields' version moved: a settings save on the old one is refused.
    const old = await as('PATCH', `/api/courses/${courseId}`, { instructor: 'Lama' }, { 'if-match': `"${before.course}"` });
    t.equal(old.status, 409);
  });

  t.test('the studio and the API see the same versions', async (t) => {
    const browser = await browserOf(app, teacher.id);
    const apiTag = (await as('PATCH', `/api/chapters/${chapterId}`, { name: 'Bab' })).headers.etag;
    const formVersion2 = fieldValue((await browser.get(`/dashboard/studio/chapters/${chapterId}`)).body, 'version') as string;
    t.equal(`"${formVersion2}"`, apiTag, "the studio form opens at the API's ETag");
    t.equal(
      (await colleague('PATCH', `/api/chapters/${chapterId}`, { content: 'Dari API' }, { 'if-match': `"${formVersion2}"` })).status,
      200,
    );
    const page = await browser.post(`/dashboard/studio/chapters/${chapterId}`, {
      action: 'save',
      version: formVersion2,
      name: 'Bab',
      content: 'Dari studio',
    });
    t.equal(page.status, 409, 'an API save, then the studio form opened before it: the 409 page');
    t.match(page.body, 'Dari API', 'showing what the API stored');
    t.match(page.body, 'Dari studio', 'next to what was typed');

    const fresh = fieldValue(page.body, 'version') as string;
    t.equal(
      (await browser.post(`/dashboard/studio/chapters/${chapterId}`, { action: 'save', version: fresh, name: 'Bab', content: 'Studio' }))
        .status,
      303,
    );
    const api = await colleague('PATCH', `/api/chapters/${chapterId}`, { content: 'API lama' }, { 'if-match': `"${fresh}"` });
    t.equal(api.status, 409, 'a studio save, then an API save on the version before it: refused');
    t.equal((await stored('chapters', chapterId)).content, 'Studio');
  });

  t.test('a partner (as the gateway forwards it) sends If-Match too', async (t) => {
    const partner = await makeCourseCreator(db.db, 'partner.example');
    const own = await bySession(app, partner.teacherId);
    const doc = await own(
      'POST',
      '/api/course-documents',
      sampleDocument({ institutionId: partner.institutionId, teacherId: partner.teacherId }),
    );
    const id = doc.body.document.modules[0].chapters[0].id as number;
    const p = byPartner(app, partner);
    const now = Number((await stored('chapters', id)).version);
    const stale = await p('PATCH', `/api/chapters/${id}`, { content: 'Mitra' }, { 'if-match': `"${now + 1}"` });
    t.equal(stale.status, 409, JSON.stringify(stale.body));
    const fresh = await p('PATCH', `/api/chapters/${id}`, { content: 'Mitra' }, { 'if-match': `"${now}"` });
    t.equal(fresh.status, 200, JSON.stringify(fresh.body));
    t.equal(fresh.headers.etag, `"${now + 1}"`);
  });
});
