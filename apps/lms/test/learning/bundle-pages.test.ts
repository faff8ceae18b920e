import { enrollments, purchases } from '@lms/db';
import { and, eq, inArray } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { makeBundle, makeCast, makeCourse, setTier } from './enrolment-fixtures.js';

const NOW = new Date('2026-07-01T08:00:00.000Z');
/** testConfig()'s PUBLIC_URL: what a browser sends as Origin on our own forms. */
const OWN_ORIGIN = 'http://localhost:3000';
const FORM = 'application/x-www-form-urlencoded';

t.test('the bundles page and its buy form', async (t) => {
  const { app, db } = await buildTestApp(t, {
    deps: { clock: () => NOW },
    config: { BANK_TRANSFER_BANK: 'Bank Contoh', BANK_TRANSFER_ACCOUNT_NUMBER: '123-456-789' },
  });
  const cast = await makeCast(app, db.db);
  const { teacher, admin } = cast;
  const page = (url: string, cookie: string, lang: 'id' | 'en' = 'id') =>
    app.inject({ method: 'GET', url, headers: { cookie: `${cookie}; lms_lang=${lang}` } });
  const post = (url: string, cookie: string, headers: Record<string, string> = { origin: OWN_ORIGIN }) =>
    app.inject({ method: 'POST', url, headers: { cookie, 'content-type': FORM, ...headers }, payload: '' });
  const pendingOf = (userId: string) =>
    db.db
      .select()
      .from(purchases)
      .where(and(eq(purchases.userId, userId), eq(purchases.status, 'pending')));
  const enrolledIn = async (userId: string, courseIds: number[]) =>
    (
      await db.db
        .select()
        .from(enrollments)
        .where(and(eq(enrollments.userId, userId), inArray(enrollments.courseId, courseIds)))
    ).length;
  const newLearner = async (name: string) => {
    const user = await makeUser(db.db, { role: 'student', name });
    return { ...user, cookie: await sessionCookieFor(app, user.id) };
  };

  const paid = { isPurchasable: true, price: '150000', priceNonMember: '200000' };
  const one = await makeCourse(db.db, teacher, { ...paid, name: 'Audit Dasar' });
  const two = await makeCourse(db.db, teacher, { ...paid, name: 'Audit Lanjut' });
  const discounted = await makeBundle(db.db, one.id, two.id, {
    name: 'Paket Audit',
    description: 'Dua kursus audit.',
    price: '250000',
    priceNonMember: '275000',
  });
  const draft = await makeCourse(db.db, teacher, { ...paid, name: 'Belum tayang', isPublished: false });
  const hidden = await makeBundle(db.db, one.id, draft.id, { name: 'Paket dengan draf' });
  const noEventCode = await makeCourse(db.db, teacher, { ...paid, name: 'Tanpa kode acara', eventCode: null });
  const hiddenToo = await makeBundle(db.db, noEventCode.id, two.id, { name: 'Paket tanpa kode acara' });
  const freeOne = await makeCourse(db.db, teacher, { name: 'Gratis satu', price: '0' });
  const freeTwo = await makeCourse(db.db, teacher, { name: 'Gratis dua', price: '0' });
  const free = await makeBundle(db.db, freeOne.id, freeTwo.id, { name: 'Paket gratis' });

  await t.test('without a session: the sign-in page, for the page and the form', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/dashboard/bundles' });
    t.equal(res.statusCode, 302);
    t.equal(res.headers.location, '/sign-in');
    const form = await app.inject({
      method: 'POST',
      url: `/dashboard/bundles/${discounted.id}/purchase`,
      headers: { origin: OWN_ORIGIN, 'content-type': FORM },
    });
    t.equal(form.statusCode, 302);
    t.equal(form.headers.location, '/sign-in');
    t.equal((await db.db.select().from(purchases)).length, 0, 'nothing bought');
  });

  await t.test('lists only what can be bought, at the tier price, in both languages, with a link in the nav', async (t) => {
    const learner = await newLearner('Pembeli umum');
    await setTier(db.db, learner.id, 'umum');
    const id = await page('/dashboard/bundles', learner.cookie, 'id');
    t.equal(id.statusCode, 200);
    t.match(id.headers['content-type'], /text\/html/);
    t.match(id.body, '<h1>Paket kursus</h1>');
    t.match(id.body, `<h2 id="bundle-${discounted.id}-name">Paket Audit</h2>`);
    t.match(id.body, 'Dua kursus audit.');
    t.match(id.body, `<a href="/dashboard/courses/${one.id}">Audit Dasar</a>`);
    t.match(id.body, `<a href="/dashboard/courses/${two.id}">Audit Lanjut</a>`);
    t.match(id.body, /Harga paket untuk Anda: Rp\s?275\.000/, 'umum: the non-member bundle price');
    t.match(id.body, /Dibeli terpisah: Rp\s?400\.000/, 'against the two courses at the same tier (umum: 200.000 each)');
    t.match(id.body, `<a href="/dashboard/bundles" aria-current="page">Paket</a>`, 'the nav entry, current');
    t.notMatch(id.body, 'Paket dengan draf', 'a bundle with a draft course is not offered');
    t.notMatch(id.body, 'Paket tanpa kode acara', 'nor one with a course without an event code');
    t.match(id.body, 'Paket gratis');
    t.match(id.body, 'Paket ini gratis untuk Anda');
    t.notMatch(id.body, `/dashboard/bundles/${free.id}/purchase`, 'a free bundle has no buy form');
    t.match(id.body, `<form method="post" action="/dashboard/bundles/${discounted.id}/purchase">`);
    t.match(id.body, 'aria-label="Beli paket Paket Audit (transfer bank)"', 'each buy button names its bundle');

    const en = await page('/dashboard/bundles', learner.cookie, 'en');
    t.match(en.body, '<h1>Course bundles</h1>');
    t.match(en.body, /Your bundle price: IDR\s?275,000/);
    t.match(en.body, '>Buy the bundle (bank transfer)</button>');

    const member = await newLearner('Anggota');
    await setTier(db.db, member.id, 'anggota');
    const memberPage = (await page('/dashboard/bundles', member.cookie)).body;
    t.match(memberPage, /Harga paket untuk Anda: Rp\s?250\.000/, 'anggota: the bundle price');
    t.match(memberPage, /Dibeli terpisah: Rp\s?300\.000/, 'against the two member prices');
    t.match((await page('/dashboard', member.cookie, 'en')).body, '<a href="/dashboard/bundles">Bundles</a>', 'the nav on other pages');
  });

  await t.test('the buy form: CSRF refused, then a pending purchase with its transfer instructions, confirmed by an admin', async (t) => {
    const buyer = await newLearner('Pembeli');
    const action = `/dashboard/bundles/${discounted.id}/purchase`;
    t.equal((await post(action, buyer.cookie, {})).statusCode, 403, 'no Origin: 403');
    const foreign = await post(action, buyer.cookie, { origin: 'https://evil.example' });
    t.equal(foreign.statusCode, 403, 'a foreign Origin: 403');
    t.match(foreign.body, 'Formulir ini harus dikirim dari halaman LMS sendiri.');
    t.equal((await post(action, buyer.cookie, { 'sec-fetch-site': 'cross-site' })).statusCode, 403, 'Sec-Fetch-Site: cross-site: 403');
    t.equal((await pendingOf(buyer.id)).length, 0, 'none of them bought');

    const bought = await post(action, buyer.cookie);
    t.equal(bought.statusCode, 303);
    t.equal(bought.headers.location, `/dashboard/bundles?page=1&purchase=started#bundle-${discounted.id}`);
    t.equal(bought.headers['cache-control'], 'no-store');
    const [purchase] = await pendingOf(buyer.id);
    t.match(purchase, { bundleId: discounted.id, courseId: null, amount: '250000.00', status: 'pending' });
    const again = await post(action, buyer.cookie);
    t.equal(again.headers.location, `/dashboard/bundles?page=1&purchase=started#bundle-${discounted.id}`, 'a second click');
    t.equal((await pendingOf(buyer.id)).length, 1, 'still one pending purchase');

    const shown = await page(bought.headers.location as string, buyer.cookie, 'en');
    t.match(shown.body, '<p class="notice" role="status">Purchase created. Make the transfer as shown on the bundle.</p>');
    t.match(shown.body, `<code>${purchase!.reference}</code>`);
    t.match(shown.body, '<dt>Bank</dt><dd>Bank Contoh</dd>');
    t.match(shown.body, '<dd><code>123-456-789</code></dd>', 'the deployment-wide account (BANK_TRANSFER_*) when the institution has none');
    t.match(shown.body, /Transfer exactly<\/dt><dd><strong><span class="amount">IDR\s?250,000<\/span><\/strong>/, 'the amount, once');
    t.match(shown.body, /Pay before \d/, 'and by when');
    t.notMatch(shown.body, action, 'no second buy button while pending');

    // Another member sees their own standing only: not the buyer's pending purchase or its reference.
    const other = await newLearner('Tetangga');
    const otherPage = await page('/dashboard/bundles', other.cookie, 'en');
    t.notMatch(otherPage.body, purchase!.reference!, "another member's page does not show the buyer's reference");
    t.notMatch(otherPage.body, 'Waiting for payment');
    t.match(otherPage.body, `action="${action}"`, 'and offers them the buy form');
    // The buyer cannot confirm their own transfer with the dashboard's form.
    t.equal((await post(`/dashboard/purchases/${purchase!.id}/confirm`, buyer.cookie)).statusCode, 403, 'the buyer confirming: 403');
    t.equal((await pendingOf(buyer.id)).length, 1, 'still pending');

    const confirmAction = `/dashboard/purchases/${purchase!.id}/confirm`;
    t.match(
      (await page('/dashboard', admin.cookie, 'en')).body,
      `href="${confirmAction}"`,
      'on the admin dashboard, to its confirmation step',
    );
    t.match((await page(confirmAction, admin.cookie, 'en')).body, `action="${confirmAction}"`, 'the confirmation step posts it');
    t.equal((await post(confirmAction, admin.cookie)).headers.location, `/dashboard/transfers?confirmed=done&undo=${purchase!.id}`);
    t.equal(await enrolledIn(buyer.id, [one.id, two.id]), 2, 'confirmed: enrolled in both courses');
    const after = await page('/dashboard/bundles', buyer.cookie, 'en');
    t.match(after.body, 'You are enrolled in both courses of this bundle.');
    t.notMatch(after.body, action, 'no buy form once enrolled');
    const late = await post(action, buyer.cookie);
    t.equal(late.headers.location, `/dashboard/bundles?page=1&purchase=nothing#bundle-${discounted.id}`, 'buying again: nothing to pay');
    t.match((await page(late.headers.location as string, buyer.cookie, 'id')).body, 'Tidak ada yang perlu dibayar untuk paket ini.');
    t.equal((await pendingOf(buyer.id)).length, 0);
  });

  await t.test('attacker: a learner who has one course of a bundle cannot pay for it again through the bundle', async (t) => {
    const learner = await newLearner('Setengah');
    await db.db.insert(enrollments).values({ userId: learner.id, courseId: one.id });
    const res = await page('/dashboard/bundles', learner.cookie, 'en');
    t.match(res.body, `You already have the course ${one.name}, so this bundle is not sold to you: buy ${two.name} on its own.`);
    t.notMatch(res.body, `/dashboard/bundles/${discounted.id}/purchase`, 'no buy form');
    const forced = await post(`/dashboard/bundles/${discounted.id}/purchase`, learner.cookie);
    t.equal(
      forced.headers.location,
      `/dashboard/bundles?page=1&purchase=nothing#bundle-${discounted.id}`,
      'the form sent anyway: nothing to pay',
    );
    t.equal((await pendingOf(learner.id)).length, 0, 'and nothing bought');
  });

  await t.test('what cannot be bought is a 404 page and leaves nothing behind', async (t) => {
    const learner = await newLearner('Penyerang');
    for (const id of [hidden.id, hiddenToo.id, 999999, 2147483647]) {
      const res = await post(`/dashboard/bundles/${id}/purchase`, learner.cookie);
      t.equal(res.statusCode, 404, `bundle ${id}: 404`);
      t.match(res.headers['content-type'], /text\/html/, 'as a page');
    }
    for (const id of ['0', '-1', 'abc', '1e3x', '99999999999999999999', '%00']) {
      const res = await post(`/dashboard/bundles/${id}/purchase`, learner.cookie);
      t.equal(res.statusCode, 404, `id ${JSON.stringify(id)}: 404, not a 400 or 500`);
    }
    const freeRes = await post(`/dashboard/bundles/${free.id}/purchase`, learner.cookie);
    t.equal(freeRes.headers.location, `/dashboard/bundles?page=1&purchase=nothing#bundle-${free.id}`, 'a free bundle: nothing to pay');
    t.equal((await db.db.select().from(purchases).where(eq(purchases.userId, learner.id))).length, 0, 'no purchase row');
  });

  await t.test('an unknown or hostile flash shows nothing; names are escaped', async (t) => {
    const learner = await newLearner('<b>Nama</b>');
    const odd = await page('/dashboard/bundles?purchase=%3Cscript%3Ealert(1)%3C/script%3E&purchase=started', learner.cookie);
    t.equal(odd.statusCode, 200, 'a repeated parameter is no error');
    t.notMatch(odd.body, '<script>alert(1)</script>');
    const proto = await page('/dashboard/bundles?purchase=constructor', learner.cookie);
    t.equal(proto.statusCode, 200);
    t.notMatch(proto.body, 'class="notice" role="status"', 'no flash for a prototype key');

    const evil = await makeCourse(db.db, teacher, { ...paid, name: '<img src=x onerror=alert(1)>' });
    await makeBundle(db.db, evil.id, two.id, { name: '"><script>alert(2)</script>', description: '<iframe src=//evil.example>' });
    const res = await page('/dashboard/bundles', learner.cookie);
    t.notMatch(res.body, '<script>alert(2)', 'bundle name escaped');
    t.match(res.body, '&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    t.notMatch(res.body, '<iframe', 'description escaped');
    t.notMatch(res.body, '<img src=x', 'course name escaped');
    t.notMatch(res.body, '<b>Nama</b>', 'the person name escaped in the nav');
  });
});

