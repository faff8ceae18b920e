import { sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeCourse } from '../../helpers/catalog-fixtures.js';
import { makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { pageWords } from '../../helpers/page-words.js';
import { type Answer, browserOf } from './helpers.js';

// Every form of the studio, sent wrong in Bahasa Indonesia and in English, through the real routes
// with a real session against the test database: each problem is said beside its field (its own
// error, the input's aria-describedby, what was typed kept), in the page's language. An Indonesian
// page fails on any English sentence (a list of English function words), and a page in either
// language on any internal name (camelCase, snake_case, `[n]` paths) in what a person reads.

/** What a person reads: text and labelling attributes, without tags, typed values (<textarea>, <pre>) or other languages' labels. */
function visibleText(page: string): string {
  return pageWords(page, { skip: ['script', 'style', 'textarea', 'pre', 'code'] })
    .join(' ')
    .replace(/\s+/g, ' ');
}

/** English on an Indonesian page: function words and the schema's own words. */
const ENGLISH = [
  ' the ',
  ' must ',
  ' expected ',
  'Invalid',
  ' received ',
  ' should ',
  ' needs ',
  ' is not ',
  ' at least ',
  ' at most ',
  ' with ',
  ' option ',
];
/** An internal name: camelCase, snake_case, a path with an index. */
const INTERNAL = [/\b[a-z]+[A-Z][A-Za-z]*\b/, /\b[a-z]+_[a-z_]+\b/, /\w\[\d+\]/];

/** The data the test itself typed, shown back on the pages (course and quiz names), which the checks skip. */
const TYPED = ['Audit Forensik', 'Kuis pengantar', 'Pengantar'];

let walked = 0;
let badInputs = 0;

function checkWords(t: Test, lang: 'id' | 'en', what: string, answer: Answer) {
  walked += 1;
  let text = visibleText(answer.body);
  for (const typed of TYPED) text = text.replaceAll(typed, '');
  if (lang === 'id') {
    const english = ENGLISH.filter((w) => text.includes(w));
    t.same(english, [], `${what} (id): no English${english.length > 0 ? `: ${text}` : ''}`);
  }
  const internal = INTERNAL.flatMap((re) => text.match(re)?.[0] ?? []);
  t.same(internal, [], `${what} (${lang}): no internal name${internal.length > 0 ? ` ${internal.join(', ')}` : ''}`);
}

/** The problem of a field of the studio's `field()`: its own error, pointed at by the input, what was typed kept. */
function besideField(t: Test, answer: Answer, name: string, typed: string | null, what: string) {
  badInputs += 1;
  const error = answer.body.match(new RegExp(`id="f-${name}-error">([^<]*)<`))?.[1];
  t.ok(error, `${what}: ${name} has its own error`);
  t.match(
    answer.body,
    new RegExp(
      `name="${name}"[^>]*aria-describedby="f-${name}-error"|aria-describedby="f-${name}-error"[^>]*name="${name}"|id="f-${name}" name="${name}"[^>]*aria-describedby="f-${name}-error"`,
    ),
    `${what}: ${name} points at it`,
  );
  if (typed !== null) {
    const shown =
      answer.body.match(new RegExp(`name="${name}"[^>]*value="([^"]*)"`))?.[1] ??
      answer.body.match(new RegExp(`name="${name}"[^>]*>([^<]*)</textarea>`))?.[1];
    t.equal(shown, typed.replaceAll('"', '&quot;'), `${what}: ${name} keeps what was typed`);
  }
  return error ?? '';
}

t.test('every studio form, sent wrong, answers in the page language beside the field', async (t) => {
  const { app, db } = await buildTestApp(t);
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const browsers = { id: await browserOf(app, teacher.id, 'id'), en: await browserOf(app, teacher.id, 'en') };
  const b = browsers.id;

  const created = await b.post('/dashboard/studio/new', { name: 'Audit Forensik' });
  const courseId = Number(created.location?.match(/courses\/(\d+)$/)?.[1]);
  await b.post(`/dashboard/studio/courses/${courseId}/modules`, { name: 'Dasar' });
  const moduleId = Number((await db.db.execute(sql`select id from modules where course_id = ${courseId}`)).rows[0]?.id);
  await b.post(`/dashboard/studio/modules/${moduleId}/chapters`, { name: 'Pengantar' });
  const chapterId = Number((await db.db.execute(sql`select id from chapters where course_id = ${courseId}`)).rows[0]?.id);
  t.ok(courseId > 0 && moduleId > 0 && chapterId > 0, 'a course with a module and a chapter');

  const settingsOf = async (lang: 'id' | 'en') => {
    const page = await browsers[lang].get(`/dashboard/studio/courses/${courseId}/settings`);
    const inputs = [...page.body.matchAll(/name="([A-Za-z]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1], m[2].replaceAll('&quot;', '"')]);
    const selects = [...page.body.matchAll(/<select[^>]*name="([A-Za-z]+)"[^>]*>(.*?)<\/select>/gs)].map((m) => [
      m[1],
      m[2].match(/<option value="([^"]*)" selected>/)?.[1] ?? '',
    ]);
    return Object.fromEntries([...inputs, ...selects]);
  };

  for (const lang of ['id', 'en'] as const) {
    const br = browsers[lang];
    const expect = {
      id: { required: 'wajib diisi', amount: 'titik memisahkan ribuan', ambiguous: 'tidak jelas', number: 'angka' },
      en: { required: 'required', amount: 'a dot separates thousands', ambiguous: 'unclear', number: 'number' },
    }[lang];

    // New course.
    const blank = await br.post('/dashboard/studio/new', { name: '' });
    t.equal(blank.status, 422);
    t.match(besideField(t, blank, 'name', '', `new course ${lang}`), expect.required);
    checkWords(t, lang, 'new course', blank);

    // Settings: everything wrong at once, each said beside its field.
    const base = await settingsOf(lang);
    const wrong = {
      name: '',
      categoryId: 'akuntansi',
      price: '350,000',
      priceNonMember: 'lima ribu',
      priceMahasiswa: 'Rp 1.25.000',
      currency: 'rupiah',
      startDate: '31/12/2026',
      endDate: '2026-13-01',
      minPassingScore: '150',
      certificateValidMonths: '1,5',
      creditScheme: 'skp baru',
      postTestMinScore: 'tinggi',
      enrollmentCode: 'x'.repeat(70),
      evaluationItems: 'materi | Materi relevan',
      tuitionAndFinancing: 'tanpa titik dua',
    };
    const settings = await br.post(`/dashboard/studio/courses/${courseId}/settings`, { ...base, ...wrong, isPurchasable: 'on' });
    t.equal(settings.status, 422, `settings ${lang}: refused`);
    const said: Record<string, string> = {};
    // The category is a picker: a crafted value is refused beside it, but a select keeps no typed text.
    for (const [name, typed] of Object.entries(wrong))
      said[name] = besideField(t, settings, name, name === 'categoryId' ? null : typed, `settings ${lang}`);
    t.match(said.name, expect.required);
    t.match(said.price, expect.ambiguous, '"350,000" is ambiguous');
    t.match(said.priceNonMember, expect.amount);
    t.match(said.priceMahasiswa, expect.amount, 'broken thousands groups');
    t.match(said.categoryId, expect.number);
    t.match(said.startDate, lang === 'id' ? 'TTTT-BB-HH' : 'YYYY-MM-DD');
    const order = await br.post(`/dashboard/studio/courses/${courseId}/settings`, {
      ...base,
      startDate: '2026-12-31',
      endDate: '2026-01-01',
    });
    t.equal(order.status, 422);
    t.match(
      besideField(t, order, 'endDate', '2026-01-01', `settings ${lang}`),
      lang === 'id' ? 'sebelum tanggal mulai' : 'before the start date',
    );
    checkWords(t, lang, 'settings dates', order);
    checkWords(t, lang, 'settings', settings);

    // Outline names.
    for (const [url, what] of [
      [`/dashboard/studio/courses/${courseId}/modules`, 'module'],
      [`/dashboard/studio/modules/${moduleId}/chapters`, `chapter-${moduleId}`],
      [`/dashboard/studio/modules/${moduleId}/rename`, `rename-${moduleId}`],
    ] as const) {
      const outline = await br.post(url, { name: ' ' });
      t.equal(outline.status, 422, `outline ${what} ${lang}: ${outline.body.slice(0, 300)}`);
      badInputs += 1;
      t.match(outline.body, new RegExp(`aria-describedby="e-${what}"`), `outline ${what} ${lang}: the input points at its problem`);
      t.match(outline.body, new RegExp(`id="e-${what}">[^<]*${expect.required}`, 'i'), `outline ${what} ${lang}: said`);
      checkWords(t, lang, `outline ${what}`, outline);
    }

    // Chapter.
    const version = (await br.get(`/dashboard/studio/chapters/${chapterId}`)).body.match(/name="version" value="(\d+)"/)?.[1] ?? '0';
    const noName = await br.post(`/dashboard/studio/chapters/${chapterId}`, { action: 'save', version, name: '', content: 'Isi' });
    t.equal(noName.status, 422);
    t.match(besideField(t, noName, 'name', '', `chapter ${lang}`), expect.required);
    checkWords(t, lang, 'chapter name', noName);
    const minutes = await br.post(`/dashboard/studio/chapters/${chapterId}`, {
      action: 'save',
      version,
      name: 'Pengantar',
      content: 'Isi',
      expectedMinutes: '0',
    });
    besideField(t, minutes, 'expectedMinutes', '0', `chapter ${lang}`);
    checkWords(t, lang, 'chapter minutes', minutes);
    const video = await br.post(`/dashboard/studio/chapters/${chapterId}`, {
      action: 'video',
      version,
      name: 'Pengantar',
      content: 'Isi',
      videoUrl: 'https://example.com/v',
    });
    besideField(t, video, 'videoUrl', 'https://example.com/v', `chapter ${lang}`);
    checkWords(t, lang, 'chapter video', video);

    // Quiz: every kind of question wrong, and the quiz's own numbers.
    const quiz = {
      version: '0',
      count: '6',
      name: '',
      description: '',
      minimumScore: 'tujuh puluh',
      timeLimit: '-1',
      maxAttempts: '0',
      q0_type: 'multiple_choice',
      q0_text: 'Apa itu audit?',
      q0_options: 'Pemeriksaan\nPemasaran',
      q0_right: '',
      q0_points: '1',
      q1_type: 'true_false',
      q1_text: 'Bumi bulat?',
      q1_options: 'Benar\nSalah\nMungkin',
      q1_right: '1',
      q1_points: '1',
      q2_type: 'short_answer',
      q2_text: 'Singkatan CFE?',
      q2_right: '',
      q2_points: '1',
      q3_type: 'multiple_choice',
      q3_text: 'Satu pilihan saja?',
      q3_options: 'Ya',
      q3_right: '1',
      q3_points: '1',
      q4_type: 'multiple_answer',
      q4_text: 'Pilih semua',
      q4_options: 'A\nB',
      q4_right: '7',
      q4_points: 'banyak',
      q5_type: 'multiple_answer',
      q5_text: 'Tanpa jawaban',
      q5_options: 'A\nB',
      q5_right: '',
      q5_points: '1',
    };
    const quizPage = await br.post(`/dashboard/studio/quizzes/chapter/${chapterId}`, quiz);
    t.equal(quizPage.status, 422, `quiz ${lang}: refused`);
    for (const [name, typed] of [
      ['name', ''],
      ['minimumScore', 'tujuh puluh'],
      ['timeLimit', '-1'],
      ['maxAttempts', '0'],
      ['q0_right', ''],
      ['q1_options', null],
      ['q2_right', ''],
      ['q3_options', null],
      ['q4_right', '7'],
      ['q5_right', ''],
    ] as const)
      besideField(t, quizPage, name, typed, `quiz ${lang}`);
    checkWords(t, lang, 'quiz', quizPage);

    // Pictures: a file that is not a picture.
    const notPicture = await br.upload(`/dashboard/studio/courses/${courseId}/pictures`, {
      name: 'x.png',
      type: 'image/png',
      bytes: Buffer.from('bukan gambar'),
    });
    t.equal(notPicture.status, 422);
    badInputs += 1;
    checkWords(t, lang, 'pictures', notPicture);

    // The publish checklist refusing (no quiz answer keys yet, no event code), and the history.
    t.equal((await br.post(`/dashboard/studio/courses/${courseId}/publish`)).status, 303);
    const refused = await br.get(`/dashboard/studio/courses/${courseId}?published=0`);
    t.equal(refused.status, 409);
    badInputs += 1;
    checkWords(t, lang, 'publish checklist', refused);
    checkWords(t, lang, 'history', await br.get(`/dashboard/studio/courses/${courseId}/history`));
  }

  await t.test('prices typed the Indonesian way are read as Indonesians mean them, and shown so', async (t) => {
    for (const [typed, stored] of [
      ['350.000', '350000.00'],
      ['Rp 350.000', '350000.00'],
      ['Rp350.000,00', '350000.00'],
      ['350000', '350000.00'],
      ['1,250,000', '1250000.00'],
      ['99,50', '99.50'],
    ] as const) {
      const base = await settingsOf('id');
      const saved = await b.post(`/dashboard/studio/courses/${courseId}/settings`, { ...base, isPurchasable: 'on', price: typed });
      t.equal(saved.status, 303, `"${typed}" is accepted`);
      const row = (await db.db.execute(sql`select price::text as price from courses where id = ${courseId}`)).rows[0];
      t.equal(row?.price, stored, `"${typed}" is ${stored}`);
    }
    await b.post(`/dashboard/studio/courses/${courseId}/settings`, { ...(await settingsOf('id')), isPurchasable: 'on', price: '350.000' });
    t.equal((await settingsOf('id')).price, '350.000', 'the form shows the price the Indonesian way');
    t.equal((await settingsOf('en')).price, '350000', 'and plainly in English');
    const overview = await b.get(`/dashboard/studio/courses/${courseId}`);
    t.match(visibleText(overview.body), /Dijual seharga Rp\s350\.000\b/, 'the checklist writes the amount in rupiah');
    t.notMatch(overview.body, '350000.00', 'never as the stored decimal');
    const history = await b.get(`/dashboard/studio/courses/${courseId}/history`);
    t.match(visibleText(history.body), 'Harga anggota diubah', 'the history names the field in words');
    const chapter = await b.get(`/dashboard/studio/chapters/${chapterId}`);
    const v = chapter.body.match(/name="version" value="(\d+)"/)?.[1] ?? '0';
    t.equal(
      (await b.post(`/dashboard/studio/chapters/${chapterId}`, { action: 'save', version: v, name: 'Pengantar', content: 'Isi baru' }))
        .status,
      303,
    );
    const after = await b.get(`/dashboard/studio/courses/${courseId}/history`);
    t.match(visibleText(after.body), 'Bab 1: isi diubah', 'a chapter change is said with its number');
    t.match(visibleText((await browsers.en.get(`/dashboard/studio/courses/${courseId}/history`)).body), 'Chapter 1: content changed');
  });

  await t.test("a learner's enrolment form and the sign-in page, sent wrong", async (t) => {
    const course = await makeCourse(db.db, {
      institutionId,
      teacherId: teacher.id,
      enrollmentType: 'code',
      enrollmentCode: 'K0DE',
      name: 'Audit Forensik',
      isPurchasable: false,
      price: '0',
    });
    const learner = await makeUser(db.db, { role: 'student' });
    for (const lang of ['id', 'en'] as const) {
      const lb = await browserOf(app, learner.id, lang);
      for (const code of ['salah', '']) {
        const sent = await lb.post(`/dashboard/courses/${course.id}/enrol`, { code });
        t.equal(sent.status, 303);
        badInputs += 1;
        const shown = await lb.get(sent.location as string);
        t.match(
          shown.body,
          'class="error" role="alert"',
          `enrol "${code}" ${lang}: the problem is said (${sent.location} ${shown.status})`,
        );
        checkWords(t, lang, `enrol "${code}"`, shown);
      }
      for (const error of ['missing_token', 'invalid_token', 'sso_failed']) {
        const signIn = await app.inject({ method: 'GET', url: `/sign-in?error=${error}`, headers: { cookie: `lms_lang=${lang}` } });
        badInputs += 1;
        checkWords(t, lang, `sign-in ${error}`, { status: signIn.statusCode, body: signIn.body, location: undefined, headers: {} });
      }
    }
  });

  t.comment(`walked ${walked} pages of forms with ${badInputs} bad inputs`);
  t.ok(badInputs >= 80, `${badInputs} bad inputs walked`);
});
