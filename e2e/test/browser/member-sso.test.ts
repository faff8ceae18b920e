import { categories, chapterCompletions, chapters, courses, enrollments, modules, questions, quizzes, users } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { freePort, makeTeacher, startDemoPartner, startLms } from '../helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium; the SQL behind them runs on both backends in apps/lms's page tests.

// A member in a real browser: the partner's login form → gateway → LMS SSO → dashboard →
// catalog search → a course page, which shows modules and chapters but no answer key.

const SECRET_ANSWER = 'SECRET-ANSWER-7f3a';

t.test('a member signs in through the partner and browses the catalog', async (t) => {
  const port = await freePort();
  const lmsUrl = `http://127.0.0.1:${port}`;
  const lms = await startLms(t, { PUBLIC_URL: lmsUrl }, port);
  const db = lms.db.db;

  // Two buyer-visible courses; the first has a quiz whose answer key must never reach a page.
  const { institutionId, teacherId } = await makeTeacher(db);
  const [category] = await db.insert(categories).values({ code: 'AKT', name: 'Akuntansi' }).returning();
  const [audit] = await db
    .insert(courses)
    .values({
      name: 'Audit Internal Dasar',
      description: 'Prinsip audit internal untuk praktisi.',
      instructor: 'Dr. Sari',
      teacherId,
      institutionId,
      categoryId: category!.id,
      isPublished: true,
      eventCode: 'EV-AUDIT',
      nilaiKum: 6,
      price: '350000',
    })
    .returning();
  await db
    .insert(courses)
    .values({ name: 'Perpajakan Lanjutan', teacherId, institutionId, categoryId: category!.id, isPublished: true, eventCode: 'EV-TAX' });
  const moduleRows = await db
    .insert(modules)
    .values([
      { courseId: audit!.id, name: 'Pengantar', orderIndex: 1 },
      { courseId: audit!.id, name: 'Perencanaan Audit', orderIndex: 2 },
    ])
    .returning();
  const chapterRows = await db
    .insert(chapters)
    .values([
      { moduleId: moduleRows[0]!.id, courseId: audit!.id, name: 'Apa itu audit', orderIndex: 1 },
      { moduleId: moduleRows[0]!.id, courseId: audit!.id, name: 'Standar audit', orderIndex: 2 },
      { moduleId: moduleRows[1]!.id, courseId: audit!.id, name: 'Menilai risiko', orderIndex: 1 },
    ])
    .returning();
  const [quiz] = await db
    .insert(quizzes)
    .values({ courseId: audit!.id, scope: 'chapter', moduleId: moduleRows[0]!.id, chapterId: chapterRows[0]!.id, name: 'Kuis pengantar' })
    .returning();
  await db.insert(questions).values({
    quizId: quiz!.id,
    questionText: 'Apa tujuan audit?',
    options: [
      { id: 'a', text: 'Keyakinan memadai', isCorrect: true },
      { id: 'b', text: 'Menghukum', isCorrect: false },
    ] as never,
    correctAnswer: SECRET_ANSWER,
    essayAnswer: SECRET_ANSWER,
    explanation: SECRET_ANSWER,
  });

  const { partnerUrl } = await startDemoPartner(t, lmsUrl, db);

  const browser = await launchBrowser(t);
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  // In English, chosen by the language cookie (the Indonesian walk: languages.test.ts).
  await context.addCookies([{ name: 'lms_lang', value: 'en', url: lmsUrl }]);
  const page = await context.newPage();

  // The partner's own login form, filled and submitted by the browser.
  await page.goto(`${partnerUrl}/`);
  await page.getByLabel('E-mail').fill('siti.rahma@example.org');
  await page.getByLabel('Name').fill('Siti Rahma');
  await page.getByLabel('Membership ID').fill('IAI-000123');
  await screenshot(page, 'member-1-partner-login');
  await page.getByRole('button', { name: 'Go to the courses' }).click();
  await page.waitForURL(`${lmsUrl}/dashboard`);
  await page.getByRole('heading', { name: 'Welcome, Siti Rahma' }).waitFor();
  t.match(await page.locator('main').innerText(), /IAI-000123/, 'the dashboard shows the member');
  t.match(await page.locator('main').innerText(), /You are not enrolled in any course yet/);

  // Enrolled with one chapter done: the dashboard shows the course with its progress.
  const [member] = await db.select().from(users).where(eq(users.email, 'siti.rahma@example.org'));
  await db.insert(enrollments).values({ userId: member!.id, courseId: audit!.id });
  await db.insert(chapterCompletions).values({ userId: member!.id, chapterId: chapterRows[0]!.id, courseId: audit!.id });
  await page.reload();
  const row = page.getByRole('row', { name: /Audit Internal Dasar/ });
  await row.waitFor();
  t.equal(await row.getByRole('progressbar').getAttribute('aria-valuenow'), '33.33');
  t.match(await row.innerText(), /In progress/);
  await screenshot(page, 'member-2-dashboard');

  // Catalog: search narrows the list.
  await page.getByRole('link', { name: 'Catalog' }).click();
  await page.getByRole('heading', { name: 'Catalog' }).waitFor();
  t.equal(await page.locator('.course-list > li').count(), 2);
  await page.getByLabel('Search').fill('audit');
  await page.getByRole('button', { name: 'Show courses' }).click();
  await page.waitForURL(/search=audit/);
  await page.getByText('1 course found.').waitFor();
  t.equal(await page.locator('.course-list > li').count(), 1);
  await screenshot(page, 'member-3-catalog-search');

  // The course page: modules and chapters with their lock state, no answer key anywhere.
  await page.getByRole('link', { name: 'Audit Internal Dasar' }).click();
  await page.getByRole('heading', { level: 1, name: 'Audit Internal Dasar' }).waitFor();
  const modulesText = await page.locator('ol.modules').innerText();
  t.match(modulesText, /Pengantar\s*Unlocked/);
  t.match(modulesText, /Perencanaan Audit\s*Locked/, 'the second module waits for the first');
  t.match(modulesText, /Standar audit\s*Locked/, 'the chapter after a completed one waits for its quiz (Kuis pengantar, not passed yet)');
  const html = await page.content();
  t.notMatch(html, SECRET_ANSWER, 'no answer key on the page');
  t.notMatch(html, 'isCorrect');
  await screenshot(page, 'member-4-course');

  // At phone width the dashboard still fits: no horizontal scrolling of the page.
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${lmsUrl}/dashboard`);
  await row.waitFor();
  t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no horizontal overflow at 375 px');
  await screenshot(page, 'member-5-dashboard-phone');

  // A course that does not exist: an HTML page that says so, with the way back.
  await page.setViewportSize({ width: 1200, height: 900 });
  const missing = await page.goto(`${lmsUrl}/dashboard/courses/999999`);
  t.equal(missing?.status(), 404);
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  await page.getByRole('link', { name: 'Back to your dashboard' }).waitFor();
  await screenshot(page, 'member-6-not-found');

  // Sign-out from the nav ends the session.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${lmsUrl}/sign-in`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await screenshot(page, 'member-7-signed-out');
  const signedOut = await page.goto(`${lmsUrl}/dashboard`);
  t.equal(signedOut?.url(), `${lmsUrl}/sign-in`, 'signed out: the dashboard sends back to sign-in');
  t.equal(signedOut?.request().redirectedFrom()?.url(), `${lmsUrl}/dashboard`, 'by a redirect from the dashboard');
});