t.test('the bundles page in pages, narrowed to a course, and the course page naming its bundles', async (t) => {
  const { app, db } = await buildTestApp(t, { deps: { clock: () => NOW } });
  const { teacher } = await makeCast(app, db.db);
  const learner = await makeUser(db.db, { role: 'student', name: 'Peserta' });
  const cookie = await sessionCookieFor(app, learner.id);
  const page = (url: string, lang: 'id' | 'en' = 'id') =>
    app.inject({ method: 'GET', url, headers: { cookie: `${cookie}; lms_lang=${lang}` } });
  const paid = { isPurchasable: true, price: '100000' };
  const names = (body: string) => [...body.matchAll(/<h2 id="bundle-\d+-name">([^<]*)<\/h2>/g)].map((m) => m[1]);

  // 22 bundles in a chain of 23 courses (c0+c1, c1+c2, ...), 11 more around one hub course, and one
  // with a draft course that no learner may see: 33 to list, ten to a page.
  const chain: Awaited<ReturnType<typeof makeCourse>>[] = [];
  for (let i = 0; i < 23; i++) chain.push(await makeCourse(db.db, teacher, { ...paid, name: `Kursus ${i}` }, 0));
  const chained: Awaited<ReturnType<typeof makeBundle>>[] = [];
  for (let i = 0; i < 22; i++) chained.push(await makeBundle(db.db, chain[i]!.id, chain[i + 1]!.id, { name: `Rantai ${i}` }));
  const hub = await makeCourse(db.db, teacher, { ...paid, name: 'Kursus Pusat' }, 0);
  const spokes: Awaited<ReturnType<typeof makeBundle>>[] = [];
  for (let i = 0; i < 11; i++) spokes.push(await makeBundle(db.db, hub.id, chain[i]!.id, { name: `Pusat ${i}`, price: '150000' }));
  const draft = await makeCourse(db.db, teacher, { ...paid, name: 'Draf', isPublished: false }, 0);
  await makeBundle(db.db, chain[0]!.id, draft.id, { name: 'Paket dengan draf' });
  const alone = await makeCourse(db.db, teacher, { ...paid, name: 'Sendirian' }, 0);
  const all = [...chained, ...spokes];

  await t.test('ten to a page, in id order, with a pager; a page past the end shows the last one', async (t) => {
    const first = await page('/dashboard/bundles');
    t.equal(first.statusCode, 200);
    t.same(
      names(first.body),
      all.slice(0, 10).map((b) => b.name),
    );
    t.match(
      first.body,
      '<nav class="pager" aria-label="Halaman"><span>Halaman 1 dari 4</span><a href="/dashboard/bundles?page=2" rel="next">Berikutnya</a></nav>',
    );
    const second = await page('/dashboard/bundles?page=2', 'en');
    t.same(
      names(second.body),
      all.slice(10, 20).map((b) => b.name),
    );
    t.match(
      second.body,
      '<a href="/dashboard/bundles?page=1" rel="prev">Previous</a><span>Page 2 of 4</span><a href="/dashboard/bundles?page=3" rel="next">Next</a>',
    );
    const last = await page('/dashboard/bundles?page=4');
    t.same(
      names(last.body),
      all.slice(30).map((b) => b.name),
      'the last three',
    );
    t.notMatch(last.body, 'rel="next"');
    t.notMatch(last.body, 'Paket dengan draf', 'the bundle with a draft course is on no page');
    const past = await page('/dashboard/bundles?page=99');
    t.equal(past.statusCode, 200);
    t.same(names(past.body), names(last.body), 'page 99: the last page');
    t.match(past.body, 'Halaman 4 dari 4');
  });

  await t.test('a page or course that is not a whole number in range is ignored, with a note, never an error page', async (t) => {
    for (const value of ['0', '-1', 'abc', '1e1', '01', '2.0', '99999999999999999999', '%00', '<script>']) {
      const res = await page(`/dashboard/bundles?page=${value}`);
      t.equal(res.statusCode, 200, `page=${value}: 200`);
      t.same(
        names(res.body),
        all.slice(0, 10).map((b) => b.name),
        `page=${value}: the first page`,
      );
      t.match(res.body, 'Nilai yang tidak valid diabaikan untuk: halaman.', `page=${value}: the note`);
      t.notMatch(res.body, '<script>', 'nothing of it written back unescaped');
    }
    const repeated = await page('/dashboard/bundles?page=2&page=3');
    t.equal(repeated.statusCode, 200, 'a repeated page: 200');
    t.match(repeated.body, 'Halaman 1 dari 4');
    const badCourse = await page('/dashboard/bundles?courseId=x&page=0', 'en');
    t.match(badCourse.body, 'Ignored an invalid value for: course and page.');
    t.same(
      names(badCourse.body),
      all.slice(0, 10).map((b) => b.name),
      'the whole list',
    );
    const huge = await page('/dashboard/bundles?courseId=2147483648');
    t.match(huge.body, 'Nilai yang tidak valid diabaikan untuk: kursus.', 'beyond the largest id: ignored');
  });

  await t.test('narrowed to a course: only the bundles that hold it, paged with the course kept', async (t) => {
    const res = await page(`/dashboard/bundles?courseId=${chain[5]!.id}`);
    t.same(names(res.body), ['Rantai 4', 'Rantai 5', 'Pusat 5'], 'either of the two courses');
    t.match(res.body, '<p role="status">Paket yang berisi kursus Kursus 5. <a href="/dashboard/bundles">Tampilkan semua paket</a></p>');
    t.notMatch(res.body, 'class="pager"', 'one page: no pager');
    const hubPage = await page(`/dashboard/bundles?courseId=${hub.id}`, 'en');
    t.same(
      names(hubPage.body),
      spokes.slice(0, 10).map((b) => b.name),
    );
    t.match(
      hubPage.body,
      `<a href="/dashboard/bundles?courseId=${hub.id}&amp;page=2" rel="next">Next</a>`,
      'the next page keeps the course',
    );
    t.same(names((await page(`/dashboard/bundles?courseId=${hub.id}&page=2`)).body), ['Pusat 10']);
    for (const id of [draft.id, alone.id, 999999]) {
      const none = await page(`/dashboard/bundles?courseId=${id}`);
      t.equal(none.statusCode, 200);
      t.same(names(none.body), [], `course ${id}: no bundle`);
      t.match(none.body, 'Tidak ada paket yang berisi kursus ini.');
      t.notMatch(none.body, 'Paket dengan draf', 'not even through its draft course');
    }
  });

  await t.test('the buy form comes back to the page that shows the bundle', async (t) => {
    const target = spokes[3]!; // the 26th bundle listed: page 3
    const res = await app.inject({
      method: 'POST',
      url: `/dashboard/bundles/${target.id}/purchase`,
      headers: { cookie, origin: OWN_ORIGIN, 'content-type': FORM },
      payload: '',
    });
    t.equal(res.statusCode, 303);
    t.equal(res.headers.location, `/dashboard/bundles?page=3&purchase=started#bundle-${target.id}`);
    const shown = await page(res.headers.location as string, 'en');
    t.match(shown.body, `id="bundle-${target.id}"`, 'the bundle is on that page');
    t.match(shown.body, 'Purchase created. Make the transfer as shown on the bundle.');
  });

  await t.test('the course page names the bundles that hold it, with the price, and links to them', async (t) => {
    const res = await page(`/dashboard/courses/${chain[5]!.id}`);
    t.equal(res.statusCode, 200);
    t.match(res.body, '<h2 id="bundles">Juga dalam paket</h2>');
    t.match(res.body, 'Kursus ini juga dijual dalam 3 paket:');
    t.match(
      res.body,
      /<li>Rantai 4 <span class="muted">· Harga paket untuk Anda: Rp\s?200\.000<\/span><\/li>/,
      'no bundle price: the two courses',
    );
    t.match(res.body, `<a href="/dashboard/bundles?courseId=${chain[5]!.id}">Lihat paket dengan kursus ini</a>`);
    const hubPage = await page(`/dashboard/courses/${hub.id}`, 'en');
    t.match(hubPage.body, 'This course is also sold in 11 bundles:');
    t.equal([...hubPage.body.matchAll(/<li>Pusat \d+ /g)].length, 3, 'three named; the link shows the rest');
    t.match(hubPage.body, /Pusat 0 <span class="muted">· Your bundle price: IDR\s?150,000/);
    t.notMatch((await page(`/dashboard/courses/${alone.id}`)).body, 'id="bundles"', 'in no bundle: no section');
    const teacherCookie = await sessionCookieFor(app, teacher.id);
    const draftPage = await app.inject({ method: 'GET', url: `/dashboard/courses/${draft.id}`, headers: { cookie: teacherCookie } });
    t.equal(draftPage.statusCode, 200, 'its teacher sees the draft course');
    t.notMatch(draftPage.body, 'Paket dengan draf', 'but no bundle with it is offered');

    const evil = await makeCourse(db.db, teacher, { ...paid, name: 'Jahat' }, 0);
    await makeBundle(db.db, evil.id, alone.id, { name: '"><script>alert(3)</script>' });
    const evilPage = await page(`/dashboard/courses/${evil.id}`);
    t.notMatch(evilPage.body, '<script>alert(3)', 'a bundle name is escaped on the course page');
    t.match(evilPage.body, '&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;');
  });
});
