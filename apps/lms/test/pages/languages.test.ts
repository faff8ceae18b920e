import { apiKeys, chapters, courseAccreditations, modules, purchases, quizzes } from '@lms/db';
import { Reasons } from '@lms/partner-auth';
import { eq } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';
import { localeFromAcceptLanguage, translation } from '../../src/pages/i18n/index.js';
import { returnPath } from '../../src/pages/language.js';
import { type SignInProblem, signInProblem } from '../../src/pages/sign-in/index.js';
import { buildTestApp } from '../helpers/app.js';
import { completeChapter, enroll, issueCertificate, makeCategory, makeCourse, makeCourseTree } from '../helpers/catalog-fixtures.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { pageWords } from '../helpers/page-words.js';

// The pages in Bahasa Indonesia by default and in English: the choice (cookie, then
// Accept-Language, then Indonesian), the language switch and its return path, numbers, rupiah,
// dates and plurals written by Intl for each locale, and no word of the other language left on a
// page.

const now = new Date('2026-11-22T10:00:00Z');
const { app, db: testDb } = await buildTestApp(t, { deps: { clock: () => now } });
const db = app.db;
const ORIGIN = 'http://localhost:3000'; // PUBLIC_URL of the test config

// Data named without a word of either language, so that any English or Indonesian word on a page
// comes from the page itself.
const institutionId = await makeInstitution(db);
const teacher = await makeUser(db, { role: 'teacher', name: 'Rina Wulandari' });
const admin = await makeUser(db, { role: 'admin', name: 'Joko Santoso' });
const learner = await makeUser(db, { role: 'student', name: 'Dewi Lestari' });
const idle = await makeUser(db, { role: 'student', name: 'Sri Mulyani' });
const zeta = await makeCategory(db, { code: 'ZT', name: 'Zeta' });
const xylo = await makeCourse(db, {
  teacherId: teacher.id,
  institutionId,
  name: 'Xylo 101',
  description: 'Xylo Xylo.',
  instructor: 'Dr. Sari',
  categoryId: zeta.id,
  nilaiKum: 2.5,
  isPurchasable: true,
  price: '350000',
  // 1 and 20 December in Jakarta; 30 November in UTC.
  startDate: new Date('2026-11-30T17:00:00Z'),
  endDate: new Date('2026-12-20T03:00:00Z'),
});
const tree = await makeCourseTree(db, xylo.id, [2, 1]);
const yodo = await makeCourse(db, {
  teacherId: teacher.id,
  institutionId,
  name: 'Yodo 202',
  description: '',
  instructor: 'Dr. Sari',
  categoryId: zeta.id,
  isPurchasable: true,
  price: '12.5',
  currency: 'USD',
  // No end: the API's latest date-time (the seed's open courses have it).
  startDate: new Date('2026-11-30T17:00:00Z'),
  endDate: new Date('9999-12-31T23:59:59.999Z'),
});
await makeCourseTree(db, yodo.id, [1]);
for (const courseId of [xylo.id, yodo.id]) {
  await db.update(modules).set({ name: 'Alfa' }).where(eq(modules.courseId, courseId));
  await db.update(chapters).set({ name: 'Beta' }).where(eq(chapters.courseId, courseId));
  await db.update(quizzes).set({ name: 'Gamma' }).where(eq(quizzes.courseId, courseId));
}
await enroll(db, learner.id, xylo.id);
await completeChapter(db, learner.id, tree.modules[0]!.chapters[0]!);
await enroll(db, learner.id, yodo.id);
await issueCertificate(db, learner.id, yodo.id);
await db
  .insert(purchases)
  .values({ userId: learner.id, courseId: xylo.id, amount: '250000', status: 'paid', paidAt: new Date(now.getTime() - 86_400_000) });
await apiKeyFor(db, teacher.id, 'Xylo-7');
await apiKeyFor(db, teacher.id, 'Xylo-8');
const keyTime = new Date('2026-11-22T10:05:00Z');
await db.update(apiKeys).set({ createdAt: keyTime });
await db.update(apiKeys).set({ revokedAt: keyTime }).where(eq(apiKeys.name, 'Xylo-8'));

