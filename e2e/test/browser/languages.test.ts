import {
  categories,
  chapterCompletions,
  chapters,
  courses,
  enrollments,
  generateSessionToken,
  modules,
  purchases,
  sessions,
  users,
} from '@lms/db';
import type { Browser, BrowserContext } from 'playwright-core';
import t from 'tap';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { freePort, makeTeacher, startLms } from '../helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium; the SQL behind them runs on both backends in apps/lms's page tests.

// The pages in Bahasa Indonesia in a real browser, as a browser set to Indonesian gets them (no
// cookie: Accept-Language): a member's dashboard, the catalog and a course; a teacher's
// dashboard and the Kunci API page with its script (create, copy, revoke: the script's texts and
// dates in Indonesian). Then the language switch: English on the same page, remembered on the
// next, and back. The dashboard is photographed in both languages.

t.test('a member and a teacher use the pages in Indonesian, then switch to English and back', async (t) => {
  const port = await freePort();
  const lmsUrl = `http://127.0.0.1:${port}`;
  const lms = await startLms(t, { PUBLIC_URL: lmsUrl }, port);
  const db = lms.db.db;

  const { institutionId, teacherId } = await makeTeacher(db);
  const cats = await db
    .insert(categories)
    .values([
      { code: 'AKT', name: 'Akuntansi' },
      { code: 'PJK', name: 'Perpajakan' },
    ])
    .returning();
  const courseRows = await db
    .insert(courses)
    .values([
      {
        name: 'Audit Internal Dasar',
        description: 'Prinsip audit internal untuk praktisi.',
        instructor: 'Dr. Sari',
        teacherId,
        institutionId,
        categoryId: cats[0]!.id,
        isPublished: true,
        eventCode: 'EV-1',
        nilaiKum: 6,
        isPurchasable: true,
        price: '350000',
        startDate: new Date('2026-11-30T17:00:00Z'),
        endDate: new Date('2026-12-20T03:00:00Z'),
      },
      { name: 'PPh Badan', teacherId, institutionId, categoryId: cats[1]!.id, isPublished: true, eventCode: 'EV-2', nilaiKum: 4 },
    ])
    .returning();
  const students = await db
    .insert(users)
    .values(
      [1, 2, 3].map((i) => ({
        email: `peserta${i}@example.test`,
        name: `Peserta ${i}`,
        role: 'student' as const,
        tier: 'anggota' as const,
        membershipId: `IAI-00${i}`,
      })),
    )
    .returning();
  for (const course of courseRows) {
    const mods = await db
      .insert(modules)
      .values([
        { courseId: course.id, name: 'Pengantar', orderIndex: 1 },
        { courseId: course.id, name: 'Perencanaan', orderIndex: 2 },
      ])
      .returning();
    const chapterRows = await db
      .insert(chapters)
      .values([
        { moduleId: mods[0]!.id, courseId: course.id, name: 'Apa itu audit', orderIndex: 1 },
        { moduleId: mods[0]!.id, courseId: course.id, name: 'Standar audit', orderIndex: 2 },
        { moduleId: mods[1]!.id, courseId: course.id, name: 'Menilai risiko', orderIndex: 1 },
      ])
      .returning();
    for (const [i, s] of students.entries()) {
      await db.insert(enrollments).values({ userId: s.id, courseId: course.id });
      for (const chapter of chapterRows.slice(0, i)) {
        await db.insert(chapterCompletions).values({ userId: s.id, chapterId: chapter.id, courseId: course.id });
      }
      await db
        .insert(purchases)
        .values({ userId: s.id, courseId: course.id, amount: '350000', status: 'paid', paidAt: new Date(Date.now() - 86_400_000) });
    }
  }

  const browser = await launchBrowser(t);
  /** A browser set to `locale` (its Accept-Language), signed in as the user. */
  async function signedIn(b: Browser, userId: string, locale: string): Promise<BrowserContext> {
    const { token, tokenHash } = generateSessionToken();
    await db.insert(sessions).values({ tokenHash, userId, expiresAt: new Date(Date.now() + 3_600_000) });
    const context = await b.newContext({ viewport: { width: 1200, height: 900 }, locale });
    await context.addCookies([{ name: lms.app.sessionCookieName, value: token, url: lmsUrl, httpOnly: true, sameSite: 'Lax' }]);
    return context;
  }

  // A member whose browser speaks Indonesian.
  const member = await (await signedIn(browser, students[1]!.id, 'id-ID')).newPage();
  await member.goto(`${lmsUrl}/dashboard`);
  await member.getByRole('heading', { level: 1, name: 'Selamat datang, Peserta 2' }).waitFor();
  t.equal(await member.locator('html').getAttribute('lang'), 'id');
  const row = member.getByRole('row', { name: /Audit Internal Dasar/ });
  t.match(await row.innerText(), /Sedang berjalan/);
  t.equal(await row.getByRole('progressbar').getAttribute('aria-label'), 'Kemajuan Audit Internal Dasar');
  t.match(await row.innerText(), /33,33%/, 'a percentage written the Indonesian way');
  t.match(await member.locator('main').innerText(), /Kategori peserta\s*Anggota/);
  await screenshot(member, 'lang-id-1-member-dashboard');

  await member.getByRole('link', { name: 'Katalog' }).click();
  await member.getByRole('heading', { level: 1, name: 'Katalog' }).waitFor();
  await member.getByLabel('Cari').fill('audit');
  await member.getByRole('button', { name: 'Tampilkan kursus' }).click();
  await member.waitForURL(/search=audit/);
  await member.getByText('1 kursus ditemukan.').waitFor();
  t.match(await member.locator('.course-list').innerText(), /Pengajar: Dr\. Sari · 2 modul · 3 peserta · 6 KUM · Rp\s350\.000/);
  await screenshot(member, 'lang-id-2-catalog');

  await member.getByRole('link', { name: 'Audit Internal Dasar' }).click();
  await member.getByRole('heading', { level: 1, name: 'Audit Internal Dasar' }).waitFor();
  const facts = await member.locator('dl').innerText();
  t.match(facts, /Tanggal\s*1\s*–\s*20 Desember 2026/, 'the dates as a range, in Jakarta');
  t.match(facts, /Harga\s*Rp\s350\.000/);
  t.match(facts, /Status Anda\s*Sedang berjalan/);
  const modulesText = await member.locator('ol.modules').innerText();
  t.match(modulesText, /Pengantar\s*Terbuka/);
  t.match(modulesText, /Perencanaan\s*Terkunci/);
  t.match(modulesText, /Apa itu audit\s*Terbuka\s*Selesai/);
  await screenshot(member, 'lang-id-3-course');

  // A teacher whose browser speaks Indonesian: the metrics, then the Kunci API page.
  const teacherContext = await signedIn(browser, teacherId, 'id-ID');
  const page = await teacherContext.newPage();
  await page.goto(`${lmsUrl}/dashboard`);
  await page.getByRole('heading', { name: 'Metrik platform' }).waitFor();
  const figures = await page.locator('ul.figures').innerText();
  t.match(figures, /Rp\s2\.100\.000\s*Pendapatan 30 hari terakhir/, 'six purchases of Rp 350.000');
  t.match(figures, /3\s*Pembeli 30 hari terakhir/);
  t.match(figures, /33,33%\s*Rata-rata kemajuan peserta/);
  t.match(await page.getByRole('img', { name: 'Tingkat penyelesaian per kategori' }).locator('desc').textContent(), /Akuntansi: 33,33%/);
  t.match(
    await page.getByRole('img', { name: 'Pendapatan dalam 30 hari terakhir' }).locator('desc').textContent(),
    /Akuntansi: Rp\s1\.050\.000/,
  );
  await screenshot(page, 'lang-id-dashboard');

  await page.getByRole('link', { name: 'Kunci API' }).first().click();
  await page.getByRole('heading', { level: 1, name: 'Kunci API' }).waitFor();
  // A name of spaces passes the browser's `required` but not the script: its message is Indonesian.
  await page.getByLabel('Nama').fill('   ');
  await page.getByRole('button', { name: 'Buat kunci' }).click();
  await page.getByText('Beri nama untuk kunci ini.').waitFor();
  await page.getByLabel('Nama').fill('Integrasi situs web');
  await page.getByRole('button', { name: 'Buat kunci' }).click();
  await page.locator('#new-key-value').waitFor();
  t.match(await page.locator('#new-key').innerText(), /Kunci baru Anda "Integrasi situs web":[\s\S]*tidak akan ditampilkan lagi/);
  await teacherContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: lmsUrl });
  await page.getByRole('button', { name: 'Salin kunci' }).click();
  await page.getByText('Tersalin.').waitFor();
  const keyRow = page.getByRole('row', { name: /Integrasi situs web/ });
  await keyRow.waitFor();
  const cells = await keyRow.locator('td').evaluateAll((tds) => tds.map((td) => [td.getAttribute('data-label'), td.textContent]));
  t.same(
    cells.map(([label]) => label),
    ['Nama', 'Awalan', 'Dibuat', 'Terakhir dipakai', 'Status'],
    "the script's new row is labelled by the table's own headers",
  );
  t.match(cells[2]![1], /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}\.\d{2} WIB$/, 'its date written by Intl in the browser, in WIB');
  t.equal(cells[3]![1], 'Belum pernah');
  let question = '';
  page.once('dialog', (dialog) => {
    question = dialog.message();
    void dialog.accept();
  });
  await keyRow.getByRole('button', { name: /Cabut/ }).click();
  await keyRow.getByText(/^Dicabut \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}\.\d{2} WIB$/).waitFor();
  t.match(question, /^Cabut kunci "Integrasi situs web"\? Sistem yang memakainya akan langsung berhenti bekerja\./);
  await screenshot(page, 'lang-id-4-kunci-api');

  // The switch on the dashboard: the same page in English, then remembered on the next page.
  await page.goto(`${lmsUrl}/dashboard`);
  await page.getByRole('button', { name: 'English' }).click();
  await page.waitForURL(`${lmsUrl}/dashboard`);
  await page.getByRole('heading', { name: 'Platform metrics' }).waitFor();
  t.equal(await page.locator('html').getAttribute('lang'), 'en');
  t.equal(await page.getByRole('button', { name: 'English' }).getAttribute('aria-pressed'), 'true');
  const english = await page.locator('ul.figures').innerText();
  t.match(english, /IDR\s2,100,000\s*Revenue, last 30 days/);
  t.match(english, /33\.33%\s*Learners. average progress/);
  await screenshot(page, 'lang-en-dashboard');
  await page.getByRole('link', { name: 'API keys' }).first().click();
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  t.match(
    await page.getByRole('row', { name: /Integrasi situs web/ }).innerText(),
    /Revoked \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} WIB/,
    'remembered: the next page is English too',
  );

  // Back to Indonesian from a catalog search: the same page, its query kept.
  await page.goto(`${lmsUrl}/dashboard/catalog?search=pph`);
  await page.getByRole('heading', { level: 1, name: 'Catalog' }).waitFor();
  await page.getByRole('button', { name: 'Bahasa Indonesia' }).click();
  await page.waitForURL(`${lmsUrl}/dashboard/catalog?search=pph`);
  await page.getByRole('heading', { level: 1, name: 'Katalog' }).waitFor();
  await page.getByText('1 kursus ditemukan.').waitFor();

  // A browser that asks for English gets English without choosing; the sign-in page too.
  const englishBrowser = await (await signedIn(browser, students[0]!.id, 'en-US')).newPage();
  await englishBrowser.goto(`${lmsUrl}/dashboard`);
  await englishBrowser.getByRole('heading', { level: 1, name: 'Welcome, Peserta 1' }).waitFor();
  const anonymous = await (await browser.newContext({ locale: 'id-ID' })).newPage();
  await anonymous.goto(`${lmsUrl}/sign-in?error=sso_failed&reason=member_inactive`);
  await anonymous.getByRole('heading', { level: 1, name: 'Masuk' }).waitFor();
  t.match(await anonymous.getByRole('alert').innerText(), /Akun Anda sedang tidak aktif/);
  await anonymous.getByRole('button', { name: 'English' }).click();
  await anonymous.waitForURL(`${lmsUrl}/sign-in?error=sso_failed&reason=member_inactive`);
  await anonymous.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  t.match(await anonymous.getByRole('alert').innerText(), /Your account is not active/, 'signed out, the switch works too');

  // At phone width the Indonesian dashboard, with its switch, still fits.
  await page.goto(`${lmsUrl}/dashboard`);
  await page.setViewportSize({ width: 375, height: 800 });
  await page.getByRole('heading', { name: 'Metrik platform' }).waitFor();
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no horizontal overflow at 375 px');
  await screenshot(page, 'lang-id-5-dashboard-phone');
});
