import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { browserOf, fieldValue } from './helpers.js';

// A teacher builds a course in the studio with plain forms only: creates it, sets its fields,
// writes modules and chapters (Markdown, a picture, a video), a chapter quiz and a final exam,
// is refused publishing until the event code is set, publishes; the catalog shows the cover.

t.test('a teacher builds and publishes a course through the studio', async (t) => {
  const { app, db } = await buildTestApp(t);
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const b = await browserOf(app, teacher.id, 'en');

  const dash = await b.get('/dashboard');
  t.match(dash.body, 'href="/dashboard/studio/new"', 'the dashboard offers a new course');

  const form = await b.get('/dashboard/studio/new');
  t.equal(form.status, 200);
  const blank = await b.post('/dashboard/studio/new', { name: '  ' });
  t.equal(blank.status, 422, 'a blank name is refused on the page');
  const created = await b.post('/dashboard/studio/new', { name: 'Audit Forensik' });
  t.equal(created.status, 303);
  const courseId = Number(created.location?.match(/courses\/(\d+)$/)?.[1]);
  t.ok(courseId > 0, 'opens the new course in its studio');
  const overview = await b.get(`/dashboard/studio/courses/${courseId}`);
  t.equal(overview.status, 200);
  t.match(overview.body, `href="/dashboard/courses/${courseId}/preview"`, 'links the learner preview');
  t.match(overview.body, 'data-rule="chapters" data-ok="false"');
  t.match(overview.body, `href="/dashboard/studio/courses/${courseId}/outline"`, 'an unmet item links to where it is fixed');
  t.match((await b.get('/dashboard')).body, `href="/dashboard/studio/courses/${courseId}"`, 'the dashboard links the draft to its studio');

  // Outline: two modules, chapters, a rename and a move.
  t.equal((await b.post(`/dashboard/studio/courses/${courseId}/modules`, { name: 'Dasar' })).status, 303);
  t.equal((await b.post(`/dashboard/studio/courses/${courseId}/modules`, { name: 'Lanjutan' })).status, 303);
  const modules = (await db.db.execute(sql`select id, name from modules where course_id = ${courseId} order by order_index`)).rows as {
    id: number;
    name: string;
  }[];
  t.same(
    modules.map((m) => m.name),
    ['Dasar', 'Lanjutan'],
  );
  for (const [m, names] of [
    [modules[0].id, ['Pengantar', 'Bukti digital']],
    [modules[1].id, ['Wawancara']],
  ] as const) {
    for (const name of names) t.equal((await b.post(`/dashboard/studio/modules/${m}/chapters`, { name })).status, 303);
  }
  const emptyChapter = await b.post(`/dashboard/studio/modules/${modules[0].id}/chapters`, { name: '' });
  t.equal(emptyChapter.status, 422, 'an empty chapter name re-renders the outline');
  t.equal((await b.post(`/dashboard/studio/modules/${modules[1].id}/rename`, { name: 'Praktik' })).status, 303);
  t.equal((await b.post(`/dashboard/studio/modules/${modules[1].id}/move`, { direction: 'up' })).status, 303);
  const outline = await b.get(`/dashboard/studio/courses/${courseId}/outline`);
  t.ok(outline.body.indexOf('Praktik') < outline.body.indexOf('Dasar'), 'the module moved up, without JavaScript');
  t.equal((await b.post(`/dashboard/studio/modules/${modules[1].id}/move`, { direction: 'down' })).status, 303);
  const chapters = (await db.db.execute(sql`select id, name from chapters where course_id = ${courseId} order by module_id, order_index`))
    .rows as { id: number; name: string }[];
  t.equal((await b.post(`/dashboard/studio/chapters/${chapters[1].id}/move`, { direction: 'up' })).status, 303);
  const order = (await db.db.execute(sql`select name from chapters where module_id = ${modules[0].id} order by order_index`)).rows;
  t.same(
    order.map((r) => r.name),
    ['Bukti digital', 'Pengantar'],
    'the chapter moved up',
  );

  // A picture, then a chapter with it and a video.
  const png = await sharp({ create: { width: 2400, height: 1200, channels: 3, background: '#225588' } })
    .png()
    .toBuffer();
  const uploaded = await b.upload(`/dashboard/studio/courses/${courseId}/pictures`, { name: 'sampul.png', type: 'image/png', bytes: png });
  t.equal(uploaded.status, 303, uploaded.body.slice(0, 300));
  const pics = await b.get(`/dashboard/studio/courses/${courseId}/pictures`);
  const path = pics.body.match(/\/media\/pictures\/[0-9a-f]{64}\.png/)?.[0] as string;
  t.ok(path, 'the picture has a content-addressed URL');
  const served = await app.inject({ method: 'GET', url: path });
  t.equal(served.statusCode, 200);
  t.equal(served.headers['content-type'], 'image/png');
  t.equal(served.headers['x-content-type-options'], 'nosniff');
  t.match(String(served.headers['cache-control']), 'immutable');
  t.equal((await sharp(served.rawPayload).metadata()).width, 1600, 'resized for the catalog');
  const pictureId = Number(pics.body.match(/pictures\/(\d+)\/cover/)?.[1]);
  t.equal((await b.post(`/dashboard/studio/courses/${courseId}/pictures/${pictureId}/cover`)).status, 303);

  const editor = await b.get(`/dashboard/studio/chapters/${chapters[0].id}`);
  t.equal(editor.status, 200);
  const version = fieldValue(editor.body, 'version') as string;
  const withVideo = await b.post(`/dashboard/studio/chapters/${chapters[0].id}`, {
    action: 'video',
    version,
    name: 'Pengantar',
    content: `# Pengantar\n\n![sampul](${path})`,
    videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  });
  t.equal(withVideo.status, 200);
  t.match(withVideo.body, 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ', 'the video is embedded in the typed content');
  t.match(String(withVideo.headers['content-security-policy']), 'frame-src https://www.youtube-nocookie.com');
  const content = fieldValue(withVideo.body, 'content')
    ?.replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>') as string;
  const saved = await b.post(`/dashboard/studio/chapters/${chapters[0].id}`, { action: 'save', version, name: 'Pengantar', content });
  t.equal(saved.status, 303, saved.body.slice(0, 400));
  const shown = await b.get(`/dashboard/studio/chapters/${chapters[0].id}`);
  t.match(shown.body, `<img src="${path}"`, 'the preview shows the picture');
  t.match(shown.body, '<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"', 'and the video player');

  // A chapter quiz and a final exam.
  const quizForm = {
    version: '0',
    count: '2',
    name: 'Kuis pengantar',
    description: '',
    minimumScore: '60',
    timeLimit: '10',
    maxAttempts: '2',
    q0_type: 'multiple_choice',
    q0_text: 'Apa itu audit forensik?',
    q0_options: 'Pemeriksaan bukti\nPemasaran',
    q0_right: '1',
    q0_points: '10',
    q0_explanation: 'Karena bukti.',
    q1_type: 'short_answer',
    q1_text: 'Singkatan dari CFE?',
    q1_right: 'Certified Fraud Examiner',
    q1_points: '5',
  };
  const wrongQuiz = await b.post(`/dashboard/studio/quizzes/chapter/${chapters[0].id}`, { ...quizForm, q0_right: '' });
  t.equal(wrongQuiz.status, 422, 'a choice question without its right answer is refused');
  t.match(wrongQuiz.body, 'Apa itu audit forensik?', 'keeping what was typed');
  t.match(wrongQuiz.body, /id="f-q0_right-error"/, 'with the problem next to the field');
  t.equal((await b.post(`/dashboard/studio/quizzes/chapter/${chapters[0].id}`, quizForm)).status, 303);
  t.equal((await b.post(`/dashboard/studio/quizzes/final/${courseId}`, { ...quizForm, name: 'Ujian akhir' })).status, 303);
  const quizzes = (
    await db.db.execute(sql`select scope::text, minimum_score, max_attempts from quizzes where course_id = ${courseId} order by id`)
  ).rows;
  t.same(
    quizzes.map((q) => q.scope),
    ['chapter', 'final'],
  );

  // Settings: prices and enrolment, then the checklist refuses until an event code is set.
  const settings = await b.get(`/dashboard/studio/courses/${courseId}/settings`);
  const settingsForm = {
    version: fieldValue(settings.body, 'version') as string,
    name: 'Audit Forensik',
    description: 'Dasar audit forensik.',
    instructor: 'Dr. Sari',
    courseCode: 'AF-01',
    categoryId: '',
    type: 'self_paced',
    startDate: '',
    endDate: '',
    price: '0',
    priceNonMember: '',
    priceMahasiswa: '',
    currency: 'IDR',
    enrollmentType: 'open',
    enrollmentCode: '',
    eventCode: '',
    // A course's credit is an admin's accreditation (test/credits/accreditations.test.ts): the teacher leaves it as it is.
    nilaiKum: '',
    minPassingScore: '70',
  };
  const badDates = await b.post(`/dashboard/studio/courses/${courseId}/settings`, {
    ...settingsForm,
    startDate: '2026-09-01',
    endDate: '2026-08-01',
  });
  t.equal(badDates.status, 422);
  t.match(badDates.body, /id="f-endDate-error"/, 'the date problem is next to the end date');
  t.equal(fieldValue(badDates.body, 'instructor'), 'Dr. Sari', 'what was typed is kept');
  t.equal((await b.post(`/dashboard/studio/courses/${courseId}/settings`, settingsForm)).status, 303);
  const refused = await b.post(`/dashboard/studio/courses/${courseId}/publish`);
  t.equal(refused.location, `/dashboard/studio/courses/${courseId}?published=0#checklist`);
  const checklist = await b.get(`/dashboard/studio/courses/${courseId}?published=0`);
  t.equal(checklist.status, 409);
  t.match(checklist.body, 'data-rule="eventCode" data-ok="false"');
  t.match(checklist.body, `href="/dashboard/studio/courses/${courseId}/settings#prices"`, 'the event code links to the settings');
  const fresh = await b.get(`/dashboard/studio/courses/${courseId}/settings`);
  t.equal(
    (
      await b.post(`/dashboard/studio/courses/${courseId}/settings`, {
        ...settingsForm,
        version: fieldValue(fresh.body, 'version') as string,
        eventCode: 'EV-AF-01',
      })
    ).status,
    303,
  );
  const published = await b.post(`/dashboard/studio/courses/${courseId}/publish`);
  t.equal(published.location, `/dashboard/studio/courses/${courseId}?published=1#checklist`);

  // A member finds it with its cover (the API's coverPicture and thumbnail too).
  const member = await makeUser(db.db, { role: 'student' });
  const m = await browserOf(app, member.id, 'id');
  const catalog = await m.get('/dashboard/catalog');
  t.match(catalog.body, 'Audit Forensik');
  t.match(catalog.body, `<img class="cover" src="${path}"`, 'the catalog shows the cover');
  const coursePage = await m.get(`/dashboard/courses/${courseId}`);
  t.match(coursePage.body, `<img class="cover" src="${path}"`, 'the course page shows the cover');
  const api = await app.inject({ method: 'GET', url: `/api/courses?courseId=${courseId}`, headers: { cookie: m.cookie } });
  t.equal(api.json().courses[0].thumbnail, `http://localhost:3000${path}`);

  const history = await b.get(`/dashboard/studio/courses/${courseId}/history`);
  t.match(history.body, 'Course published');
  t.match(history.body, 'Picture uploaded</strong>: Picture «sampul.png»');
  t.notMatch(history.body, /\w\[\d+\]/, 'no internal path');
});