const cookies = {
  teacher: await sessionCookieFor(app, teacher.id),
  admin: await sessionCookieFor(app, admin.id),
  learner: await sessionCookieFor(app, learner.id),
  idle: await sessionCookieFor(app, idle.id),
};

function get(url: string, options: { session?: string; lang?: string; acceptLanguage?: string } = {}) {
  const cookie = [options.session, options.lang && `lms_lang=${options.lang}`].filter(Boolean).join('; ');
  const headers: Record<string, string> = {};
  if (cookie) headers.cookie = cookie;
  if (options.acceptLanguage !== undefined) headers['accept-language'] = options.acceptLanguage;
  return app.inject({ url, headers });
}

const langOf = (html: string) => /<html lang="([^"]+)">/.exec(html)?.[1];

t.test('Accept-Language: q-values, id/id-ID/in for Indonesian, en-* for English, nothing of ours: none', async (t) => {
  const cases: [string | undefined, 'id' | 'en' | null][] = [
    [undefined, null],
    ['', null],
    ['id', 'id'],
    ['id-ID', 'id'],
    ['in', 'id'],
    ['in-ID', 'id'],
    ['en', 'en'],
    ['en-US', 'en'],
    ['EN-gb', 'en'],
    ['fr-FR', null],
    ['fr-FR, en;q=0.8, id;q=0.9', 'id'],
    ['id;q=0.5, en-US;q=0.8', 'en'],
    [' id-ID ; q=0.7 , en ; q=0.3', 'id'],
    ['en, id', 'en'],
    ['en;q=0.9, id;q=0.9', 'en'],
    ['en;q=0, id', 'id'],
    ['en;q=0', null],
    ['fr, *;q=0.1', 'id'],
    ['en;q=1.5', null],
    ['en;q=abc, id;q=0.1', 'id'],
    ['en-US,en;q=0.9', 'en'],
    ['id-ID,id;q=0.9,en-US;q=0.8,en;q=0.7', 'id'],
    ['ms-MY, jv', null],
  ];
  for (const [header, expected] of cases) t.equal(localeFromAcceptLanguage(header), expected, JSON.stringify(header));
});

t.test('Indonesian by default, English by Accept-Language, and the cookie wins over both', async (t) => {
  const bare = await get('/dashboard', { session: cookies.learner });
  t.equal(bare.statusCode, 200);
  t.equal(langOf(bare.body), 'id', 'no header, no cookie: Indonesian');
  t.match(bare.body, '<h1>Selamat datang, Dewi Lestari</h1>');
  t.match(bare.body, '<title>Dasbor · LMS</title>');
  t.equal(bare.headers.vary, 'Accept-Language, Cookie', 'a page says what it varies by');

  for (const [acceptLanguage, expected] of [
    ['en-US,en;q=0.9', 'en'],
    ['id-ID,id;q=0.9,en-US;q=0.8,en;q=0.7', 'id'],
    ['fr-FR,fr;q=0.9', 'id'],
    ['fr-FR, en-GB;q=0.5', 'en'],
  ] as const) {
    const res = await get('/dashboard', { session: cookies.learner, acceptLanguage });
    t.equal(langOf(res.body), expected, `Accept-Language: ${acceptLanguage}`);
  }
  const english = await get('/dashboard', { session: cookies.learner, acceptLanguage: 'en-US' });
  t.match(english.body, '<h1>Welcome, Dewi Lestari</h1>');

  const chosenEnglish = await get('/dashboard', { session: cookies.learner, lang: 'en', acceptLanguage: 'id-ID' });
  t.equal(langOf(chosenEnglish.body), 'en', 'the cookie wins over Accept-Language');
  const chosenIndonesian = await get('/dashboard', { session: cookies.learner, lang: 'id', acceptLanguage: 'en-US' });
  t.equal(langOf(chosenIndonesian.body), 'id');
  const bogus = await get('/dashboard', { session: cookies.learner, lang: 'xx', acceptLanguage: 'en-US' });
  t.equal(langOf(bogus.body), 'en', 'a cookie that names no language of ours is ignored');

  for (const url of ['/sign-in', '/sign-in?error=missing_token']) {
    t.equal(langOf((await get(url)).body), 'id', `${url}: Indonesian`);
    t.equal(langOf((await get(url, { acceptLanguage: 'en' })).body), 'en', `${url}: English`);
  }
  const notFound = await get('/dashboard/nothing-here', { session: cookies.learner, acceptLanguage: 'en' });
  t.equal(notFound.statusCode, 404);
  t.equal(langOf(notFound.body), 'en', 'error pages too');
  t.equal(notFound.headers.vary, 'Accept-Language, Cookie');
  const forbidden = await get('/dashboard/api-keys', { session: cookies.learner });
  t.equal(forbidden.statusCode, 403);
  t.match(forbidden.body, '<h1>Tidak diizinkan</h1>');
  t.match(forbidden.body, 'Kunci API hanya untuk akun pengajar.', "the page's reason, in Indonesian");
  t.match((await get('/dashboard/api-keys', { session: cookies.learner, lang: 'en' })).body, 'API keys are for teacher accounts.');
});

