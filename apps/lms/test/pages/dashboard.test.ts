import { purchases } from '@lms/db';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import {
  completeChapter,
  earnCertificate,
  enroll,
  issueCertificate,
  makeCategory,
  makeCourse,
  makeCourseTree,
} from '../helpers/catalog-fixtures.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// The dashboard pages by role, through HTTP with session cookies: what each person sees, that
// values are escaped, that no answer key reaches a page, and the HTML error pages. In English,
// chosen by the language cookie (the Indonesian pages and the choice of language:
// languages.test.ts).
const ENGLISH = 'lms_lang=en';
const now = new Date('2026-11-22T10:00:00Z');
const { app } = await buildTestApp(t, { deps: { clock: () => now } });
const db = app.db;

const institutionId = await makeInstitution(db);
const teacher = await makeUser(db, { role: 'teacher', name: 'Bu <Guru>' });
const otherTeacher = await makeUser(db, { role: 'teacher' });
const admin = await makeUser(db, { role: 'admin', institutionId });
const foreignAdmin = await makeUser(db, { role: 'admin', institutionId: await makeInstitution(db, 'Elsewhere') });
const student = await makeUser(db, { role: 'student', name: 'Student One' });
const accounting = await makeCategory(db, { code: 'AKT', name: 'Akuntansi & Pajak' });
const law = await makeCategory(db, { code: 'HKM', name: 'Hukum' });

const published = await makeCourse(db, {
  teacherId: teacher.id,
  institutionId,
  name: 'Audit <Dasar>',
  categoryId: accounting.id,
  nilaiKum: 4,
  description: 'Learn auditing',
});
const tree = await makeCourseTree(db, published.id, [2, 1]);
const draft = await makeCourse(db, { teacherId: teacher.id, institutionId, name: 'Draft Course Perpajakan', isPublished: false });
await makeCourse(db, { teacherId: otherTeacher.id, institutionId, name: 'Hukum Kontrak', categoryId: law.id });
const finished = await makeCourse(db, {
  teacherId: otherTeacher.id,
  institutionId,
  name: 'Etika Profesi',
  categoryId: law.id,
  nilaiKum: 2.5,
});
await makeCourseTree(db, finished.id, [1]);

await enroll(db, student.id, published.id);
await completeChapter(db, student.id, tree.modules[0]!.chapters[0]!);
await enroll(db, student.id, finished.id);
await earnCertificate(db, student.id, finished);
await db
  .insert(purchases)
  .values({ userId: student.id, courseId: published.id, amount: '250000', status: 'paid', paidAt: new Date(now.getTime() - 86_400_000) });

const teacherCookie = await sessionCookieFor(app, teacher.id);
const adminCookie = await sessionCookieFor(app, admin.id);
const studentCookie = await sessionCookieFor(app, student.id);
const get = (url: string, cookie?: string) => app.inject({ url, headers: { cookie: cookie ? `${cookie}; ${ENGLISH}` : ENGLISH } });

t.test("a learner's dashboard: courses with status, progress, KUM and certificates", async (t) => {
  const res = await get('/dashboard', studentCookie);
  t.equal(res.statusCode, 200);
  const html = res.body;
  t.match(html, 'Audit &lt;Dasar&gt;');
  t.notMatch(html, '<Dasar>');
  t.match(html, `href="/dashboard/courses/${published.id}"`);
  t.match(html, /In progress/);
  t.match(html, '1 / 3', 'one of three chapters done');
  t.match(html, 'aria-valuenow="33.33"');
  t.match(html, /Etika Profesi[\s\S]*Completed[\s\S]*Issued/, 'the course with a certificate');
  t.match(
    html,
    /<span class="value">2\.5<\/span><span class="label">KUM accredited, all years/,
    'counted credit of certified courses only',
  );
  t.notMatch(html, /<span class="label">Accredited credits</, 'no zero figure when a scheme has credit');
  t.match(html, /<span class="value">1<\/span><span class="label">Certificates/);
  t.notMatch(html, 'Platform metrics', 'no staff metrics for a learner');
  t.notMatch(html, 'href="/dashboard/api-keys"', 'no API keys for a learner');
});

