import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { bySession, sampleDocument } from '../../helpers/authoring.js';
import { apiKeyFor, makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { browserOf } from './helpers.js';

// Deletes in the studio ask first: each delete link opens a page (GET .../delete) saying what
// will be deleted and what goes with it, and only its POST form (under the form CSRF rule)
// deletes. Nobody else sees the page; nothing is deleted by the GET.

t.test('studio deletes are confirmed first', async (t) => {
  const { app, db } = await buildTestApp(t);
  const inst = await makeInstitution(db.db, 'A');
  const other = await makeInstitution(db.db, 'B');
  const owner = await makeUser(db.db, { role: 'teacher', institutionId: inst });
  const outsider = await makeUser(db.db, { role: 'teacher', institutionId: other });
  const outsiderAdmin = await makeUser(db.db, { role: 'admin', institutionId: other });
  const member = await makeUser(db.db, { role: 'student' });
  const api = await bySession(app, owner.id);
  const created = await api(
    'POST',
    '/api/course-documents',
    sampleDocument({ institutionId: inst, teacherId: owner.id }, { modules: 2, chapters: 2, name: 'Kursus Hapus' }),
  );
  t.equal(created.status, 201);
  const courseId = created.body.courseId as number;
  const doc = created.body.document;
  const [m1, m2] = doc.modules;
  const en = await browserOf(app, owner.id, 'en');
  const id = await browserOf(app, owner.id, 'id');
  const count = async (table: string) =>
    Number((await db.db.execute(sql`select count(*)::int as n from ${sql.raw(table)} where course_id = ${courseId}`)).rows[0].n);

  t.test('the outline and the quiz editor link to the confirmation, they do not post a delete', async (t) => {
    const outline = await en.get(`/dashboard/studio/courses/${courseId}/outline`);
    t.equal(outline.status, 200);
    t.match(outline.body, `href="/dashboard/studio/modules/${m1.id}/delete"`);
    t.match(outline.body, `href="/dashboard/studio/chapters/${m1.chapters[0].id}/delete"`);
    t.notMatch(outline.body, /<form method="post" action="[^"]*\/delete"/, 'no form posts a delete from the outline');
    const quiz = await en.get(`/dashboard/studio/quizzes/chapter/${m1.chapters[0].id}`);
    t.match(quiz.body, `href="/dashboard/studio/quizzes/chapter/${m1.chapters[0].id}/delete"`);
    t.notMatch(quiz.body, /<form method="post" action="[^"]*\/delete"/);
  });

  t.test('a module: what goes with it, in both languages; the GET deletes nothing', async (t) => {
    for (const [b, question, chapterWord] of [
      [en, `Delete the module “${m2.name}”?`, `the chapter “${m2.chapters[0].name}”`],
      [id, `Hapus modul «${m2.name}»?`, `bab «${m2.chapters[0].name}»`],
    ] as const) {
      const page = await b.get(`/dashboard/studio/modules/${m2.id}/delete`);
      t.equal(page.status, 200);
      t.match(page.body, question);
      t.match(page.body, chapterWord, 'its chapters are listed');
      t.match(page.body, m2.chapters[1].name);
      t.match(page.body, m2.chapters[0].quiz.name, 'and their quizzes');
      t.match(page.body, `<form method="post" action="/dashboard/studio/modules/${m2.id}/delete"`, 'the button posts to the same URL');
      t.match(page.body, `href="/dashboard/studio/courses/${courseId}/outline"`, 'a way back');
    }
    t.equal(await count('modules'), 2, 'nothing deleted by looking');
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, {}] as Record<string, string>[]) {
      t.equal(
        (await en.post(`/dashboard/studio/modules/${m2.id}/delete`, {}, headers)).status,
        403,
        `a cross-site post: ${JSON.stringify(headers)}`,
      );
    }
    t.equal(await count('modules'), 2, 'nor by a cross-site post');
    const done = await en.post(`/dashboard/studio/modules/${m2.id}/delete`);
    t.equal(done.status, 303);
    t.equal(done.location, `/dashboard/studio/courses/${courseId}/outline?saved=1`);
    t.equal(await count('modules'), 1);
    t.equal(await count('chapters'), 2, "the module's chapters went with it");
    t.equal((await en.get(`/dashboard/studio/modules/${m2.id}/delete`)).status, 404, 'a deleted module has no confirmation page');
  });

  t.test('a chapter and its quiz', async (t) => {
    const ch = m1.chapters[1];
    const page = await en.get(`/dashboard/studio/chapters/${ch.id}/delete`);
    t.equal(page.status, 200);
    t.match(page.body, `Delete the chapter “${ch.name}”?`);
    t.match(page.body, `the quiz “${ch.quiz.name}” (${ch.quiz.questions.length} questions)`);
    t.equal(await count('chapters'), 2);
    t.equal((await en.post(`/dashboard/studio/chapters/${ch.id}/delete`, {}, { origin: 'https://evil.example' })).status, 403);
    t.equal((await en.post(`/dashboard/studio/chapters/${ch.id}/delete`)).status, 303);
    t.equal(await count('chapters'), 1);
  });

  t.test('a quiz, and the final exam', async (t) => {
    const ch = m1.chapters[0];
    const page = await id.get(`/dashboard/studio/quizzes/chapter/${ch.id}/delete`);
    t.equal(page.status, 200);
    t.match(page.body, `Hapus kuis «${ch.quiz.name}»?`);
    t.match(page.body, `${ch.quiz.questions.length} soal`);
    t.match(page.body, `href="/dashboard/studio/quizzes/chapter/${ch.id}"`, 'back to the quiz editor');
    t.equal((await en.post(`/dashboard/studio/quizzes/chapter/${ch.id}/delete`, {}, { 'sec-fetch-site': 'cross-site' })).status, 403);
    const quizzes = await count('quizzes');
    t.equal((await en.post(`/dashboard/studio/quizzes/chapter/${ch.id}/delete`)).status, 303);
    t.equal(await count('quizzes'), quizzes - 1);
    t.equal((await en.get(`/dashboard/studio/quizzes/chapter/${ch.id}/delete`)).status, 404, 'no quiz: no confirmation');

    const final = await en.get(`/dashboard/studio/quizzes/final/${courseId}/delete`);
    t.equal(final.status, 200);
    t.match(final.body, `Delete the quiz “${doc.finalExam.name}”?`);
    t.equal((await en.post(`/dashboard/studio/quizzes/final/${courseId}/delete`)).status, 303);
    t.equal(
      Number(
        (await db.db.execute(sql`select count(*)::int as n from quizzes where course_id = ${courseId} and scope = 'final'`)).rows[0].n,
      ),
      0,
    );
  });

  t.test('a picture: its cover and its chapters are named', async (t) => {
    const png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#0a0' } })
      .png()
      .toBuffer();
    t.equal(
      (await en.upload(`/dashboard/studio/courses/${courseId}/pictures`, { name: 'sampul.png', type: 'image/png', bytes: png })).status,
      303,
    );
    const picture = (await db.db.execute(sql`select id, sha256 from course_pictures where course_id = ${courseId}`)).rows[0] as {
      id: number;
      sha256: string;
    };
    t.equal((await en.post(`/dashboard/studio/courses/${courseId}/pictures/${picture.id}/cover`)).status, 303);
    const path = `/media/pictures/${picture.sha256}.png`;
    t.equal((await api('PATCH', `/api/chapters/${m1.chapters[0].id}`, { content: `Gambar: ![x](${path})` })).status, 200);
    const listing = await en.get(`/dashboard/studio/courses/${courseId}/pictures`);
    t.match(listing.body, `href="/dashboard/studio/courses/${courseId}/pictures/${picture.id}/delete"`);
    t.notMatch(listing.body, /<form method="post" action="[^"]*\/delete"/);
    const page = await en.get(`/dashboard/studio/courses/${courseId}/pictures/${picture.id}/delete`);
    t.equal(page.status, 200);
    t.match(page.body, 'Delete the picture “sampul.png”?');
    t.match(page.body, `src="${path}"`, 'the picture is shown');
    t.match(page.body, 'This picture is the course cover');
    t.match(page.body, `the chapter “${m1.chapters[0].name}”`, 'the chapter showing it is named');
    t.equal((await en.post(`/dashboard/studio/courses/${courseId}/pictures/${picture.id}/delete`, {}, {})).status, 403);
    t.equal(await count('course_pictures'), 1);
    t.equal((await en.post(`/dashboard/studio/courses/${courseId}/pictures/${picture.id}/delete`)).status, 303);
    t.equal(await count('course_pictures'), 0);
  });

  t.test('nobody else sees a confirmation page', async (t) => {
    const ch = m1.chapters[0];
    const otherCourse = await (await bySession(app, outsider.id))(
      'POST',
      '/api/course-documents',
      sampleDocument({ institutionId: other, teacherId: outsider.id }),
    );
    const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#00f' } })
      .png()
      .toBuffer();
    const intruder = await browserOf(app, outsider.id);
    await intruder.upload(`/dashboard/studio/courses/${otherCourse.body.courseId}/pictures`, {
      name: 'b.png',
      type: 'image/png',
      bytes: png,
    });
    const foreignPicture = Number(
      (await db.db.execute(sql`select id from course_pictures where course_id = ${otherCourse.body.courseId}`)).rows[0].id,
    );
    t.equal(
      (await en.get(`/dashboard/studio/courses/${courseId}/pictures/${foreignPicture}/delete`)).status,
      404,
      "another course's picture through this course: 404",
    );
    for (const [label, user] of [
      ["another institution's teacher", outsider],
      ["another institution's admin", outsiderAdmin],
      ['a member', member],
    ] as const) {
      const b = await browserOf(app, user.id);
      for (const url of [
        `/dashboard/studio/modules/${m1.id}/delete`,
        `/dashboard/studio/chapters/${ch.id}/delete`,
        `/dashboard/studio/quizzes/module/${m1.id}/delete`,
        `/dashboard/studio/courses/${courseId}/pictures/${foreignPicture}/delete`,
      ]) {
        const res = await b.get(url);
        // A member is refused by role before anything is looked up (403 for any course); the others see no draft (404).
        t.equal(res.status, label === 'a member' ? 403 : 404, `${label}: GET ${url}`);
        t.notMatch(res.body, 'Kursus Hapus', "the draft's name is not shown");
        t.notMatch(res.body, ch.name);
      }
    }
    const key = await apiKeyFor(db.db, owner.id);
    const byKey = await app.inject({ method: 'GET', url: `/dashboard/studio/modules/${m1.id}/delete`, headers: { 'x-api-key': key } });
    t.equal(byKey.statusCode, 403, 'an API key opens no confirmation page (the studio takes sessions)');
    t.equal(await count('modules'), 1, 'nothing deleted');
  });
});