t.test('every page has the language switch, a form that names each language in itself and returns to this page', async (t) => {
  for (const [url, session] of [
    ['/sign-in?error=sso_failed&reason=member_inactive', undefined],
    ['/dashboard', cookies.teacher],
    ['/dashboard/catalog?search=xylo&sortBy=name', cookies.learner],
    [`/dashboard/courses/${xylo.id}`, cookies.learner],
    ['/dashboard/bundles?purchase=started', cookies.learner],
    ['/dashboard/api-keys', cookies.teacher],
    ['/dashboard/nothing-here', cookies.learner],
  ] as const) {
    const html = (await get(url, { session })).body;
    const form = /<form class="language" method="post" action="\/language"[^>]*>([\s\S]*?)<\/form>/.exec(html);
    t.ok(form, `${url}: the switch`);
    t.match(form?.[1], `<input type="hidden" name="next" value="${url.replaceAll('&', '&amp;')}">`, `${url}: returns here`);
    t.match(form?.[1], '<button type="submit" name="lang" value="id" lang="id" aria-pressed="true">Bahasa Indonesia</button>');
    t.match(form?.[1], '<button type="submit" name="lang" value="en" lang="en" aria-pressed="false">English</button>');
  }
});

function switchLanguage(form: Record<string, string>, headers: Record<string, string> = { origin: ORIGIN }) {
  return app.inject({
    method: 'POST',
    url: '/language',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(form).toString(),
  });
}

t.test('the switch sets the cookie and lands back on the same page, signed in or not, without JavaScript', async (t) => {
  const res = await switchLanguage(
    { lang: 'en', next: '/dashboard/catalog?search=xylo&sortBy=name' },
    { origin: ORIGIN, cookie: cookies.learner },
  );
  t.equal(res.statusCode, 303, 'a plain form post from a signed-in page (no x-requested-with) is accepted');
  t.equal(res.headers.location, '/dashboard/catalog?search=xylo&sortBy=name');
  t.equal(res.headers['cache-control'], 'no-store');
  const cookie = res.cookies.find((c) => c.name === 'lms_lang');
  t.equal(cookie?.value, 'en');
  t.equal(cookie?.path, '/');
  t.equal(cookie?.sameSite, 'Lax');
  t.equal(cookie?.httpOnly, true);
  t.equal(cookie?.maxAge, 365 * 24 * 60 * 60, 'remembered for a year');
  t.notOk(cookie?.secure, 'not Secure on http');
  const after = await get(res.headers.location as string, { session: cookies.learner, lang: cookie!.value, acceptLanguage: 'id-ID' });
  t.equal(langOf(after.body), 'en', 'the page in the chosen language');
  t.match(after.body, '1 course found.');

  const anonymous = await switchLanguage({ lang: 'id', next: '/sign-in?error=missing_token' }, { 'sec-fetch-site': 'same-origin' });
  t.equal(anonymous.statusCode, 303, 'same-origin by Sec-Fetch-Site when there is no Origin');
  t.equal(anonymous.headers.location, '/sign-in?error=missing_token');
  t.equal(anonymous.cookies.find((c) => c.name === 'lms_lang')?.value, 'id');

  const noNext = await switchLanguage({ lang: 'en' });
  t.equal(noNext.statusCode, 303);
  t.equal(noNext.headers.location, '/dashboard');
});

