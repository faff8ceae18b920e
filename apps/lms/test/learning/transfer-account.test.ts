import { institutions, purchases } from '@lms/db';
import { and, eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { cliFor } from '../helpers/cli.js';
import { makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { asSession, makeBundle, makeCast, makeCourse, setTier } from './enrolment-fixtures.js';

// The transfer account is the operator's configuration per institution (lms-admin institution
// set-transfer-account): the instructions name the account of the course's institution, or say
// plainly that none is set up; the learner's dashboard lists their purchases waiting for payment.

const NOW = new Date('2026-07-01T08:00:00.000Z');
const OWN_ORIGIN = 'http://localhost:3000';
const FORM = 'application/x-www-form-urlencoded';

t.test('transfer accounts per institution, and pending purchases on the dashboard', async (t) => {
  // No BANK_TRANSFER_* at all: only what the operator sets per institution.
  const { app, db } = await buildTestApp(t, { deps: { clock: () => NOW } });
  const cli = cliFor(db);
  const cast = await makeCast(app, db.db);
  const page = (url: string, cookie: string, lang: 'id' | 'en' = 'id') =>
    app.inject({ method: 'GET', url, headers: { cookie: `${cookie}; lms_lang=${lang}` } });
  const api = (url: string, cookie: string, body: unknown) =>
    app.inject({
      method: 'POST',
      url,
      headers: { ...asSession(cookie), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const post = (url: string, cookie: string) =>
    app.inject({ method: 'POST', url, headers: { cookie, 'content-type': FORM, origin: OWN_ORIGIN }, payload: '' });

  const otherTeacher = await makeUser(db.db, { role: 'teacher', institutionId: cast.otherInstitutionId, name: 'Guru Lain' });
  const home = await makeCourse(db.db, cast.teacher, { name: 'Kursus Rumah', isPurchasable: true, price: '250000' });
  const away = await makeCourse(db.db, otherTeacher, { name: 'Kursus Tetangga', isPurchasable: true, price: '90000' });
  const buyer = cast.learner;
  await setTier(db.db, buyer.id, 'anggota');
  // A buyer with a payment behind them, so that two purchases may wait at once (before a first
  // payment, one waits at a time: test/learning/pending-purchase-flood.test.ts).
  const earlier = await makeCourse(db.db, cast.teacher, { name: 'Kursus Lama', isPurchasable: true, price: '50000' });
  await db.db.insert(purchases).values({
    userId: buyer.id,
    courseId: earlier.id,
    amount: '50000',
    currency: 'IDR',
    status: 'paid',
    provider: 'bank_transfer',
    paidAt: new Date(),
  });

  await t.test('with no account set up, the instructions say so and name none; the amount appears once', async (t) => {
    const started = await api('/api/learning/purchases', buyer.cookie, { courseId: home.id });
    t.equal(started.statusCode, 201);
    const { instructions } = started.json();
    t.equal(instructions.accountNumber, null);
    t.match(instructions.text, 'not set up yet');
    const en = await page(`/dashboard/courses/${home.id}`, buyer.cookie, 'en');
    t.match(en.body, 'This institution has not set up its transfer account yet. Do not transfer yet');
    const id = await page(`/dashboard/courses/${home.id}`, buyer.cookie, 'id');
    t.match(id.body, 'Lembaga ini belum mengatur rekening transfernya.');
    // Whom to ask, named and linked: the institution's admin first, then the course's teacher.
    t.match(
      en.body,
      `Contact: <a href="mailto:${cast.admin.email}">Admin</a> (an admin of Home) or <a href="mailto:${cast.teacher.email}">Teacher</a> (the course&#39;s teacher).`,
    );
    t.match(id.body, `Hubungi: <a href="mailto:${cast.admin.email}">Admin</a> (admin Home) atau`);
    const enrol = /<section aria-labelledby="enrol">[\s\S]*?<\/section>/.exec(en.body)?.[0] ?? '';
    t.equal(enrol.match(/IDR\s?250,000/g)?.length, 1, 'the amount appears once in the instructions');
  });

  await t.test('the operator sets the account with the CLI; the instructions name it, for that institution only', async (t) => {
    const bad = await cli('institution', 'set-transfer-account', '--institution', String(cast.institutionId), '--bank', 'Bank Contoh');
    t.equal(bad.code, 2, 'without --number and --holder: a usage error');
    t.match(bad.err, '--number is required');
    const unknown = await cli(
      'institution',
      'set-transfer-account',
      '--institution',
      '999999',
      '--bank',
      'B',
      '--number',
      '1',
      '--holder',
      'H',
    );
    t.equal(unknown.code, 1);
    t.match(unknown.err, 'no institution with id 999999');
    const control = await cli(
      'institution',
      'set-transfer-account',
      '--institution',
      String(cast.institutionId),
      '--bank',
      'B',
      '--number',
      '12\u00003',
      '--holder',
      'H',
    );
    t.equal(control.code, 2, 'a control character is refused');
    const set = await cli(
      'institution',
      'set-transfer-account',
      '--institution',
      String(cast.institutionId),
      '--bank',
      'Bank Contoh',
      '--number',
      '123-456-789',
      '--holder',
      'Yayasan Rumah Belajar',
    );
    t.equal(set.code, 0, set.err);
    t.match(set.out, 'transfers go to Bank Contoh 123-456-789 (Yayasan Rumah Belajar)');
    const list = await cli('institution', 'list');
    t.match(list.out, /Home\s+Bank Contoh 123-456-789 \(Yayasan Rumah Belajar\)/);
    t.match(list.out, /Elsewhere\s+\(none\)/);

    // The pending purchase shows the new account at once.
    const en = await page(`/dashboard/courses/${home.id}`, buyer.cookie, 'en');
    t.match(en.body, '<dt>Bank</dt><dd>Bank Contoh</dd>');
    t.match(en.body, '<dt>Account number</dt><dd><code>123-456-789</code></dd>');
    t.match(en.body, '<dt>Account holder</dt><dd>Yayasan Rumah Belajar</dd>');
    t.notMatch(en.body, 'has not set up');
    const again = await api('/api/learning/purchases', buyer.cookie, { courseId: home.id });
    t.equal(again.statusCode, 200);
    t.match(again.json().instructions, { bankName: 'Bank Contoh', accountNumber: '123-456-789', accountName: 'Yayasan Rumah Belajar' });

    // Another institution's course never shows this account.
    const awayStarted = await api('/api/learning/purchases', buyer.cookie, { courseId: away.id });
    t.equal(awayStarted.statusCode, 201);
    t.equal(awayStarted.json().instructions.accountNumber, null, "the other institution's purchase names no account");
    const awayPage = await page(`/dashboard/courses/${away.id}`, buyer.cookie, 'en');
    t.notMatch(awayPage.body, '123-456-789', "no other institution's account number");
    t.match(awayPage.body, 'has not set up its transfer account');

    // A bundle of the home institution's courses names its account too.
    const second = await makeCourse(db.db, cast.teacher, { name: 'Kursus Rumah 2', isPurchasable: true, price: '100000' });
    const bundle = await makeBundle(
      db.db,
      second.id,
      (await makeCourse(db.db, cast.teacher, { name: 'K3', isPurchasable: true, price: '1' })).id,
      {
        name: 'Paket Rumah',
        price: '90000',
      },
    );
    const bundleBuyer = cast.otherLearner;
    t.equal((await api('/api/learning/purchases', bundleBuyer.cookie, { bundleId: bundle.id })).statusCode, 201);
    const bundles = await page('/dashboard/bundles', bundleBuyer.cookie, 'en');
    t.match(bundles.body, '<dt>Account number</dt><dd><code>123-456-789</code></dd>');

    const cleared = await cli('institution', 'set-transfer-account', '--institution', String(cast.institutionId), '--clear');
    t.equal(cleared.code, 0, cleared.err);
    const [row] = await db.db.select().from(institutions).where(eq(institutions.id, cast.institutionId));
    t.equal(row!.transferAccountNumber, null, 'cleared');
    const bundlesAfter = await page('/dashboard/bundles', bundleBuyer.cookie, 'en');
    t.match(bundlesAfter.body, 'has not set up its transfer account', 'the bundle now says none is set up');
    t.match(bundlesAfter.body, `Contact: <a href="mailto:${cast.admin.email}">Admin</a> (an admin of Home)`, 'and whom to ask');
    const mixed = await cli('institution', 'set-transfer-account', '--institution', String(cast.institutionId), '--clear', '--bank', 'X');
    t.equal(mixed.code, 2);
  });

  await t.test("the learner's dashboard lists their pending purchases, with the instructions and cancel", async (t) => {
    const dashboard = await page('/dashboard', buyer.cookie, 'en');
    t.match(dashboard.body, '<h2 id="pending-purchases">Waiting for payment</h2>');
    const mine = await db.db
      .select()
      .from(purchases)
      .where(and(eq(purchases.userId, buyer.id), eq(purchases.status, 'pending')))
      .orderBy(purchases.id);
    t.equal(mine.length, 2);
    for (const p of mine) {
      t.match(dashboard.body, `<code>${p.reference}</code>`);
      t.match(dashboard.body, `action="/dashboard/purchases/${p.id}/cancel"`);
      t.match(dashboard.body, `href="/dashboard/courses/${p.courseId}#enrol"`);
    }
    const idDashboard = await page('/dashboard', buyer.cookie, 'id');
    t.match(idDashboard.body, 'Lihat petunjuk transfer');

    const bystander = await makeUser(db.db, { role: 'student', name: 'Orang Lain' });
    const bystanderCookie = await sessionCookieFor(app, bystander.id);
    const theirs = await page('/dashboard', bystanderCookie, 'en');
    t.notMatch(theirs.body, 'pending-purchases', "nobody else's pending purchases");
    for (const p of mine) t.notMatch(theirs.body, p.reference!);
    const steal = await post(`/dashboard/purchases/${mine[0]!.id}/cancel`, bystanderCookie);
    t.not(steal.statusCode, 303, 'another learner cannot cancel it');
    const [still] = await db.db.select().from(purchases).where(eq(purchases.id, mine[0]!.id));
    t.equal(still!.status, 'pending');

    const cancel = await post(`/dashboard/purchases/${mine[0]!.id}/cancel`, buyer.cookie);
    t.equal(cancel.statusCode, 303);
    const after = await page('/dashboard', buyer.cookie, 'en');
    t.notMatch(after.body, `<code>${mine[0]!.reference}</code>`, 'a cancelled purchase is no longer listed');
    t.match(after.body, `<code>${mine[1]!.reference}</code>`);
  });
});
