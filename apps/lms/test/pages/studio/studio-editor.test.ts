import { AUTHORING_LIMITS } from '@lms/contracts';
import { categories } from '@lms/db';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { MARKDOWN_MAX_NESTING } from '../../../src/pages/view/markdown.js';
import { browserOf, fieldValue, OWN_ORIGIN } from './helpers.js';

// The studio's enhancements, through HTTP: the chapter editor's live preview route (who may ask,
// the JSON CSRF rule, its bounds and budget, the learner page's sanitizing), a picture uploaded
// for the editor (JSON), a video put at the cursor, the conflict page's truthful words, the
// category picker, true/false options filled in, open enrolment for a new course, the outline's
// move forms.

t.test('the studio editor', async (t) => {
  const { app, db } = await buildTestApp(t, { config: { AUTHORING_RATE_LIMIT_PER_MINUTE: 40 } });
  const inst = await makeInstitution(db.db, 'A');
  const other = await makeInstitution(db.db, 'B');
  const owner = await makeUser(db.db, { role: 'teacher', institutionId: inst });
  const colleague = await makeUser(db.db, { role: 'admin', institutionId: inst });
  const outsider = await makeUser(db.db, { role: 'teacher', institutionId: other });
  const outsiderAdmin = await makeUser(db.db, { role: 'admin', institutionId: other });
  const member = await makeUser(db.db, { role: 'student' });
  const a = await browserOf(app, owner.id, 'id');
  const courseId = Number((await a.post('/dashboard/studio/new', { name: 'Kursus' })).location?.match(/courses\/(\d+)$/)?.[1]);
  await a.post(`/dashboard/studio/courses/${courseId}/modules`, { name: 'Modul' });
  const moduleId = Number((await db.db.execute(sql`select id from modules where course_id = ${courseId}`)).rows[0].id);
  await a.post(`/dashboard/studio/modules/${moduleId}/chapters`, { name: 'Bab 1' });
  await a.post(`/dashboard/studio/modules/${moduleId}/chapters`, { name: 'Bab 2' });
  const chapterIds = (await db.db.execute(sql`select id from chapters where course_id = ${courseId} order by order_index`)).rows.map((r) =>
    Number(r.id),
  );
  const chapterId = chapterIds[0] as number;
  const previewUrl = `/dashboard/studio/chapters/${chapterId}/preview`;
  const preview = async (cookie: string, payload: unknown, headers: Record<string, string> = { 'x-requested-with': 'test' }) => {
    const res = await app.inject({
      method: 'POST',
      url: previewUrl,
      headers: { cookie, 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
    return {
      status: res.statusCode,
      body: res.body,
      json: () => res.json() as { html: string; outcome: string; note: string | null; message?: string },
    };
  };

  t.test('the live preview renders and sanitizes as the learner page does', async (t) => {
    const res = await preview(a.cookie, {
      content:
        '# Judul\n\n**tebal**\n\n<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" title="v"></iframe>\n\n<iframe src="https://evil.example/x"></iframe><script>alert(1)</script><img src="x" onerror="alert(1)">',
    });
    t.equal(res.status, 200);
    const body = res.json();
    t.match(body.html, '<h1>Judul</h1>');
    t.match(body.html, '<strong>tebal</strong>');
    t.match(body.html, 'src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"', 'an allowed player is kept');
    t.notMatch(body.html, /evil\.example|<script|onerror/, 'a foreign frame, a script and a handler are removed');
    t.equal(body.outcome, 'rendered');
    t.equal(body.note, null);
    const deep = await preview(a.cookie, { content: `# Judul\n\n${'<em>'.repeat(MARKDOWN_MAX_NESTING + 1)}x` });
    t.equal(deep.json().outcome, 'too_deep');
    t.match(deep.json().note, 'bersarang', "the note is in the page's language");
    const colleagueBrowser = await browserOf(app, colleague.id);
    t.equal((await preview(colleagueBrowser.cookie, { content: 'x' })).status, 200, 'an admin of the institution may preview');
  });

  t.test('who may not preview, and crafted bodies', async (t) => {
    for (const [who, user] of [
      ['another institution teacher', outsider],
      ['another institution admin', outsiderAdmin],
      ['a member', member],
    ] as const) {
      const res = await preview((await browserOf(app, user.id)).cookie, { content: 'rahasia' });
      t.ok(res.status === 403 || res.status === 404, `${who}: refused (${res.status})`);
      t.notMatch(res.body, 'rahasia', 'nothing of it rendered');
    }
    const anonymous = await app.inject({
      method: 'POST',
      url: previewUrl,
      headers: { 'content-type': 'application/json', 'x-requested-with': 't' },
      payload: '{"content":"x"}',
    });
    t.ok(anonymous.statusCode === 401 || anonymous.statusCode === 302, `no session: refused (${anonymous.statusCode})`);
    t.equal((await preview(a.cookie, { content: 'x' }, {})).status, 403, 'without x-requested-with (a form from elsewhere): refused');
    t.equal(
      (await preview(a.cookie, { content: 'x' }, { 'x-requested-with': 't', origin: 'https://evil.example' })).status,
      403,
      'another origin: refused',
    );
    t.equal(
      (await preview(a.cookie, { content: 'x' }, { 'x-requested-with': 't', origin: OWN_ORIGIN })).status,
      200,
      'our own origin: fine',
    );
    for (const crafted of [{ content: 5 }, { content: 'x', extra: 1 }, [], 'null', {}]) {
      const res = await preview(a.cookie, crafted);
      t.equal(res.status, 400, `crafted ${JSON.stringify(crafted)}: 400`);
      t.match(res.json().message, 'JSON berisi satu teks', 'said in the page language');
    }
    const broken = await preview(a.cookie, '{"content":');
    t.ok(broken.status >= 400 && broken.status < 500, `JSON that does not parse: a client error (${broken.status})`);
    const tooLong = await preview(a.cookie, { content: 'a'.repeat(AUTHORING_LIMITS.chapterContentChars + 1) });
    t.equal(tooLong.status, 422, 'more than a chapter may hold: 422');
    t.match(tooLong.json().message, 'karakter', 'said in the page language');
    const huge = await preview(a.cookie, `{"content":"${'a'.repeat(AUTHORING_LIMITS.chapterContentChars * 7)}"}`);
    t.equal(huge.status, 413, 'a body over the bound is refused before it is parsed');
    const missing = await app.inject({
      method: 'POST',
      url: '/dashboard/studio/chapters/999999/preview',
      headers: { cookie: a.cookie, 'content-type': 'application/json', 'x-requested-with': 't' },
      payload: '{"content":"x"}',
    });
    t.equal(missing.statusCode, 404, 'a chapter that does not exist: 404');
  });

  t.test('a picture uploaded for the editor answers its Markdown line', async (t) => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#08f' } })
      .png()
      .toBuffer();
    const res = await a.upload(
      `/dashboard/studio/courses/${courseId}/pictures`,
      { name: 'diagram.png', type: 'image/png', bytes: png },
      {
        origin: OWN_ORIGIN,
        accept: 'application/json',
      },
    );
    t.equal(res.status, 201);
    const body = JSON.parse(res.body) as { path: string; markdown: string };
    t.match(body.path, /^\/media\/pictures\/[0-9a-f]{64}\.png$/);
    t.equal(body.markdown, `![diagram](${body.path})`);
    const outsiderUpload = await (await browserOf(app, outsider.id)).upload(
      `/dashboard/studio/courses/${courseId}/pictures`,
      { name: 'x.png', type: 'image/png', bytes: png },
      { origin: OWN_ORIGIN, accept: 'application/json' },
    );
    t.ok(
      outsiderUpload.status === 403 || outsiderUpload.status === 404,
      `another institution's teacher: refused (${outsiderUpload.status})`,
    );
    const plain = await a.upload(`/dashboard/studio/courses/${courseId}/pictures`, { name: 'x.png', type: 'image/png', bytes: png });
    t.equal(plain.status, 303, 'a plain form still goes to the pictures page');
  });

  t.test('a video goes where the cursor was, as a block', async (t) => {
    const editor = await a.get(`/dashboard/studio/chapters/${chapterId}`);
    t.match(editor.body, 'data-md="picture"', 'the toolbar is on the page');
    t.match(editor.body, '/dashboard/assets/studio-editor.js', "the studio's script is loaded");
    const content = 'Awal.\nAkhir.';
    const res = await a.post(`/dashboard/studio/chapters/${chapterId}`, {
      action: 'video',
      version: fieldValue(editor.body, 'version') as string,
      name: 'Bab 1',
      content,
      cursor: '6',
      videoUrl: 'https://youtu.be/dQw4w9WgXcQ',
    });
    t.equal(res.status, 200);
    const typed = (fieldValue(res.body, 'content') ?? '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"');
    t.match(
      typed,
      /^Awal\.\n\n<iframe src="https:\/\/www\.youtube-nocookie\.com\/embed\/dQw4w9WgXcQ"[^\n]*><\/iframe>\n\nAkhir\.$/,
      'between the two lines',
    );
    const noCursor = await a.post(`/dashboard/studio/chapters/${chapterId}`, {
      action: 'video',
      version: fieldValue(editor.body, 'version') as string,
      name: 'Bab 1',
      content,
      cursor: 'x',
      videoUrl: 'https://youtu.be/dQw4w9WgXcQ',
    });
    t.match(fieldValue(noCursor.body, 'content'), /^Awal\.\nAkhir\.\n\n&lt;iframe/, 'no cursor (no script): at the end');
  });

  t.test('the conflict page says the form holds your text', async (t) => {
    const editor = await a.get(`/dashboard/studio/chapters/${chapterId}`);
    const v = fieldValue(editor.body, 'version') as string;
    const colleagueBrowser = await browserOf(app, colleague.id);
    await colleagueBrowser.post(`/dashboard/studio/chapters/${chapterId}`, {
      action: 'save',
      version: v,
      name: 'Bab 1',
      content: 'Versi rekan',
    });
    const stale = await a.post(`/dashboard/studio/chapters/${chapterId}`, {
      action: 'save',
      version: v,
      name: 'Bab 1',
      content: 'Versi saya',
    });
    t.equal(stale.status, 409);
    t.match(stale.body, 'masih berisi teks Anda', 'the form holds your text, said so');
    t.notMatch(stale.body, 'kini berisi versi terbaru', 'not the latest version');
    t.match(fieldValue(stale.body, 'content'), 'Versi saya');
    t.match(stale.body, `<a href="/dashboard/studio/chapters/${chapterId}">Buang teks saya`, 'a way to the latest version');
  });

  t.test('fewer clicks: category picker, true/false, open enrolment, move forms', async (t) => {
    await db.db.insert(categories).values([
      { code: 'AUD', name: 'Audit' },
      { code: 'PJK', name: 'Pajak' },
    ]);
    const settings = await a.get(`/dashboard/studio/courses/${courseId}/settings`);
    t.match(
      settings.body,
      /<select id="f-categoryId" name="categoryId"[^>]*><option value="" selected>\(tanpa kategori\)<\/option><option value="\d+">Audit<\/option>/,
    );
    t.match(settings.body, 'nomor kegiatan SKP', 'the event code is explained');
    const made = (await db.db.execute(sql`select enrollment_type, is_purchasable from courses where id = ${courseId}`)).rows[0];
    t.equal(made.enrollment_type, 'open', 'a new course enrols openly: it can be published without an enrolment code');
    t.equal(made.is_purchasable, false, 'and is free until a price is set (sold at 0 cannot be published)');
    const quizUrl = `/dashboard/studio/quizzes/chapter/${chapterId}`;
    const quizPage = await a.get(quizUrl);
    t.match(quizPage.body, 'data-true-false="[&quot;Benar&quot;,&quot;Salah&quot;]"');
    const saved = await a.post(quizUrl, {
      action: 'save',
      version: fieldValue(quizPage.body, 'version') as string,
      count: '1',
      name: 'Kuis',
      minimumScore: '70',
      timeLimit: '0',
      maxAttempts: '3',
      q0_type: 'true_false',
      q0_text: 'Audit forensik mengumpulkan bukti?',
      q0_options: '',
      q0_right: '1',
      q0_points: '1',
    });
    t.equal(saved.status, 303, 'a true/false question without options is saved');
    const options = (await db.db.execute(sql`select options from questions where question_text like 'Audit forensik%'`)).rows[0]
      .options as { text: string; isCorrect: boolean }[];
    t.same(
      options.map((o) => [o.text, o.isCorrect]),
      [
        ['Benar', true],
        ['Salah', false],
      ],
      'with the two options in the page language',
    );
    const outline = await a.get(`/dashboard/studio/courses/${courseId}/outline`);
    t.match(outline.body, `<li data-move="/dashboard/studio/chapters/${chapterIds[1]}/move">`);
    t.match(outline.body, 'aria-label="Naik: «Bab 2»"', 'the move button names what it moves');
  });

  t.test('duplicate this course', async (t) => {
    await db.db.execute(sql`update courses set event_code = 'EV-1' where id = ${courseId}`);
    const courseCount = async () => Number((await db.db.execute(sql`select count(*)::int as n from courses`)).rows[0].n);
    const before = await courseCount();
    for (const user of [outsider, outsiderAdmin, member]) {
      const res = await (await browserOf(app, user.id)).post(`/dashboard/studio/courses/${courseId}/duplicate`);
      t.ok(res.status === 403 || res.status === 404, `a person who may not write it is refused (${res.status})`);
    }
    t.equal(
      (await a.post(`/dashboard/studio/courses/${courseId}/duplicate`, {}, { origin: 'https://evil.example' })).status,
      403,
      'a cross-site form is refused',
    );
    t.equal(await courseCount(), before, 'no copy made by them');
    t.match(
      (await a.get(`/dashboard/studio/courses/${courseId}`)).body,
      `action="/dashboard/studio/courses/${courseId}/duplicate"`,
      'the overview offers it',
    );
    const res = await a.post(`/dashboard/studio/courses/${courseId}/duplicate`);
    t.equal(res.status, 303);
    const copyId = Number(res.location?.match(/courses\/(\d+)$/)?.[1]);
    t.not(copyId, courseId);
    const copy = (await db.db.execute(sql`select name, event_code, is_published, teacher_id from courses where id = ${copyId}`)).rows[0];
    t.equal(copy.name, 'Kursus (salinan)', 'named as a copy, in the page language');
    t.equal(copy.event_code, null, 'without the event code of the original');
    t.equal(copy.is_published, false, 'a draft');
    t.equal(copy.teacher_id, owner.id, 'of the same teacher');
    const chapterNames = async (id: number) =>
      (await db.db.execute(sql`select name, content from chapters where course_id = ${id} order by order_index`)).rows.map((r) => [
        r.name,
        r.content,
      ]);
    t.same(await chapterNames(copyId), await chapterNames(courseId), 'with the same chapters and texts');
    const quizzes = Number((await db.db.execute(sql`select count(*)::int as n from quizzes where course_id = ${copyId}`)).rows[0].n);
    t.equal(quizzes, 1, 'and the quiz');
  });
});
