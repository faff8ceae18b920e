import { enrollments, purchases } from '@lms/db';
import { and, eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { makeCast, makeCourse, setTier } from './enrolment-fixtures.js';

const NOW = new Date('2026-07-01T08:00:00.000Z');
/** testConfig()'s PUBLIC_URL: what a browser sends as Origin on our own forms. */
const OWN_ORIGIN = 'http://localhost:3000';
const FORM = 'application/x-www-form-urlencoded';

t.test('enrolment pages and forms', async (t) => {
  const { app, db } = await buildTestApp(t, {
    deps: { clock: () => NOW },
    config: { BANK_TRANSFER_BANK: 'Bank Contoh', BANK_TRANSFER_ACCOUNT_NUMBER: '123-456-789' },
  });
  const cast = await makeCast(app, db.db);
  const { teacher, learner, admin } = cast;
  const page = (url: string, cookie: string, lang: 'id' | 'en' = 'id') =>
    app.inject({ method: 'GET', url, headers: { cookie: `${cookie}; lms_lang=${lang}` } });
  const post = (url: string, cookie: string, payload = '', headers: Record<string, string> = { origin: OWN_ORIGIN }) =>
    app.inject({ method: 'POST', url, headers: { cookie, 'content-type': FORM, ...headers }, payload });
  const enrolled = async (userId: string, courseId: number) =>
    (
      await db.db
        .select()
        .from(enrollments)
        .where(and(eq(enrollments.userId, userId), eq(enrollments.courseId, courseId)))
    ).length;

  await t.test('an open course: the enrol button in both languages, the form enrols, the page says so', async (t) => {
    const course = await makeCourse(db.db, teacher, { enrollmentType: 'open' });
    const id = await page(`/dashboard/courses/${course.id}`, learner.cookie, 'id');
    t.equal(id.statusCode, 200);
    t.match(id.body, `<form method="post" action="/dashboard/courses/${course.id}/enrol"><button type="submit">Daftar</button></form>`);
    t.match(id.body, 'Kursus ini terbuka');
    const en = await page(`/dashboard/courses/${course.id}`, learner.cookie, 'en');
    t.match(en.body, '<button type="submit">Enrol</button>');
    t.match(en.body, '<h2 id="enrol">Enrolment</h2>');

    // CSRF: a form post without Origin or Sec-Fetch-Site, or from another site, is refused.
    const bare = await post(`/dashboard/courses/${course.id}/enrol`, learner.cookie, '', {});
    t.equal(bare.statusCode, 403, 'no Origin: 403');
    t.match(bare.body, 'Formulir ini harus dikirim dari halaman LMS sendiri.');
    const foreign = await post(`/dashboard/courses/${course.id}/enrol`, learner.cookie, '', { origin: 'https://evil.example' });
    t.equal(foreign.statusCode, 403, 'a foreign Origin: 403');
    const crossSite = await post(`/dashboard/courses/${course.id}/enrol`, learner.cookie, '', { 'sec-fetch-site': 'cross-site' });
    t.equal(crossSite.statusCode, 403, 'Sec-Fetch-Site: cross-site: 403');
    t.equal(await enrolled(learner.id, course.id), 0, 'none of them enrolled');
    const anonymous = await app.inject({
      method: 'POST',
      url: `/dashboard/courses/${course.id}/enrol`,
      headers: { origin: OWN_ORIGIN, 'content-type': FORM },
    });
    t.equal(anonymous.statusCode, 302, 'no session: to the sign-in');

    const res = await post(`/dashboard/courses/${course.id}/enrol`, learner.cookie);
    t.equal(res.statusCode, 303);
    t.equal(res.headers.location, `/dashboard/courses/${course.id}?enrol=enrolled#enrol`);
    t.equal(await enrolled(learner.id, course.id), 1);
    const after = await page(`/dashboard/courses/${course.id}?enrol=enrolled`, learner.cookie, 'en');
    t.match(after.body, 'You are enrolled. Enjoy the course!');
    t.match(after.body, 'You have been enrolled in this course since');
    t.notMatch(after.body, `/dashboard/courses/${course.id}/enrol"`, 'no enrol form any more');
  });

  await t.test('a code course: a wrong code comes back with the error, the right one enrols', async (t) => {
    const course = await makeCourse(db.db, teacher, { enrollmentType: 'code', enrollmentCode: 'K0DE' });
    const form = await page(`/dashboard/courses/${course.id}`, cast.otherLearner.cookie);
    t.match(form.body, '<input id="enrol-code" name="code"');
    const wrong = await post(`/dashboard/courses/${course.id}/enrol`, cast.otherLearner.cookie, 'code=nope');
    t.equal(wrong.headers.location, `/dashboard/courses/${course.id}?enrol=wrong-code#enrol`);
    const shown = await page(wrong.headers.location as string, cast.otherLearner.cookie);
    t.match(shown.body, '<p class="error" role="alert">Kode pendaftaran salah.</p>');
    const right = await post(`/dashboard/courses/${course.id}/enrol`, cast.otherLearner.cookie, 'code=K0DE');
    t.equal(right.headers.location, `/dashboard/courses/${course.id}?enrol=enrolled#enrol`);
    t.equal(await enrolled(cast.otherLearner.id, course.id), 1);
  });

  await t.test("an approval course: asked on the course page, approved on the teacher's dashboard", async (t) => {
    const course = await makeCourse(db.db, teacher, { enrollmentType: 'approval', name: 'Needs approval' });
    const asked = await post(`/dashboard/courses/${course.id}/enrol`, cast.thirdLearner.cookie);
    t.equal(asked.headers.location, `/dashboard/courses/${course.id}?enrol=requested#enrol`);
    const waiting = await page(`/dashboard/courses/${course.id}`, cast.thirdLearner.cookie, 'en');
    t.match(waiting.body, 'is waiting for the teacher');

    const dashboard = await page('/dashboard', teacher.cookie, 'en');
    t.match(dashboard.body, '<h2 id="requests">Requests to join</h2>');
    t.match(dashboard.body, 'Third learner');
    const action = /action="(\/dashboard\/enrollment-requests\/\d+\/approve)"/.exec(dashboard.body)?.[1];
    t.ok(action, 'an approve button');
    const other = await post(action!, cast.otherTeacher.cookie);
    t.equal(other.statusCode, 403, "another teacher's post: 403 page");
    t.match(other.headers['content-type'], /text\/html/);
    t.match(other.body, 'Akun Anda tidak diizinkan melakukan ini.', 'the 403 page says why, in Indonesian by default');
    t.notMatch(other.body, 'teacher, an admin', 'not the English of the JSON error');
    const otherEn = await post(action!, `${cast.otherTeacher.cookie}; lms_lang=en`);
    t.match(otherEn.body, 'Your account is not allowed to do this.', 'and in English when chosen');
    const approved = await post(action!, teacher.cookie);
    t.equal(approved.statusCode, 303);
    t.equal(approved.headers.location, '/dashboard?decided=approved#requests');
    t.equal(await enrolled(cast.thirdLearner.id, course.id), 1);
    const again = await post(action!, teacher.cookie);
    t.equal(again.headers.location, '/dashboard?decided=already#requests', 'a second decision says it was decided');
    const after = await page('/dashboard?decided=approved', teacher.cookie, 'id');
    t.match(after.body, 'Permintaan disetujui');
    t.match(after.body, 'Tidak ada permintaan yang menunggu.');
  });

  await t.test('a purchasable course: buy, see the transfer instructions, the admin confirms on the dashboard', async (t) => {
    const course = await makeCourse(db.db, teacher, {
      enrollmentType: 'open',
      isPurchasable: true,
      price: '150000',
      priceNonMember: '200000',
      name: 'Paid',
    });
    const buyer = cast.otherLearner;
    await setTier(db.db, buyer.id, 'umum');
    const offer = await page(`/dashboard/courses/${course.id}`, buyer.cookie, 'id');
    t.match(offer.body, /Harga untuk Anda: Rp\s?200\.000\./);
    t.match(offer.body, `action="/dashboard/courses/${course.id}/purchase"`);
    const enrolTry = await post(`/dashboard/courses/${course.id}/enrol`, buyer.cookie);
    t.equal(
      enrolTry.headers.location,
      `/dashboard/courses/${course.id}?enrol=payment-required#enrol`,
      'enrolling unpaid says it must be bought',
    );
    t.equal(await enrolled(buyer.id, course.id), 0);

    t.equal((await post(`/dashboard/courses/${course.id}/purchase`, buyer.cookie, '', {})).statusCode, 403, 'CSRF on the buy form');
    const bought = await post(`/dashboard/courses/${course.id}/purchase`, buyer.cookie);
    t.equal(bought.headers.location, `/dashboard/courses/${course.id}?enrol=purchase-started#enrol`);
    const [purchase] = await db.db.select().from(purchases).where(eq(purchases.userId, buyer.id));
    t.equal(purchase!.status, 'pending');
    const instructions = await page(`/dashboard/courses/${course.id}`, buyer.cookie, 'en');
    t.match(instructions.body, `<code>${purchase!.reference}</code>`);
    t.match(instructions.body, '<dt>Bank</dt><dd>Bank Contoh</dd>');
    t.match(
      instructions.body,
      '<dd><code>123-456-789</code></dd>',
      'the deployment-wide account (BANK_TRANSFER_*) when the institution has none',
    );
    t.notMatch(instructions.body, '/purchase"', 'no second buy button while pending');

    const learnerDashboard = await page('/dashboard', buyer.cookie, 'en');
    t.notMatch(learnerDashboard.body, '/confirm"', 'a learner has no confirm button');
    const teacherDashboard = await page('/dashboard', teacher.cookie, 'en');
    t.notMatch(teacherDashboard.body, 'id="transfers"', 'a teacher has no transfer list');
    const adminDashboard = await page('/dashboard', admin.cookie, 'en');
    t.match(adminDashboard.body, '<h2 id="transfers">Transfers waiting for confirmation</h2>');
    t.match(adminDashboard.body, `<code>${purchase!.reference}</code>`);
    const confirmAction = `/dashboard/purchases/${purchase!.id}/confirm`;
    t.match(adminDashboard.body, `href="${confirmAction}"`, 'a link to the confirmation step');
    t.match((await page(confirmAction, admin.cookie, 'en')).body, `action="${confirmAction}"`, 'which posts the confirmation');

    t.equal((await post(confirmAction, buyer.cookie)).statusCode, 403, 'the buyer posting the confirm form: 403');
    t.equal((await post(confirmAction, teacher.cookie)).statusCode, 403, 'a teacher: 403');
    t.equal((await post(confirmAction, admin.cookie, '', { origin: 'https://evil.example' })).statusCode, 403, 'CSRF on the confirm form');
    t.equal(await enrolled(buyer.id, course.id), 0);
    const confirmed = await post(confirmAction, admin.cookie);
    t.equal(confirmed.headers.location, `/dashboard/transfers?confirmed=done&undo=${purchase!.id}`);
    t.equal(await enrolled(buyer.id, course.id), 1, 'confirmed: enrolled');
    t.equal((await post(confirmAction, admin.cookie)).headers.location, '/dashboard/transfers?confirmed=already', 'twice: already');
    const done = await page('/dashboard/transfers?confirmed=done', admin.cookie, 'id');
    t.match(done.body, 'Pembayaran dikonfirmasi');
    t.match(done.body, 'Tidak ada transfer yang menunggu konfirmasi.');
  });
});