t.test('the switch never sends elsewhere: foreign return targets land on /dashboard', async (t) => {
  const foreign = [
    'https://evil.example/',
    '//evil.example/dashboard',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    '/.//evil.example',
    '/dashboard/../..//evil.example',
    '/%2F%2Fevil.example',
    'javascript:alert(1)',
    'dashboard',
    '/dashboardx',
    '/api/api-keys',
    '/dashboard\r\nSet-Cookie: x=1',
    `/dashboard?${'a'.repeat(3000)}`,
  ];
  for (const next of foreign) {
    t.equal(returnPath(next), '/dashboard', JSON.stringify(next));
    const res = await switchLanguage({ lang: 'en', next });
    t.equal(res.statusCode, 303);
    t.equal(res.headers.location, '/dashboard', `over HTTP: ${JSON.stringify(next)}`);
    t.notOk(res.headers['set-cookie']?.includes('x=1'));
  }
  t.equal(returnPath('/dashboard/courses/7'), '/dashboard/courses/7');
  t.equal(returnPath('/dashboard?x=%2F%2Fevil'), '/dashboard?x=%2F%2Fevil', 'a query that names a host is only a query');
  t.equal(returnPath('/sign-in?error=invalid_token&reason=x'), '/sign-in?error=invalid_token&reason=x');
  t.equal(returnPath('/dashboard/./catalog'), '/dashboard/catalog', 'normalised');
});

t.test('the switch from another site is refused and sets nothing; a language it does not know is a 400', async (t) => {
  const foreignHeaders: Record<string, string>[] = [
    { origin: 'https://evil.example' },
    {},
    { 'sec-fetch-site': 'cross-site' },
    { origin: 'null' },
  ];
  for (const headers of foreignHeaders) {
    const res = await switchLanguage({ lang: 'en', next: '/dashboard' }, headers);
    t.equal(res.statusCode, 403, JSON.stringify(headers));
    t.equal(res.headers['set-cookie'], undefined, 'no cookie');
  }
  const unknown = await switchLanguage({ lang: 'fr', next: '/dashboard' });
  t.equal(unknown.statusCode, 400);
  t.equal(unknown.headers['set-cookie'], undefined);
  const get = await app.inject({ url: '/language?lang=en&next=/dashboard' });
  t.equal(get.statusCode, 404, 'no GET: a link, an image or a prefetch cannot switch it');
  const doc = (await app.inject('/docs/json')).json() as { paths: Record<string, unknown> };
  t.notOk(doc.paths['/language'], 'a page route: not in the API description');
  t.notOk(doc.paths['/sign-in']);
});

t.test('on https the cookie is Secure', async (t) => {
  const { app: secureApp } = await buildTestApp(t, { config: { PUBLIC_URL: 'https://lms.example' } });
  const res = await secureApp.inject({
    method: 'POST',
    url: '/language',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://lms.example' },
    payload: 'lang=en&next=%2Fdashboard',
  });
  t.equal(res.statusCode, 303);
  t.equal(res.cookies.find((c) => c.name === 'lms_lang')?.secure, true);
});