t.test("a certificate without a credit record adds nothing to the learner's credit figures", async (t) => {
  // A course showing 4 KUM whose certificate carries no credit (no accreditation when it was
  // issued): the figure counts records, not the course's shown value.
  const learner = await makeUser(db, { role: 'student', name: 'Student Two' });
  const elsewhere = await makeInstitution(db, 'Another body');
  const shown = await makeCourse(db, {
    teacherId: (await makeUser(db, { role: 'teacher', institutionId: elsewhere })).id,
    institutionId: elsewhere,
    nilaiKum: 4,
  });
  await enroll(db, learner.id, shown.id);
  await issueCertificate(db, learner.id, shown.id);
  const html = (await get('/dashboard', await sessionCookieFor(app, learner.id))).body;
  t.match(html, /<span class="value">1<\/span><span class="label">Certificates/);
  t.match(html, /<span class="value">0<\/span><span class="label">Accredited credits/);
  t.notMatch(html, /KUM accredited, all years/);
});

t.test("a teacher's dashboard: metrics as figures and SVG charts, their courses with drafts", async (t) => {
  const res = await get('/dashboard', teacherCookie);
  t.equal(res.statusCode, 200);
  const html = res.body;
  t.match(html, 'Welcome, Bu &lt;Guru&gt;');
  t.match(html, 'Platform metrics');
  t.match(html, /<span class="value">IDR\u00a0250,000<\/span><span class="label">Revenue, last 30 days/, 'rupiah in English, by Intl');
  t.match(html, /<span class="value">1<\/span><span class="label">Buyers, last 30 days/);
  for (const chart of [
    'Completion rate per category',
    'Buyers in the last 30 days',
    'Revenue in the last 30 days',
    'Certificates issued',
  ]) {
    t.match(html, new RegExp(`<figcaption id="[^"]+">${chart}</figcaption>\\s*<svg class="chart"`), `chart: ${chart}`);
  }
  t.match(html, 'Akuntansi &amp; Pajak', 'category names escaped in the charts');
  t.match(html, 'Akuntansi &amp; Pajak: 33.33%', "the category's completion rate (one enrollment, 1 of 3 chapters)");
  t.match(html, 'Draft Course Perpajakan');
  t.match(html, /Draft Course Perpajakan<\/a><\/td>\s*<td data-label="State"><span class="badge draft">Draft/);
  t.notMatch(html, 'Hukum Kontrak', "another teacher's course is not theirs");
  t.match(html, 'href="/dashboard/api-keys"');
});

t.test("an admin's dashboard: the metrics and every course of the institution, no key section", async (t) => {
  const html = (await get('/dashboard', adminCookie)).body;
  t.match(html, 'Platform metrics');
  t.match(html, 'Hukum Kontrak');
  t.match(html, 'Draft Course Perpajakan');
  t.notMatch(html, 'href="/dashboard/api-keys"');
});

t.test("another institution's admin: not this institution's drafts, on the dashboard, the catalog or the course page", async (t) => {
  const cookie = await sessionCookieFor(app, foreignAdmin.id);
  const dashboard = (await get('/dashboard', cookie)).body;
  t.match(dashboard, 'Hukum Kontrak', 'published courses of other institutions are listed');
  t.notMatch(dashboard, 'Draft Course Perpajakan');
  t.notMatch((await get('/dashboard/catalog?search=Perpajakan', cookie)).body, 'Draft Course Perpajakan');
  const page = await get(`/dashboard/courses/${draft.id}`, cookie);
  t.equal(page.statusCode, 404, "the draft's page is a 404");
  t.notMatch(page.body, 'Draft Course Perpajakan');
});

