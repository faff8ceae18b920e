import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { apiKeyFor, makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { browserOf, fieldValue } from './helpers.js';

// Attackers of the course studio: files that are not pictures, an oversized upload, another
// course's picture by id, a video host not on the list, stale saves, cross-site posts, and people
// who may not author the course (another institution's teacher and admin, a member, an API key).

t.test('studio attackers', async (t) => {
  const { app, db } = await buildTestApp(t, { config: { STUDIO_UPLOAD_LIMIT_BYTES: 1024 * 1024 } });
  const inst = await makeInstitution(db.db, 'A');
  const other = await makeInstitution(db.db, 'B');
  const owner = await makeUser(db.db, { role: 'teacher', institutionId: inst });
  const colleague = await makeUser(db.db, { role: 'admin', institutionId: inst });
  const outsider = await makeUser(db.db, { role: 'teacher', institutionId: other });
  const outsiderAdmin = await makeUser(db.db, { role: 'admin', institutionId: other });
  const member = await makeUser(db.db, { role: 'student' });
  const a = await browserOf(app, owner.id);
  const count = async (table: string, courseId: number) =>
    Number((await db.db.execute(sql`select count(*)::int as n from ${sql.raw(table)} where course_id = ${courseId}`)).rows[0].n);

  const newCourse = async (name: string) => {
    const res = await a.post('/dashboard/studio/new', { name });
    return Number(res.location?.match(/courses\/(\d+)$/)?.[1]);
  };
  const courseId = await newCourse('Kursus A');
  const otherCourseId = await newCourse('Kursus A2');
  await a.post(`/dashboard/studio/courses/${courseId}/modules`, { name: 'Modul' });
  const moduleId = Number((await db.db.execute(sql`select id from modules where course_id = ${courseId}`)).rows[0].id);
  await a.post(`/dashboard/studio/modules/${moduleId}/chapters`, { name: 'Bab' });
  const chapterId = Number((await db.db.execute(sql`select id from chapters where course_id = ${courseId}`)).rows[0].id);
  const upload = (bytes: Buffer, name = 'x.png', type = 'image/png', course = courseId, b = a) =>
    b.upload(`/dashboard/studio/courses/${course}/pictures`, { name, type, bytes });

  t.test('files that are not pictures, named .png', async (t) => {
    const htmlFile = await upload(Buffer.from('<!doctype html><script>alert(1)</script>'));
    t.equal(htmlFile.status, 422, 'an HTML page named .png is refused');
    t.match(htmlFile.body, 'PNG, JPEG, WebP');
    const svg = await upload(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>'), 'logo.png');
    t.equal(svg.status, 422, 'an SVG named .png is refused');
    const fakePng = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('<html>not really</html>')]);
    t.equal((await upload(fakePng)).status, 422, 'a PNG signature followed by HTML is refused (it does not decode)');
    t.equal(await count('course_pictures', courseId), 0, 'nothing stored');
  });

  t.test('an upload over the limit', async (t) => {
    const big = Buffer.alloc(50 * 1024 * 1024, 0x41);
    const res = await upload(big);
    t.equal(res.status, 413, 'a 50 MB upload is refused');
    t.match(res.body, 'too large');
    const justOver = Buffer.concat([
      await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } })
        .png()
        .toBuffer(),
      Buffer.alloc(1024 * 1024, 0),
    ]);
    t.equal((await upload(justOver)).status, 413, 'a file just over the limit (no early length refusal) is refused by the multipart limit');
    t.equal(await count('course_pictures', courseId), 0, 'nothing stored');
  });

  t.test("another course's picture by id", async (t) => {
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#f00' } })
      .png()
      .toBuffer();
    t.equal((await upload(png, 'b.png', 'image/png', otherCourseId)).status, 303);
    const otherPicture = Number((await db.db.execute(sql`select id from course_pictures where course_id = ${otherCourseId}`)).rows[0].id);
    t.equal(
      (await a.post(`/dashboard/studio/courses/${courseId}/pictures/${otherPicture}/cover`)).status,
      404,
      "a picture of another course cannot be made this course's cover",
    );
    t.equal((await a.post(`/dashboard/studio/courses/${courseId}/pictures/${otherPicture}/delete`)).status, 404, 'nor deleted through it');
    const intruder = await browserOf(app, outsider.id);
    t.equal((await intruder.post(`/dashboard/studio/courses/${otherCourseId}/pictures/${otherPicture}/delete`)).status, 404);
    t.equal(await count('course_pictures', otherCourseId), 1, 'the picture is still there');
    const cover = (await db.db.execute(sql`select cover_picture from courses where id = ${courseId}`)).rows[0].cover_picture;
    t.equal(cover, null, 'and the course has no cover');
  });

  t.test('a video host not on the list', async (t) => {
    const editor = await a.get(`/dashboard/studio/chapters/${chapterId}`);
    for (const url of [
      'https://evil.example/watch?v=dQw4w9WgXcQ',
      'https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ',
      'javascript:alert(1)',
    ]) {
      const res = await a.post(`/dashboard/studio/chapters/${chapterId}`, {
        action: 'video',
        version: fieldValue(editor.body, 'version') as string,
        name: 'Bab',
        content: 'Teks saya',
        videoUrl: url,
      });
      t.equal(res.status, 422, `refused: ${url}`);
      t.match(res.body, /id="f-videoUrl-error"/);
      t.match(res.body, 'Teks saya', 'what was typed is kept');
      t.notMatch(res.body, '<iframe', 'no frame');
    }
    const crafted = await a.post(`/dashboard/studio/chapters/${chapterId}`, {
      action: 'save',
      version: fieldValue(editor.body, 'version') as string,
      name: 'Bab',
      content: '<iframe src="https://evil.example/x"></iframe><script>alert(1)</script>',
    });
    t.equal(crafted.status, 303);
    const shown = await a.get(`/dashboard/studio/chapters/${chapterId}`);
    t.notMatch(shown.body.split('chapter-preview')[1], /<iframe|<script/, 'a typed foreign frame or script does not survive the preview');
  });

  t.test('stale saves are refused and show both versions', async (t) => {
    const colleagueBrowser = await browserOf(app, colleague.id);
    const mine = await a.get(`/dashboard/studio/chapters/${chapterId}`);
    const theirs = await colleagueBrowser.get(`/dashboard/studio/chapters/${chapterId}`);
    const v = fieldValue(mine.body, 'version') as string;
    t.equal(fieldValue(theirs.body, 'version'), v);
    t.equal(
      (
        await colleagueBrowser.post(`/dashboard/studio/chapters/${chapterId}`, {
          action: 'save',
          version: v,
          name: 'Bab',
          content: 'Versi rekan',
        })
      ).status,
      303,
      'an institution admin saves first',
    );
    const stale = await a.post(`/dashboard/studio/chapters/${chapterId}`, {
      action: 'save',
      version: v,
      name: 'Bab',
      content: 'Versi saya',
    });
    t.equal(stale.status, 409, 'the second save on the same version is refused');
    t.match(stale.body, 'Versi rekan', 'showing what is stored');
    t.match(stale.body, 'Versi saya', 'next to what was typed');
    const stored = (await db.db.execute(sql`select content, version from chapters where id = ${chapterId}`)).rows[0];
    t.equal(stored.content, 'Versi rekan', 'nothing overwritten');
    t.equal(fieldValue(stale.body, 'version'), String(stored.version), 'the form now edits the stored version');
    t.equal(
      (
        await a.post(`/dashboard/studio/chapters/${chapterId}`, {
          action: 'save',
          version: String(stored.version),
          name: 'Bab',
          content: 'Versi gabungan',
        })
      ).status,
      303,
      'saving again from it works',
    );

    const settings = await a.get(`/dashboard/studio/courses/${courseId}/settings`);
    const sv = fieldValue(settings.body, 'version') as string;
    const base = { name: 'Kursus A', price: '0', currency: 'IDR', type: 'self_paced', enrollmentType: 'open', minPassingScore: '70' };
    t.equal(
      (await colleagueBrowser.post(`/dashboard/studio/courses/${courseId}/settings`, { ...base, version: sv, instructor: 'Rekan' })).status,
      303,
    );
    const staleSettings = await a.post(`/dashboard/studio/courses/${courseId}/settings`, { ...base, version: sv, instructor: 'Saya' });
    t.equal(staleSettings.status, 409);
    t.match(staleSettings.body, 'Rekan');
    t.equal((await db.db.execute(sql`select instructor from courses where id = ${courseId}`)).rows[0].instructor, 'Rekan');

    const quiz = {
      count: '1',
      name: 'Kuis',
      minimumScore: '60',
      timeLimit: '10',
      maxAttempts: '2',
      q0_type: 'true_false',
      q0_text: 'Benar?',
      q0_options: 'Benar\nSalah',
      q0_right: '1',
      q0_points: '1',
    };
    t.equal((await a.post(`/dashboard/studio/quizzes/chapter/${chapterId}`, { ...quiz, version: '0' })).status, 303);
    const quizPage = await a.get(`/dashboard/studio/quizzes/chapter/${chapterId}`);
    const qv = fieldValue(quizPage.body, 'version') as string;
    t.equal(
      (await colleagueBrowser.post(`/dashboard/studio/quizzes/chapter/${chapterId}`, { ...quiz, version: qv, name: 'Kuis rekan' })).status,
      303,
    );
    const staleQuiz = await a.post(`/dashboard/studio/quizzes/chapter/${chapterId}`, { ...quiz, version: qv, name: 'Kuis saya' });
    t.equal(staleQuiz.status, 409);
    t.match(staleQuiz.body, 'Kuis rekan');
    const again = await a.post(`/dashboard/studio/quizzes/chapter/${chapterId}`, { ...quiz, version: '0', name: 'Kuis ganda' });
    t.equal(again.status, 409, 'a second "new quiz" form cannot replace the quiz created meanwhile');
  });

  t.test('cross-site posts of the studio forms', async (t) => {
    const before = (await db.db.execute(sql`select name from chapters where id = ${chapterId}`)).rows[0].name;
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, {}] as Record<string, string>[]) {
      t.equal(
        (await a.post(`/dashboard/studio/chapters/${chapterId}`, { action: 'save', name: 'Diretas', content: 'x' }, headers)).status,
        403,
      );
      t.equal((await a.post(`/dashboard/studio/courses/${courseId}/publish`, {}, headers)).status, 403);
      t.equal((await a.post(`/dashboard/studio/modules/${moduleId}/delete`, {}, headers)).status, 403);
      t.equal(
        (await upload(Buffer.from('x'), 'x.png', 'image/png', courseId, { ...a, upload: (u, f) => a.upload(u, f, headers) })).status,
        403,
      );
      t.equal((await a.post('/dashboard/studio/new', { name: 'Palsu' }, headers)).status, 403);
    }
    t.equal((await db.db.execute(sql`select name from chapters where id = ${chapterId}`)).rows[0].name, before, 'nothing changed');
    t.equal(await count('modules', courseId), 1);
  });

  t.test('an admin creates a course for a teacher of their own institution only', async (t) => {
    const admin = await browserOf(app, colleague.id);
    const form = await admin.get('/dashboard/studio/new');
    t.match(form.body, `value="${owner.id}"`, "the institution's teacher is offered");
    t.notMatch(form.body, `value="${outsider.id}"`, "another institution's teacher is not");
    const crafted = await admin.post('/dashboard/studio/new', { name: 'Kursus curian', teacherId: outsider.id });
    t.equal(crafted.status, 422, 'a crafted teacherId of another institution is refused');
    const ok = await admin.post('/dashboard/studio/new', { name: 'Kursus admin', teacherId: owner.id });
    t.equal(ok.status, 303);
    const row = (await db.db.execute(sql`select teacher_id, institution_id from courses where name = 'Kursus admin'`)).rows[0];
    t.same(row, { teacher_id: owner.id, institution_id: inst }, 'owned by the chosen teacher, in the institution');
    t.equal(Number((await db.db.execute(sql`select count(*)::int as n from courses where name = 'Kursus curian'`)).rows[0].n), 0);
    const outsiderNew = await (await browserOf(app, outsider.id)).post('/dashboard/studio/new', { name: 'Kursus B', teacherId: owner.id });
    t.equal(outsiderNew.status, 303, 'a teacher always creates as themselves');
    t.equal(
      (await db.db.execute(sql`select teacher_id from courses where name = 'Kursus B'`)).rows[0].teacher_id,
      outsider.id,
      'whatever teacherId the body names',
    );
  });

  t.test('people who may not author the course', async (t) => {
    const snapshot = async () =>
      JSON.stringify(
        (await db.db.execute(sql`select name, content, version from chapters where course_id = ${courseId} order by id`)).rows,
      );
    const before = await snapshot();
    for (const [label, user] of [
      ["another institution's teacher", outsider],
      ["another institution's admin", outsiderAdmin],
      ['a member', member],
    ] as const) {
      const b = await browserOf(app, user.id);
      // A member is refused by role before anything is looked up (403 for any course, whatever it sends);
      // the others may author some course, and see no draft of another (404).
      const refused = label === 'a member' ? 403 : 404;
      for (const url of [
        `/dashboard/studio/courses/${courseId}`,
        `/dashboard/studio/courses/${courseId}/settings`,
        `/dashboard/studio/courses/${courseId}/outline`,
        `/dashboard/studio/courses/${courseId}/history`,
        `/dashboard/studio/courses/${courseId}/pictures`,
        `/dashboard/studio/chapters/${chapterId}`,
        `/dashboard/studio/quizzes/chapter/${chapterId}`,
        `/dashboard/studio/quizzes/final/${courseId}`,
      ]) {
        const res = await b.get(url);
        t.equal(res.status, refused, `${label}: GET ${url} is a ${refused} (a draft is not revealed)`);
        t.notMatch(res.body, 'Kursus A', `${label}: the draft's name is not shown`);
      }
      t.equal(
        (await b.post(`/dashboard/studio/chapters/${chapterId}`, { action: 'save', name: 'X', content: 'X', version: '1' })).status,
        refused,
      );
      t.equal((await b.post(`/dashboard/studio/modules/${moduleId}/chapters`, { name: 'X' })).status, refused);
      t.equal((await b.post(`/dashboard/studio/modules/${moduleId}/delete`)).status, refused);
      t.equal((await b.post(`/dashboard/studio/courses/${courseId}/publish`)).status, refused);
      t.equal((await b.post(`/dashboard/studio/courses/${courseId}/settings`, { name: 'X', price: '0', currency: 'IDR' })).status, refused);
      t.equal((await b.post(`/dashboard/studio/quizzes/final/${courseId}`, { name: 'X', count: '0' })).status, refused);
      t.equal((await upload(Buffer.from('x'), 'x.png', 'image/png', courseId, b)).status, refused);
    }
    const memberNew = await (await browserOf(app, member.id)).post('/dashboard/studio/new', { name: 'Kursus anggota' });
    t.equal(memberNew.status, 403, 'a member cannot create a course');
    const key = await apiKeyFor(db.db, owner.id);
    const byKey = await app.inject({ method: 'GET', url: `/dashboard/studio/courses/${courseId}`, headers: { 'x-api-key': key } });
    t.equal(byKey.statusCode, 403, 'an API key does not open the studio (it takes sessions)');
    const keyPost = await app.inject({
      method: 'POST',
      url: `/dashboard/studio/courses/${courseId}/publish`,
      headers: { 'x-api-key': key, origin: 'http://localhost:3000', 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    t.equal(keyPost.statusCode, 403, 'nor posts a studio form');
    t.equal(await snapshot(), before, 'nothing changed');
    t.equal(Number((await db.db.execute(sql`select count(*)::int as n from courses where name = 'Kursus anggota'`)).rows[0].n), 0);
  });
});