t.test('rupiah, other currencies, percentages, dates and plurals are written for each locale', async (t) => {
  const teacherId = (await get('/dashboard', { session: cookies.teacher })).body;
  const teacherEn = (await get('/dashboard', { session: cookies.teacher, lang: 'en' })).body;
  t.match(teacherId, /<span class="value">Rp\u00a0250\.000<\/span><span class="label">Pendapatan 30 hari terakhir/, 'rupiah, no decimals');
  t.match(teacherEn, /<span class="value">IDR\u00a0250,000<\/span><span class="label">Revenue, last 30 days/);
  t.match(teacherId, 'Zeta: 16,67%', 'a percentage with a decimal comma');
  t.match(teacherEn, 'Zeta: 16.67%');

  const courseId = (await get(`/dashboard/courses/${xylo.id}`, { session: cookies.learner })).body;
  const courseEn = (await get(`/dashboard/courses/${xylo.id}`, { session: cookies.learner, lang: 'en' })).body;
  t.match(courseId, /<dt>Harga<\/dt><dd><span class="amount">Rp\u00a0350\.000<\/span><\/dd>/);
  t.match(courseEn, /<dt>Price<\/dt><dd><span class="amount">IDR\u00a0350,000<\/span><\/dd>/);
  t.match(courseId, /<dt>Tanggal<\/dt><dd>1\s*–\s*20 Desember 2026<\/dd>/, 'the course dates as a range, in Jakarta');
  t.match(courseEn, /<dt>Dates<\/dt><dd>1\s*–\s*20 December 2026<\/dd>/);
  // The credit from the accreditation in force (makeCourse records one for its nilaiKum), in the scheme's unit.
  t.match(
    courseId,
    /<dt>Kredit<\/dt><dd><strong>2,5 KUM<\/strong> · KUM \(Kemendikbudristek: angka kredit dosen \(PAK\)\), No\. SK-TEST-001<\/dd>/,
  );
  t.match(
    courseEn,
    /<dt>Credit<\/dt><dd><strong>2.5 KUM<\/strong> · KUM \(Kemendikbudristek: angka kredit dosen \(PAK\)\), No\. SK-TEST-001<\/dd>/,
  );
  // An accreditation that has ended gives no credit now: not shown.
  await db.insert(courseAccreditations).values({
    courseId: yodo.id,
    scheme: 'KUM',
    reference: 'SK-LAMA-2020',
    validFrom: new Date('2020-01-01T00:00:00Z'),
    validUntil: new Date('2021-01-01T00:00:00Z'),
    value: 3,
  });
  const openId = (await get(`/dashboard/courses/${yodo.id}`, { session: cookies.learner })).body;
  const openEn = (await get(`/dashboard/courses/${yodo.id}`, { session: cookies.learner, lang: 'en' })).body;
  t.match(openId, /<dt>Tanggal<\/dt><dd>Mulai 1 Desember 2026<\/dd>/, 'a course without an end: from its start, never "10000"');
  t.match(openEn, /<dt>Dates<\/dt><dd>From 1 December 2026<\/dd>/);
  t.notMatch(openEn, '10000');
  t.match(
    openId,
    /<dt>Kredit<\/dt><dd>Belum terakreditasi: sertifikatnya tidak memberi kredit<\/dd>/,
    'no accreditation: no credit, said so',
  );
  t.match(openEn, /<dt>Credit<\/dt><dd>Not accredited: its certificate earns no credit<\/dd>/);
  t.notMatch(openEn, 'SK-LAMA-2020', 'an ended accreditation is not shown');
  t.match(courseId, '2 bab');
  t.match(courseEn, '2 chapters');
  t.match(courseId, 'Kuis: Gamma (1 soal)');
  t.match(courseEn, 'Quiz: Gamma (1 question)', 'the singular');
  // The final exam's pass mark is the course's minPassingScore (70 here), not the quiz row's 75.
  t.match(courseId, 'Ujian akhir: Gamma · 1 soal · nilai lulus 70');

  const usdId = (await get(`/dashboard/courses/${yodo.id}`, { session: cookies.learner })).body;
  const usdEn = (await get(`/dashboard/courses/${yodo.id}`, { session: cookies.learner, lang: 'en' })).body;
  t.match(usdId, '<dt>Harga</dt><dd><span class="amount">US$12,50</span></dd>', 'another currency with its own decimals');
  t.match(usdEn, '<dt>Price</dt><dd><span class="amount">US$12.50</span></dd>');
  t.match(usdId, '<dt>Tanggal</dt><dd>', 'a course whose dates are its creation time');

  const catalogId = (await get('/dashboard/catalog', { session: cookies.learner })).body;
  const catalogEn = (await get('/dashboard/catalog', { session: cookies.learner, lang: 'en' })).body;
  t.match(catalogId, '2 kursus ditemukan.');
  t.match(catalogEn, '2 courses found.');
  t.match(catalogId, '1 peserta');
  t.match(catalogEn, '1 student ·', 'one student');
  t.match(catalogEn, '2 modules ·');
  t.match(catalogEn, '1 module ·', 'one module');
  const ignoredId = (await get('/dashboard/catalog?sortBy=bogus&page=0', { session: cookies.learner })).body;
  t.match(ignoredId, 'Nilai yang tidak valid diabaikan untuk: urutan dan halaman.', 'a list, joined the Indonesian way');
  const ignoredEn = (await get('/dashboard/catalog?sortBy=bogus&page=0', { session: cookies.learner, lang: 'en' })).body;
  t.match(ignoredEn, 'Ignored an invalid value for: sort order and page.');

  const keysId = (await get('/dashboard/api-keys', { session: cookies.teacher })).body;
  const keysEn = (await get('/dashboard/api-keys', { session: cookies.teacher, lang: 'en' })).body;
  t.match(keysId, '<td data-label="Dibuat">22 Nov 2026, 17.05 WIB</td>', 'a moment in Western Indonesian Time, named');
  t.match(keysEn, '<td data-label="Created">22 Nov 2026, 17:05 WIB</td>', 'English names the zone as Indonesians do (WIB), not GMT+7');
  t.match(keysId, '<span class="badge revoked">Dicabut 22 Nov 2026, 17.05 WIB</span>');
  t.match(keysEn, '<span class="badge revoked">Revoked 22 Nov 2026, 17:05 WIB</span>');
  t.match(keysId, '<td data-label="Terakhir dipakai">Belum pernah</td>');
  const data = JSON.parse(/data-script="([^"]*)"/.exec(keysId)![1]!.replaceAll('&quot;', '"').replaceAll('&amp;', '&'));
  t.same(
    { locale: data.locale, dateTimeOptions: data.dateTimeOptions },
    {
      locale: 'id-ID',
      dateTimeOptions: {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZone: 'Asia/Jakarta',
        timeZoneName: 'short',
      },
    },
    'the script formats its dates as the page does',
  );
});

