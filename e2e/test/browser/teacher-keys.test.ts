import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  apiKeys,
  categories,
  certificates,
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
import { eq } from 'drizzle-orm';
import t from 'tap';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { freePort, makeTeacher, startLms } from '../helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium; the SQL behind them runs on both backends in apps/lms's page tests.

// A teacher in a real browser: metrics on the dashboard, then the Kunci API page: create a key
// (shown once), use it against /api/courses, revoke it with a confirmation, and the key is refused.
// Then a page on another site tries to create and revoke keys with the teacher's cookie: nothing happens.

t.test('a teacher reads the metrics and creates, uses and revokes an API key', async (t) => {
  const port = await freePort();
  const lmsUrl = `http://127.0.0.1:${port}`;
  const lms = await startLms(t, { PUBLIC_URL: lmsUrl }, port);
  const db = lms.db.db;

  // Some activity so the figures and charts have something to show.
  const { institutionId, teacherId } = await makeTeacher(db);
  const cats = await db
    .insert(categories)
    .values([
      { code: 'AKT', name: 'Akuntansi' },
      { code: 'PJK', name: 'Perpajakan' },
      { code: 'HKM', name: 'Hukum Bisnis' },
    ])
    .returning();
  const courseRows = await db
    .insert(courses)
    .values([
      {
        name: 'Audit Internal Dasar',
        teacherId,
        institutionId,
        categoryId: cats[0]!.id,
        isPublished: true,
        eventCode: 'EV-1',
        nilaiKum: 6,
      },
      { name: 'PPh Badan', teacherId, institutionId, categoryId: cats[1]!.id, isPublished: true, eventCode: 'EV-2', nilaiKum: 4 },
      { name: 'Draf: Hukum Kontrak', teacherId, institutionId, categoryId: cats[2]!.id, isPublished: false },
    ])
    .returning();
  const students = await db
    .insert(users)
    .values([1, 2, 3].map((i) => ({ email: `student${i}@example.test`, name: `Student ${i}`, role: 'student' as const })))
    .returning();
  for (const course of courseRows.slice(0, 2)) {
    const [mod] = await db.insert(modules).values({ courseId: course.id, name: 'M1', orderIndex: 1 }).returning();
    const chapterRows = await db
      .insert(chapters)
      .values([1, 2].map((i) => ({ moduleId: mod!.id, courseId: course.id, name: `C${i}`, orderIndex: i })))
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
  await db.insert(certificates).values({ userId: students[2]!.id, courseId: courseRows[0]!.id });

  // A session created directly, its cookie set in the browser.
  const { token, tokenHash } = generateSessionToken();
  await db.insert(sessions).values({ tokenHash, userId: teacherId, expiresAt: new Date(Date.now() + 3_600_000) });
  const browser = await launchBrowser(t);
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.addCookies([{ name: lms.app.sessionCookieName, value: token, url: lmsUrl, httpOnly: true, sameSite: 'Lax' }]);
  // In English, chosen by the language cookie (the Indonesian walk: languages.test.ts).
  await context.addCookies([{ name: 'lms_lang', value: 'en', url: lmsUrl }]);
  const page = await context.newPage();

  await page.goto(`${lmsUrl}/dashboard`);
  await page.getByRole('heading', { name: 'Platform metrics' }).waitFor();
  const figures = await page.locator('ul.figures').innerText();
  t.match(figures, /IDR\s2,100,000\s*Revenue, last 30 days/, 'six purchases of IDR 350,000');
  t.match(figures, /3\s*Buyers, last 30 days/);
  t.match(figures, /1\s*Certificates/);
  t.equal(await page.locator('figure svg.chart').count(), 4, 'four charts');
  t.match(await page.getByRole('img', { name: 'Completion rate per category' }).locator('desc').textContent(), /Akuntansi: 50%/);
  t.match(await page.locator('section:has(> #courses) .table-wrap').innerText(), /Draf: Hukum Kontrak\s*Draft/, 'their draft is listed');
  await screenshot(page, 'teacher-1-dashboard');

  // API keys ("Kunci API" in Indonesian): create a key; it is shown once with a copy button and the warning.
  await page.getByRole('link', { name: 'API keys' }).first().click();
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  // By keyboard only: type the name, Enter submits.
  await page.getByLabel('Name').focus();
  await page.keyboard.type('Website <integrasi>');
  await page.keyboard.press('Enter');
  const shown = page.locator('#new-key-value');
  await shown.waitFor();
  const key = (await shown.textContent())!;
  t.match(key, /^lms_key_/);
  t.match(await page.locator('#new-key').innerText(), /it will not be shown again/);
  const copy = page.getByRole('button', { name: 'Copy key' });
  t.ok(await copy.evaluate((b) => b === document.activeElement), 'focus moves to the copy button');
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: lmsUrl });
  await page.keyboard.press('Enter');
  await page.getByText('Copied.').waitFor();
  t.equal(await page.evaluate(() => navigator.clipboard.readText()), key, 'the copy button copies the key');
  const row = page.getByRole('row', { name: /Website <integrasi>/ });
  await row.waitFor();
  t.match(await row.innerText(), new RegExp(key.slice(0, 12)), 'listed by its prefix');
  await screenshot(page, 'teacher-2-key-created');

  // The key works against the catalog.
  const withKey = await fetch(`${lmsUrl}/api/courses`, { headers: { 'x-api-key': key } });
  t.equal(withKey.status, 200);
  t.equal(((await withKey.json()) as { courses: unknown[] }).courses.length, 2, 'the two buyer-visible courses');

  // After a reload the key is listed, never shown again.
  await page.reload();
  await row.waitFor();
  t.notMatch(await page.content(), key, 'the clear key is not on the page any more');

  // A page on another site posts a form and sends a fetch with the teacher's cookie: both fail.
  const keyId = (await db.select().from(apiKeys).where(eq(apiKeys.userId, teacherId)))[0]!.id;
  const attacker = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>Win a prize</title>
<form id="plant" method="post" action="${lmsUrl}/api/api-keys" enctype="text/plain"><input name='{"name":"planted","x":"' value='"}'></form>
<form id="plant-urlencoded" method="post" action="${lmsUrl}/api/api-keys"><input name="name" value="planted"></form>`);
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => attacker.close(() => resolve())));
  // localhost and 127.0.0.1 are different sites to the browser.
  const attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`;
  const evil = await context.newPage();
  for (const form of ['#plant', '#plant-urlencoded']) {
    await evil.goto(attackerUrl);
    const [response] = await Promise.all([evil.waitForNavigation(), evil.locator(form).evaluate((f: HTMLFormElement) => f.submit())]);
    t.ok(response && response.status() >= 400, `the cross-site form post ${form} is refused (${response?.status()})`);
  }
  await evil.goto(attackerUrl);
  const fetchOutcome = await evil.evaluate(async (url) => {
    try {
      const res = await fetch(url, { method: 'DELETE', credentials: 'include', headers: { 'x-requested-with': 'fetch' } });
      return `status ${res.status}`;
    } catch {
      return 'blocked';
    }
  }, `${lmsUrl}/api/api-keys/${keyId}`);
  t.equal(fetchOutcome, 'blocked', 'a cross-origin revoke needs a preflight, which is never approved');
  await evil.close();
  const keysNow = await db.select().from(apiKeys).where(eq(apiKeys.userId, teacherId));
  t.same(
    keysNow.map((k) => [k.name, k.revokedAt]),
    [['Website <integrasi>', null]],
    'no key planted, none revoked',
  );

  // Revoke in the UI, after a confirmation; the key is refused at once.
  let question = '';
  page.once('dialog', (dialog) => {
    question = dialog.message();
    void dialog.accept();
  });
  await row.getByRole('button', { name: /Revoke/ }).focus();
  await page.keyboard.press('Enter');
  await row.getByText(/^Revoked/).waitFor();
  t.match(question, /Revoke the key "Website <integrasi>"\?/);
  await screenshot(page, 'teacher-3-key-revoked');
  const afterRevoke = await fetch(`${lmsUrl}/api/courses`, { headers: { 'x-api-key': key } });
  t.equal(afterRevoke.status, 401);
  t.same(await afterRevoke.json(), { success: false, error: 'Invalid API key' });

  // At phone width the key page still fits.
  await page.setViewportSize({ width: 375, height: 800 });
  await page.reload();
  await row.waitFor();
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no horizontal overflow at 375 px');
  await screenshot(page, 'teacher-4-keys-phone');
  await page.goto(`${lmsUrl}/dashboard`);
  await page.getByRole('heading', { name: 'Platform metrics' }).waitFor();
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the dashboard too');
  await screenshot(page, 'teacher-5-dashboard-phone');
});
