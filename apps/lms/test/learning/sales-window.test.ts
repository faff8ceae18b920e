import { enrollments, purchases } from '@lms/db';
import { and, eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { asSession, makeBundle, makeCast, makeCourse, setTier } from './enrolment-fixtures.js';

// What a person is shown is what they are charged (the tier price, one rule: tier-prices.ts), and
// a course is not sold after its end date, alone or inside a bundle.

const NOW = new Date('2026-11-01T08:00:00.000Z');
const OWN_ORIGIN = 'http://localhost:3000';
const FORM = 'application/x-www-form-urlencoded';

t.test('tier prices and the end of sales', async (t) => {
  const { app, db } = await buildTestApp(t, {
    deps: { clock: () => NOW },
    config: { BANK_TRANSFER_BANK: 'Bank Contoh', BANK_TRANSFER_ACCOUNT_NUMBER: '123-456-789' },
  });
  const cast = await makeCast(app, db.db);
  const { teacher } = cast;
  const page = (url: string, cookie: string, lang: 'id' | 'en' = 'id') =>
    app.inject({ method: 'GET', url, headers: { cookie: `${cookie}; lms_lang=${lang}` } });
  const post = (url: string, cookie: string) =>
    app.inject({ method: 'POST', url, headers: { cookie, 'content-type': FORM, origin: OWN_ORIGIN }, payload: '' });
  const api = (url: string, cookie: string, body: unknown) =>
    app.inject({
      method: 'POST',
      url,
      headers: { ...asSession(cookie), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const enrolled = async (userId: string, courseId: number) =>
    (
      await db.db
        .select()
        .from(enrollments)
        .where(and(eq(enrollments.userId, userId), eq(enrollments.courseId, courseId)))
    ).length;

  await t.test('each tier is shown, on the catalog and the course page, the price it is charged', async (t) => {
    const course = await makeCourse(db.db, teacher, {
      name: 'Harga Bertingkat',
      isPurchasable: true,
      price: '300000',
      priceNonMember: '400000',
      priceMahasiswa: '150000',
    });
    const cases = [
      ['umum', cast.learner, /Rp\s?400\.000/, /IDR\s?400,000/, '400000.00'],
      ['anggota', cast.otherLearner, /Rp\s?300\.000/, /IDR\s?300,000/, '300000.00'],
      ['mahasiswa', cast.thirdLearner, /Rp\s?150\.000/, /IDR\s?150,000/, '150000.00'],
    ] as const;
    for (const [tier, who, idPrice, enPrice, charged] of cases) {
      await setTier(db.db, who.id, tier);
      const catalog = await page(`/dashboard/catalog?search=${encodeURIComponent('Harga Bertingkat')}`, who.cookie);
      t.equal(catalog.statusCode, 200);
      t.match(catalog.body, idPrice, `${tier}: the catalog card`);
      const coursePage = await page(`/dashboard/courses/${course.id}`, who.cookie, 'en');
      // The amount is in its own no-wrap span (view/html.ts amount()): the row's text without its tags.
      const priceRow = (/<dt>Price<\/dt><dd>(.*?)<\/dd>/.exec(coursePage.body)?.[1] ?? '').replace(/<[^>]*>/g, '');
      t.match(priceRow, enPrice, `${tier}: "Price" on the course page`);
      t.match(coursePage.body, new RegExp(`Your price: ${enPrice.source}`), `${tier}: "Your price"`);
      const others = cases.filter(([other]) => other !== tier).map(([, , , p]) => p);
      for (const other of others) t.notMatch(catalog.body.replace(/<form[\s\S]*?<\/form>/, ''), other, `${tier}: no other tier's price`);
      const started = await api('/api/learning/purchases', who.cookie, { courseId: course.id });
      t.equal(started.statusCode, 201);
      t.equal(started.json().purchase.amount, charged, `${tier}: charged the price shown`);
      const instructions = await page(`/dashboard/courses/${course.id}`, who.cookie, 'en');
      t.match(instructions.body, enPrice, `${tier}: the transfer says the same amount`);
    }
  });

  await t.test('an ended course: no buy, no enrol, on the page or through the API', async (t) => {
    const ended = await makeCourse(db.db, teacher, {
      name: 'Sudah Berakhir',
      isPurchasable: true,
      price: '100000',
      startDate: new Date('2026-09-01T00:00:00Z'),
      endDate: new Date('2026-10-26T10:00:00Z'),
    });
    const endedFree = await makeCourse(db.db, teacher, { name: 'Gratis Berakhir', endDate: new Date('2026-10-15T00:00:00Z') });
    const running = await makeCourse(db.db, teacher, { name: 'Masih Jalan', endDate: new Date('2026-12-31T00:00:00Z') });
    const buyer = cast.learner;
    for (const course of [ended, endedFree]) {
      const id = await page(`/dashboard/courses/${course.id}`, buyer.cookie, 'id');
      t.equal(id.statusCode, 200);
      t.match(id.body, 'Kursus ini sudah berakhir pada', 'the page says it ended (id)');
      t.notMatch(id.body, `action="/dashboard/courses/${course.id}/purchase"`, 'no buy form');
      t.notMatch(id.body, `action="/dashboard/courses/${course.id}/enrol"`, 'no enrol form');
      const en = await page(`/dashboard/courses/${course.id}`, buyer.cookie, 'en');
      t.match(en.body, /This course ended on \d+ October 2026: it takes no more enrolments or purchases\./);
    }
    const buy = await api('/api/learning/purchases', buyer.cookie, { courseId: ended.id });
    t.equal(buy.statusCode, 409);
    t.same(buy.json(), { success: false, error: 'This course ended on 2026-10-26: it takes no more enrolments or purchases' });
    const enrol = await api(`/api/learning/courses/${endedFree.id}/enrollment`, buyer.cookie, {});
    t.equal(enrol.statusCode, 409);
    t.equal(enrol.json().success, false);
    t.match(enrol.json().error, 'ended on 2026-10-15');
    const form = await post(`/dashboard/courses/${endedFree.id}/enrol`, buyer.cookie);
    t.not(form.statusCode, 500, 'the form does not break');
    t.equal(await enrolled(buyer.id, endedFree.id), 0, 'not enrolled by the form either');
    t.equal((await db.db.select().from(purchases).where(eq(purchases.courseId, ended.id))).length, 0, 'no purchase row');

    const open = await api(`/api/learning/courses/${running.id}/enrollment`, buyer.cookie, {});
    t.equal(open.statusCode, 201, 'a course that has not ended yet still enrols');

    // Inside a bundle: the bundle says which course ended and is not sold.
    const other = await makeCourse(db.db, teacher, { name: 'Teman Paket', isPurchasable: true, price: '50000' });
    const bundle = await makeBundle(db.db, other.id, ended.id, { name: 'Paket Berakhir', price: '120000' });
    const bundles = await page('/dashboard/bundles', buyer.cookie, 'en');
    t.match(bundles.body, /The course Sudah Berakhir ended on 26 October 2026, so this bundle is no longer sold\./);
    t.notMatch(bundles.body, `action="/dashboard/bundles/${bundle.id}/purchase"`, 'no buy form on the bundle');
    const bundleBuy = await api('/api/learning/purchases', buyer.cookie, { bundleId: bundle.id });
    t.equal(bundleBuy.statusCode, 409);
    t.same(bundleBuy.json(), {
      success: false,
      error: 'The course "Sudah Berakhir" ended on 2026-10-26: it takes no more enrolments or purchases',
    });
    const bundleForm = await post(`/dashboard/bundles/${bundle.id}/purchase`, buyer.cookie);
    t.not(bundleForm.statusCode, 500);
    t.equal((await db.db.select().from(purchases).where(eq(purchases.bundleId, bundle.id))).length, 0, 'no bundle purchase row');
  });

  await t.test('English pages name the Indonesian zone (WIB), not GMT+7', async (t) => {
    const course = await makeCourse(db.db, teacher, { name: 'Zona', isPurchasable: true, price: '10000' });
    // A buyer with nothing else waiting (one who never paid has one purchase waiting at a time).
    const user = await makeUser(db.db);
    const who = { cookie: await sessionCookieFor(app, user.id) };
    t.equal((await api('/api/learning/purchases', who.cookie, { courseId: course.id })).statusCode, 201);
    const en = await page(`/dashboard/courses/${course.id}`, who.cookie, 'en');
    t.match(en.body, /Pay before \d+ \w+ 2026, \d\d:\d\d WIB;/);
    t.notMatch(en.body, 'GMT+7');
    const id = await page(`/dashboard/courses/${course.id}`, who.cookie, 'id');
    t.match(id.body, /Bayar sebelum [^;]* WIB;/);
  });
});