t.test('PAGES_TIME_ZONE: the zone of the dates shown, checked at start', async (t) => {
  t.equal(loadConfig({}).PAGES_TIME_ZONE, 'Asia/Jakarta', 'Western Indonesian Time by default');
  t.equal(loadConfig({ PAGES_TIME_ZONE: 'asia/makassar' }).PAGES_TIME_ZONE, 'Asia/Makassar', 'written the canonical way');
  t.equal(loadConfig({ PAGES_TIME_ZONE: '' }).PAGES_TIME_ZONE, 'Asia/Jakarta', 'empty is unset');
  t.throws(() => loadConfig({ PAGES_TIME_ZONE: 'Mars/Olympus' }), ConfigError);
  t.throws(() => loadConfig({ PAGES_TIME_ZONE: 'Mars/Olympus' }), /PAGES_TIME_ZONE: not a time zone/);

  const { app: utcApp } = await buildTestApp(t, { db: testDb, config: { PAGES_TIME_ZONE: 'UTC' } });
  const cookie = await sessionCookieFor(utcApp, teacher.id);
  const keys = (await utcApp.inject({ url: '/dashboard/api-keys', headers: { cookie } })).body;
  t.match(keys, '<td data-label="Dibuat">22 Nov 2026, 10.05 UTC</td>');
  const course = (await utcApp.inject({ url: `/dashboard/courses/${xylo.id}`, headers: { cookie } })).body;
  t.match(course, /<dt>Tanggal<\/dt><dd>30 November\s*–\s*20 Desember 2026<\/dd>/, 'the days of UTC');
});

