import {
  bundles,
  categories,
  chapterCompletions,
  chapters,
  courses,
  enrollments,
  generateSessionToken,
  modules,
  sessions,
  users,
} from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { freePort, makeTeacher, startLms } from '../helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium; the SQL behind them runs on both backends in apps/lms's page tests.

// An attacker's text in every field the pages show, in a real browser. First with the page CSP
// switched off (bypassCSP), so that only the escaping stands between the text and a script: no
// dialog may open. Then with the CSP on: no violation may be reported either, which also shows
// that the pages need no inline style or script (the CSP has no 'unsafe-inline').

const PAYLOADS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', 'javascript:alert(1)//'];

t.test('hostile names, ids and currencies are text on every page', async (t) => {
  const port = await freePort();
  const lmsUrl = `http://127.0.0.1:${port}`;
  const lms = await startLms(t, { PUBLIC_URL: lmsUrl }, port);
  const db = lms.db.db;

  const { institutionId, teacherId } = await makeTeacher(db);
  const [learner] = await db
    .insert(users)
    .values({ email: 'hostile.learner@example.test', name: `${PAYLOADS[0]} learner`, role: 'student', membershipId: PAYLOADS[1] })
    .returning();
  const courseIds: number[] = [];
  const categoryIds: number[] = [];
  for (const [i, payload] of PAYLOADS.entries()) {
    const [category] = await db
      .insert(categories)
      .values({ code: `X${i}`, name: `${payload} category` })
      .returning();
    const [course] = await db
      .insert(courses)
      .values({
        name: `${payload} course`,
        instructor: `${payload} instructor`,
        teacherId,
        institutionId,
        categoryId: category!.id,
        isPublished: true,
        eventCode: `EV-X${i}`,
        isPurchasable: true,
        price: '150000',
        currency: payload,
      })
      .returning();
    const [mod] = await db
      .insert(modules)
      .values({ courseId: course!.id, name: `${payload} module`, orderIndex: 1 })
      .returning();
    const chapterRows = await db
      .insert(chapters)
      .values([1, 2].map((n) => ({ moduleId: mod!.id, courseId: course!.id, name: `${payload} chapter ${n}`, orderIndex: n })))
      .returning();
    await db.insert(enrollments).values({ userId: learner!.id, courseId: course!.id });
    await db.insert(chapterCompletions).values({ userId: learner!.id, chapterId: chapterRows[0]!.id, courseId: course!.id });
    courseIds.push(course!.id);
    categoryIds.push(category!.id);
  }
  // A bundle per payload (its name, description and currency), each of two of these courses.
  await db.insert(bundles).values(
    PAYLOADS.map((payload, i) => ({
      name: `${payload} bundle`,
      description: `${payload} description`,
      categoryId: categoryIds[i]!,
      courseOneId: courseIds[i]!,
      courseTwoId: courseIds[(i + 1) % PAYLOADS.length]!,
      currency: payload,
    })),
  );
  await db
    .update(users)
    .set({ name: `${PAYLOADS[1]} teacher` })
    .where(eq(users.id, teacherId));

  const browser = await launchBrowser(t);
  async function signedIn(userId: string, bypassCSP: boolean): Promise<BrowserContext> {
    const { token, tokenHash } = generateSessionToken();
    await db.insert(sessions).values({ tokenHash, userId, expiresAt: new Date(Date.now() + 3_600_000) });
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP });
    await context.addCookies([
      { name: lms.app.sessionCookieName, value: token, url: lmsUrl, httpOnly: true, sameSite: 'Lax' },
      // In English, chosen by the language cookie (test/pages/hostile-values.test.ts covers both languages).
      { name: 'lms_lang', value: 'en', url: lmsUrl },
    ]);
    return context;
  }

  const dialogs: string[] = [];
  const violations: string[] = [];
  function watch(page: Page): Page {
    page.on('dialog', (dialog) => {
      dialogs.push(`${page.url()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(`${page.url()}: ${message.text()}`);
    });
    return page;
  }
  /** Opens a page and checks what the escaping and our stylesheet must give, whatever the CSP. */
  async function visit(page: Page, path: string, label: string): Promise<void> {
    const response = await page.goto(`${lmsUrl}${path}`);
    t.equal(response?.status(), 200, `${label}: 200`);
    await page.waitForLoadState('load');
    const injected = await page.evaluate(() => ({
      images: document.querySelectorAll('img').length,
      scripts: Array.from(document.querySelectorAll('script'), (s) => s.getAttribute('src')),
      topbar: getComputedStyle(document.querySelector('.topbar')!).backgroundColor,
    }));
    t.equal(injected.images, 0, `${label}: no injected image`);
    t.ok(
      injected.scripts.every((src) => src === '/dashboard/assets/dashboard.js'),
      `${label}: only our script`,
    );
    t.equal(injected.topbar, 'rgb(18, 53, 91)', `${label}: our stylesheet applies`);
    t.same(dialogs, [], `${label}: no dialog`);
  }

  for (const bypassCSP of [true, false]) {
    const mode = bypassCSP ? 'CSP off' : 'CSP on';
    const learnerPage = watch(await (await signedIn(learner!.id, bypassCSP)).newPage());
    await visit(learnerPage, '/dashboard', `${mode}, learner dashboard`);
    t.match(await learnerPage.locator('main').innerText(), PAYLOADS[1]!, 'the membership id, as text');
    const labels = await learnerPage.getByRole('progressbar').evaluateAll((bars) => bars.map((b) => b.getAttribute('aria-label')));
    t.same(labels.sort(), PAYLOADS.map((p) => `${p} course progress`).sort(), 'the progress bars are labelled with the names, intact');
    const bar = learnerPage.getByRole('progressbar').first();
    const [barBox, fillBox] = [await bar.boundingBox(), await bar.locator('rect').boundingBox()];
    t.ok(barBox && fillBox && Math.abs(fillBox.width / barBox.width - 0.5) < 0.02, `${mode}: the SVG bar is half full (1 of 2 chapters)`);
    await visit(learnerPage, '/dashboard/catalog', `${mode}, catalog`);
    t.equal(await learnerPage.locator('.course-list > li').count(), 3);
    for (const payload of PAYLOADS) {
      await visit(learnerPage, `/dashboard/catalog?search=${encodeURIComponent(payload)}`, `${mode}, catalog search`);
      t.equal(await learnerPage.getByLabel('Search').inputValue(), payload, 'the search box keeps the text');
      const list = (await learnerPage.locator('.course-list').innerText()).replaceAll('\u00a0', ' ');
      t.ok(list.includes(`${payload} 150,000`), 'the currency, as text');
    }
    for (const [i, id] of courseIds.entries()) {
      await visit(learnerPage, `/dashboard/courses/${id}`, `${mode}, course page`);
      await learnerPage.getByRole('heading', { level: 1, name: `${PAYLOADS[i]} course` }).waitFor();
      // The bundles holding it (its own payload's and the one before), named as text with their currency.
      const inBundles = await learnerPage.locator('section[aria-labelledby="bundles"]').innerText();
      t.ok(inBundles.includes(`${PAYLOADS[i]} bundle`), `${mode}: the course page names its bundle, as text`);
      t.ok(inBundles.replaceAll('\u00a0', ' ').includes(`${PAYLOADS[i]} `), 'with its currency, as text');
    }
    await visit(learnerPage, `/dashboard/bundles?courseId=${courseIds[0]}`, `${mode}, bundles of one course`);
    t.equal(await learnerPage.locator('.course-list > li').count(), 2, 'the two bundles holding the course');
    if (!bypassCSP) await screenshot(learnerPage, 'hostile-1-course');
    await visit(learnerPage, '/dashboard/bundles', `${mode}, bundles`);
    for (const payload of PAYLOADS) await learnerPage.getByRole('heading', { level: 2, name: `${payload} bundle` }).waitFor();
    t.equal(await learnerPage.locator('.course-list > li').count(), PAYLOADS.length, 'every bundle, as text');

    const teacherPage = watch(await (await signedIn(teacherId, bypassCSP)).newPage());
    await visit(teacherPage, '/dashboard', `${mode}, teacher dashboard`);
    await teacherPage.getByRole('heading', { name: `Welcome, ${PAYLOADS[1]} teacher` }).waitFor();
    t.match(
      await teacherPage.getByRole('img', { name: 'Completion rate per category' }).locator('desc').textContent(),
      `${PAYLOADS[1]} category: 50%`,
    );
    if (!bypassCSP) await screenshot(teacherPage, 'hostile-2-teacher-dashboard');
    await visit(teacherPage, '/dashboard/api-keys', `${mode}, API keys`);
    // A key named by the payload, through the page's script, then as the server renders it.
    const keyName = `${PAYLOADS[bypassCSP ? 1 : 0]} key`;
    await teacherPage.getByLabel('Name').fill(keyName);
    await teacherPage.getByRole('button', { name: 'Create key' }).click();
    await teacherPage.locator('#new-key-value').waitFor();
    t.equal(await teacherPage.locator('#new-key-name').textContent(), `"${keyName}"`);
    await teacherPage.getByRole('row', { name: keyName }).waitFor();
    await visit(teacherPage, '/dashboard/api-keys', `${mode}, API keys reloaded`);
    t.equal(await teacherPage.getByRole('row', { name: keyName }).getByRole('button').getAttribute('data-name'), keyName);

    const anonymous = watch(await (await browser.newContext({ bypassCSP })).newPage());
    await anonymous.context().addCookies([{ name: 'lms_lang', value: 'en', url: lmsUrl }]);
    for (const payload of PAYLOADS) {
      await visit(anonymous, `/sign-in?error=invalid_token&reason=${encodeURIComponent(payload)}`, `${mode}, sign-in`);
      t.equal(await anonymous.locator('details code').textContent(), payload);
    }
  }

  t.same(dialogs, [], 'no dialog opened, with or without the CSP');
  t.same(violations, [], 'the CSP reported nothing: no inline script or style on any page');
});