t.test('the catalog page: search, category filter, sort, and bad values ignored', async (t) => {
  const all = (await get('/dashboard/catalog', studentCookie)).body;
  t.match(all, 'Audit &lt;Dasar&gt;');
  t.match(all, 'Hukum Kontrak');
  t.notMatch(all, 'Draft Course Perpajakan', 'a student sees buyer-visible courses only');
  t.match(all, '<label>Search <input type="search" name="search"', 'labelled controls');

  const searched = (await get('/dashboard/catalog?search=kontrak', studentCookie)).body;
  t.match(searched, 'Hukum Kontrak');
  t.notMatch(searched, 'Audit &lt;Dasar&gt;');
  t.match(searched, 'value="kontrak"');

  const filtered = (await get(`/dashboard/catalog?categoryId=${accounting.id}`, studentCookie)).body;
  t.match(filtered, 'Audit &lt;Dasar&gt;');
  t.notMatch(filtered, 'Hukum Kontrak');
  t.match(filtered, `<option value="${accounting.id}" selected>`);

  const sorted = (await get('/dashboard/catalog?sortBy=name', studentCookie)).body;
  const order = ['Audit &lt;Dasar&gt;', 'Etika Profesi', 'Hukum Kontrak'].map((name) => sorted.indexOf(name));
  t.ok(
    order.every((i, k) => i > 0 && (k === 0 || i > order[k - 1]!)),
    'A to Z',
  );

  const hostile = await get(`/dashboard/catalog?search=${encodeURIComponent('"><script>x</script>')}&sortBy=bogus`, studentCookie);
  t.equal(hostile.statusCode, 200);
  t.notMatch(hostile.body, '<script>x');
  t.match(hostile.body, 'value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
  t.match(hostile.body, 'Ignored an invalid value for: sort order.');
});

t.test('the course page: modules and chapters locked or unlocked, never an answer key', async (t) => {
  const res = await get(`/dashboard/courses/${published.id}`, studentCookie);
  t.equal(res.statusCode, 200);
  const html = res.body;
  t.match(html, '<h1>Audit &lt;Dasar&gt;</h1>');
  t.match(html, /Unlocked/);
  t.match(html, /Locked/);
  t.match(html, 'Final exam');
  for (const secret of ['An essay answer', 'Because a is right', 'isCorrect', 'correctAnswer']) t.notMatch(html, secret);
  // The owner teacher may read answer keys through the JSON API; the page still shows none.
  const own = (await get(`/dashboard/courses/${published.id}`, teacherCookie)).body;
  t.notMatch(own, 'An essay answer');
  t.match((await get(`/dashboard/courses/${draft.id}`, teacherCookie)).body, 'Draft Course Perpajakan', 'the owner sees a draft');
});

t.test('errors on pages are pages: 302 to sign-in, 403, 404; the JSON API keeps JSON', async (t) => {
  const anonymous = await get('/dashboard/catalog');
  t.equal(anonymous.statusCode, 302);
  t.equal(anonymous.headers.location, '/sign-in');

  const key = await apiKeyFor(db, teacher.id);
  const byKey = await app.inject({ url: '/dashboard', headers: { 'x-api-key': key } });
  t.equal(byKey.statusCode, 302, 'an API key does not open a page');

  const hidden = await get(`/dashboard/courses/${draft.id}`, studentCookie);
  t.equal(hidden.statusCode, 404);
  t.match(hidden.headers['content-type'], /^text\/html/);
  t.match(hidden.body, 'Page not found');
  t.match(hidden.body, 'Back to your dashboard');
  t.equal((await get('/dashboard/courses/not-a-number', studentCookie)).statusCode, 404);
  t.equal((await get('/dashboard/courses/99999999999999999999', studentCookie)).statusCode, 404);
  const unknown = await get('/dashboard/nothing-here', studentCookie);
  t.equal(unknown.statusCode, 404);
  t.match(unknown.body, 'Page not found');

  const forbidden = await get('/dashboard/api-keys', studentCookie);
  t.equal(forbidden.statusCode, 403);
  t.match(forbidden.headers['content-type'], /^text\/html/);
  t.match(forbidden.body, 'Not allowed');
  t.equal((await get('/dashboard/api-keys', adminCookie)).statusCode, 403, 'keys are for teachers only, as in the API');

  const api = await get('/api/courses/999999', studentCookie);
  t.equal(api.statusCode, 404);
  t.same(api.json(), { success: false, error: 'Course not found' });
});

t.test('the Kunci API page lists the keys and loads only our own script', async (t) => {
  const res = await get('/dashboard/api-keys', teacherCookie);
  t.equal(res.statusCode, 200);
  t.match(res.body, '<script src="/dashboard/assets/dashboard.js" defer></script>');
  t.match(res.body, 'test key', 'the key made above');
  t.match(res.body, /<code>lms_key_[^<]*…<\/code>/, 'its prefix');
  t.match(res.body, 'Copy this key now: it will not be shown again.');
  t.match(res.headers['content-security-policy'], "default-src 'none'");
  const script = await get('/dashboard/assets/dashboard.js');
  t.equal(script.statusCode, 200);
  t.match(script.headers['content-type'], /^text\/javascript/);
  t.match(script.body, "'x-requested-with'");
  t.match(script.body, 'window.confirm');
});