t.test('sign-in problems: every code and reason has its message in both languages', async (t) => {
  const cases: [string | undefined, string | undefined, SignInProblem | null][] = [
    [undefined, undefined, null],
    ['missing_token', undefined, 'missingToken'],
    ['sso_failed', 'missing_email', 'missingEmail'],
    ['sso_failed', 'missing_membership_id', 'missingMembershipId'],
    ['sso_failed', 'member_inactive', 'memberInactive'],
    ['sso_failed', 'email_in_use', 'emailInUse'],
    ['sso_failed', 'account_creation_failed', 'accountCreationFailed'],
    ['sso_failed', 'session_creation_failed', 'sessionCreationFailed'],
    ['sso_failed', 'temporarily_unavailable', 'temporarilyUnavailable'],
    ['sso_failed', 'something new', 'failed'],
    ['invalid_token', Reasons.expired, 'expired'],
    ['invalid_token', 'Token has already been used.', 'alreadyUsed'],
    ['invalid_token', Reasons.unsupportedIssuer('x.example'), 'unknownOrganisation'],
    ['invalid_token', Reasons.noKeyConfigured('x.example'), 'keysUnavailable'],
    ['invalid_token', Reasons.unknownKid('k1', 'x.example'), 'keysUnavailable'],
    ['invalid_token', Reasons.jwksUnavailable('x.example', 'timeout'), 'keysUnavailable'],
    ['invalid_token', Reasons.lifetime, 'tooLongLived'],
    ['invalid_token', Reasons.badSignature, 'badSignature'],
    ['invalid_token', Reasons.audience, 'wrongAudience'],
    ['invalid_token', Reasons.notThroughGateway('no gateway proof'), 'notThroughGateway'],
    ['invalid_token', Reasons.gatewayNotConfigured, 'ssoNotConfigured'],
    ['invalid_token', Reasons.malformed, 'invalid'],
  ];
  for (const [code, reason, problem] of cases) t.equal(signInProblem(code, reason), problem, `${code} ${reason}`);
  const id = translation('id', 'UTC').t.signIn.problems;
  const en = translation('en', 'UTC').t.signIn.problems;
  t.same(new Set(cases.map(([, , p]) => p).filter(Boolean)), new Set(Object.keys(id)), 'every problem is reachable');
  for (const key of Object.keys(id) as SignInProblem[]) t.not(id[key], en[key], `${key}: translated`);

  const res = await get(`/sign-in?error=invalid_token&reason=${encodeURIComponent(Reasons.expired)}`);
  t.match(res.body, 'Tautan masuk sudah kedaluwarsa');
  t.match(res.body, '<summary>Detail teknis</summary>');
  t.match(res.body, '&quot;exp&quot; claim timestamp check failed', 'the technical reason as it came');
});

t.test('the catalogs: no message left untranslated, none empty', async (t) => {
  const id = translation('id', 'UTC').t;
  const en = translation('en', 'UTC').t;
  // The same in both languages, on purpose (Indonesian accreditation papers write pre-test and post-test too;
  // "format" is Indonesian as well, and the import formats and WhatsApp are names).
  const SAME = new Set([
    'Status',
    'KUM',
    'E-mail',
    '—',
    'Pre-test',
    'Post-test',
    'Format',
    'GIFT (Moodle)',
    'Aiken',
    'CSV (Excel)',
    'WhatsApp',
  ]);
  const same: string[] = [];
  const walk = (a: unknown, b: unknown, path: string) => {
    if (typeof a === 'string') {
      t.ok(a.trim() && typeof b === 'string' && b.trim(), `${path}: a text in both`);
      if (a === b && !SAME.has(a)) same.push(path);
    } else if (a && typeof a === 'object' && !(a instanceof Function) && Object.getPrototypeOf(a) === Object.prototype) {
      for (const key of Object.keys(a)) walk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
    }
  };
  walk(id, en, 't');
  t.same(same, [], 'no Indonesian text left in English');
});

