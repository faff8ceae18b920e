import { chapters, courses, enrollments, generateSessionToken, quizzes, sessions, users } from '@lms/db';
import { DEMO_QUICK_COURSE, insertQuickCourse } from '@lms/db/seed';
import { asc, eq } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import t from 'tap';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { freePort, makeTeacher, startLms } from '../helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium; the SQL behind them runs on both backends in apps/lms's page tests.

// Issue 30 (part A) in a real browser, at a phone's 390 px and at 1280 px, in both languages: the
// member's chapter and quiz pages with the course outline, the teacher's manager view, preview,
// learners list and grant form, the landing page and a wrong certificate code. Each page is
// checked for horizontal overflow, and every link it offers answers without a 4xx/5xx.

const port = await freePort();
const lmsUrl = `http://127.0.0.1:${port}`;
const lms = await startLms(t, { PUBLIC_URL: lmsUrl }, port);
const db = lms.db.db;
const { institutionId, teacherId } = await makeTeacher(db);
await insertQuickCourse(db, { teacherId, institutionId, categoryId: null, now: new Date() });
const [course] = await db.select().from(courses).where(eq(courses.courseCode, DEMO_QUICK_COURSE.code));
const [member] = await db
  .insert(users)
  .values({ email: 'path.member@example.test', name: 'Anggota dengan nama yang sangat panjang sekali', role: 'student' })
  .returning();
await db.insert(enrollments).values({ userId: member!.id, courseId: course!.id });
const [firstChapter] = await db.select().from(chapters).where(eq(chapters.courseId, course!.id)).orderBy(asc(chapters.id));
const [firstQuiz] = await db.select().from(quizzes).where(eq(quizzes.courseId, course!.id)).orderBy(asc(quizzes.id));
const browser = await launchBrowser(t);

async function as(browserIn: Browser, userId: string | null, lang: string, width: number) {
  const context = await browserIn.newContext({ viewport: { width, height: 900 } });
  const cookies = [{ name: 'lms_lang', value: lang, url: lmsUrl }];
  if (userId) {
    const { token, tokenHash } = generateSessionToken();
    await db.insert(sessions).values({ tokenHash, userId, expiresAt: new Date(Date.now() + 3_600_000) });
    cookies.push({ name: lms.app.sessionCookieName, value: token, url: lmsUrl });
  }
  await context.addCookies(cookies);
  t.teardown(() => context.close());
  return context.newPage();
}

const pagesOf = (who: 'member' | 'teacher' | 'anonymous'): [string, number][] =>
  who === 'member'
    ? [
        [`/dashboard/courses/${course!.id}`, 200],
        [`/learn/chapters/${firstChapter!.id}`, 200],
        [`/learn/quizzes/${firstQuiz!.id}`, 200],
        ['/dashboard', 200],
      ]
    : who === 'teacher'
      ? [
          [`/dashboard/courses/${course!.id}`, 200],
          [`/dashboard/courses/${course!.id}/preview`, 200],
          [`/dashboard/courses/${course!.id}/learners`, 200],
          [`/dashboard/courses/${course!.id}/learners/${member!.id}`, 200],
          [`/learn/chapters/${firstChapter!.id}`, 200],
        ]
      : [
          ['/', 200],
          ['/certificates/not-a-real-code', 404],
        ];

for (const lang of ['id', 'en'])
  for (const width of [390, 1280])
    for (const who of ['member', 'teacher', 'anonymous'] as const)
      t.test(`${who}, ${lang}, ${width} px: no overflow, no dead link`, async (t) => {
        const page = await as(browser, who === 'member' ? member!.id : who === 'teacher' ? teacherId : null, lang, width);
        for (const [path, status] of pagesOf(who)) {
          const res = await page.goto(`${lmsUrl}${path}`);
          t.equal(res?.status(), status, `${path}`);
          const wide = await page.evaluate(() => document.documentElement.scrollWidth);
          t.ok(wide <= width, `${path}: page ${wide} px wide at ${width} px`);
          await screenshot(page, `path-${who}-${lang}-${width}-${path.replace(/[^a-z0-9]+/gi, '-')}`);
          const links = await page.$$eval('a[href^="/"]', (as) => [...new Set(as.map((a) => a.getAttribute('href') ?? ''))]);
          for (const link of links) {
            const answer = await page.request.get(`${lmsUrl}${link}`);
            t.ok(answer.status() < 400, `${path} → ${link}: ${answer.status()}`);
          }
        }
      });