/** The words a person reads on a page: its text and its labelling attributes, outside `<code>` and other languages' labels. */
function wordsOf(html: string): string {
  return pageWords(html, { skip: ['code'], attributes: ['data-name'], scriptMessages: true }).join(' ');
}

/** Words of the English pages that Indonesian does not use (the old headings and labels, and plain English). */
const ENGLISH = (
  'Welcome Dashboard Catalog Sign Signed Skip Main glance Courses Course Completed Certificates Certificate points earned ' +
  'Your your account Name Tier Membership Platform metrics Published classes Students Enrollments Completion rate Buyers ' +
  'Revenue last days issued People Category Draft Drafts included Every Progress Chapters chapters chapter done Modules ' +
  'modules module Search Sort Newest Most Show Instructor found matches Previous Next Page Locked Unlocked Done Quiz Final ' +
  'exam question questions pass mark Price Dates None Eligible Issued keys key Create Copy Revoke Revoked Never Prefix Created ' +
  'used State Technical detail Members organisation allowed Back How Not yet the and of to you is not with in'
).split(' ');

/** Words of the Indonesian pages that English does not use. */
const INDONESIAN = (
  'Selamat datang Dasbor Katalog Kunci Keluar Masuk Kursus kursus Selesai Terkunci Terbuka Peserta peserta Sertifikat Modul ' +
  'modul bab Kuis Ujian Halaman Pengajar Kategori Pendapatan Pembeli Tingkat Cari Urutkan Tampilkan Harga Tanggal Nama Buat ' +
  'Salin Cabut Dicabut Awalan Dibuat Sebelumnya Berikutnya Ringkasan Akun Anda dan yang di ke dari untuk tidak belum Belum ' +
  'dengan ini itu atau Sedang berjalan Tidak Bahasa'
).split(' ');

t.test('no word of the other language is left on a page', async (t) => {
  const pages: [string, string | undefined, number][] = [
    ['/dashboard', cookies.learner, 200],
    ['/dashboard', cookies.idle, 200],
    ['/dashboard', cookies.teacher, 200],
    ['/dashboard', cookies.admin, 200],
    ['/dashboard/catalog', cookies.learner, 200],
    ['/dashboard/catalog?search=nothing-matches', cookies.learner, 200],
    ['/dashboard/catalog?sortBy=bogus&categoryId=x&page=0', cookies.teacher, 200],
    [`/dashboard/courses/${xylo.id}`, cookies.learner, 200],
    [`/dashboard/courses/${yodo.id}`, cookies.teacher, 200],
    ['/dashboard/api-keys', cookies.teacher, 200],
    ['/dashboard/api-keys', cookies.learner, 403],
    ['/dashboard/nothing-here', cookies.learner, 404],
    ['/sign-in', undefined, 200],
    ['/sign-in?error=missing_token', undefined, 200],
    ...(['missing_email', 'member_inactive', 'email_in_use', 'temporarily_unavailable', 'other'].map((r) => [
      `/sign-in?error=sso_failed&reason=${r}`,
      undefined,
      200,
    ]) as [string, undefined, number][]),
    ...[Reasons.expired, Reasons.lifetime, Reasons.badSignature, Reasons.notThroughGateway('x'), 'Token has already been used.'].map(
      (r) => [`/sign-in?error=invalid_token&reason=${encodeURIComponent(r)}`, undefined, 200] as [string, undefined, number],
    ),
  ];
  const check = (t: Test, words: string, forbidden: string[], label: string) => {
    const found = forbidden.filter((w) => new RegExp(`(^|[^\\p{L}])${w}($|[^\\p{L}])`, 'u').test(words));
    t.same(found, [], label);
  };
  for (const [url, session, status] of pages) {
    const id = await get(url, { session });
    t.equal(id.statusCode, status, url);
    check(t, wordsOf(id.body), ENGLISH, `${url} in Indonesian: no English word`);
    const en = await get(url, { session, lang: 'en' });
    check(t, wordsOf(en.body), INDONESIAN, `${url} in English: no Indonesian word`);
  }
});
