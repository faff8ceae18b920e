import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { generateSessionToken, sessions, users } from '@lms/db';
import type { BrowserContext, Page } from 'playwright-core';
import t from 'tap';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { freePort, makeTeacher, startLms } from '../helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium; the SQL behind them runs on both backends in apps/lms's page tests.

// An author's Markdown on the learner's chapter page, in a real browser: the example course's
// chapter with a table, a list, a video from an allowed host and crafted HTML. With the page CSP
// off (bypassCSP) only the sanitizer stands between the author and the learner's browser: no
// dialog may open, no script or foreign frame may be in the page. With the CSP on, nothing is
// reported. Screenshots at 1280 and 390 px.

const CRAFTED = [
  '<script>alert("script")</script>',
  '<img src=x onerror=alert("onerror")>',
  '[klik](javascript:alert("link"))',
  '<a href="jav&#x09;ascript:alert(\'tab\')">tab</a>',
  '<iframe src="https://evil.example/"></iframe>',
  '<iframe srcdoc="<script>parent.alert(\'srcdoc\')</script>"></iframe>',
  '<svg onload=alert("svg")></svg>',
  '<details open ontoggle=alert("toggle")><summary>x</summary></details>',
].join('\n\n');

t.test("a chapter's Markdown in a learner's browser", async (t) => {
  const port = await freePort();
  const lmsUrl = `http://127.0.0.1:${port}`;
  const lms = await startLms(t, { PUBLIC_URL: lmsUrl }, port);
  const db = lms.db.db;
  const { institutionId, teacherId } = await makeTeacher(db);
  const [learner] = await db.insert(users).values({ email: 'pembaca@example.test', name: 'Pembaca', role: 'student' }).returning();

  const session = async (userId: string) => {
    const { token, tokenHash } = generateSessionToken();
    await db.insert(sessions).values({ tokenHash, userId, expiresAt: new Date(Date.now() + 3_600_000) });
    return token;
  };
  const teacherToken = await session(teacherId);
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${lmsUrl}${path}`, {
      method,
      headers: {
        cookie: `${lms.app.sessionCookieName}=${teacherToken}`,
        'x-requested-with': 'e2e',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const file = createRequire(import.meta.url).resolve('@lms/example-partner-backend/course.example.json');
  const document = JSON.parse(await readFile(file, 'utf8'));
  const first = document.modules[0].chapters[1];
  first.content = `${first.content}\n\n<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" title="Video" width="320" height="180" allowfullscreen></iframe>\n\n${CRAFTED}`;
  const created = await api('POST', '/api/course-documents', { ...document, course: { ...document.course, institutionId, teacherId } });
  t.equal(created.status, 201);
  const courseId = created.body.courseId as number;
  t.equal((await api('POST', `/api/courses/${courseId}/publication`)).status, 200);
  const chapterId = created.body.document.modules[0].chapters[1].id as number;

  const learnerToken = await session(learner!.id);
  const learnerApi = (method: string, path: string, body?: unknown) =>
    fetch(`${lmsUrl}${path}`, {
      method,
      headers: {
        cookie: `${lms.app.sessionCookieName}=${learnerToken}`,
        'x-requested-with': 'e2e',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  t.equal((await learnerApi('POST', `/api/learning/courses/${courseId}/enrollment`, {})).status, 201);
  // The first chapter and its quiz open the second.
  const doc = created.body.document;
  t.equal((await learnerApi('POST', `/api/learning/chapters/${doc.modules[0].chapters[0].id}/completion`)).status, 201);
  const quiz = doc.modules[0].chapters[0].quiz;
  const attempt = await (await learnerApi('POST', `/api/learning/quizzes/${quiz.id}/attempts`)).json();
  const answers = Object.fromEntries(
    quiz.questions.map((q: { id: number; options: { id: string; isCorrect: boolean }[] }) => [
      q.id,
      q.options
        .filter((o) => o.isCorrect)
        .map((o) => o.id)
        .join(','),
    ]),
  );
  t.equal(
    (await (await learnerApi('POST', `/api/learning/quiz-attempts/${attempt.attemptId}/submission`, { answers })).json()).passed,
    true,
  );

  const browser = await launchBrowser(t);
  const dialogs: string[] = [];
  const violations: string[] = [];
  const open = async (bypassCSP: boolean, width: number): Promise<Page> => {
    const context: BrowserContext = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP });
    await context.addCookies([
      { name: lms.app.sessionCookieName, value: learnerToken, url: lmsUrl, httpOnly: true, sameSite: 'Lax' },
      { name: 'lms_lang', value: 'en', url: lmsUrl },
    ]);
    const page = await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text()) && !/youtube/.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(`${lmsUrl}/learn/chapters/${chapterId}`);
    t.equal(response?.status(), 200);
    await page.waitForLoadState('load');
    return page;
  };

  for (const bypassCSP of [true, false]) {
    const page = await open(bypassCSP, 1280);
    const article = page.locator('article');
    await article.getByRole('table').waitFor();
    t.equal(await article.getByRole('row').count(), 4, 'the Markdown table is a table');
    const found = await page.evaluate(() => ({
      scripts: Array.from(document.querySelectorAll('script'), (s: HTMLScriptElement) => s.getAttribute('src')),
      frames: Array.from(document.querySelectorAll('iframe'), (f: HTMLIFrameElement) => f.getAttribute('src')),
      handlers: Array.from(document.querySelectorAll('article *'), (el: Element) =>
        Array.from(el.attributes, (a: Attr) => (a.name.startsWith('on') ? `${el.tagName} ${a.name}` : '')).filter(Boolean),
      ).flat(),
      javascriptLinks: Array.from(document.querySelectorAll('article a'), (a: Element) => (a as HTMLAnchorElement).protocol).filter(
        (p) => p === 'javascript:',
      ),
    }));
    // Our own scripts only: the page's and the chapter's heartbeat (time on the chapter, credit evidence).
    t.same(
      found.scripts.filter(
        (src: string | null) => !['/dashboard/assets/dashboard.js', '/dashboard/assets/chapter-time.js'].includes(src ?? ''),
      ),
      [],
      'only our own scripts',
    );
    t.same(found.frames, ['https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'], 'the video frame from the allowed host, and no other');
    t.same(found.handlers, [], 'no event handler in the article');
    t.same(found.javascriptLinks, [], 'no javascript: link');
    if (!bypassCSP) {
      await screenshot(page, 'chapter-markdown-1280');
      const narrow = await open(false, 390);
      await screenshot(narrow, 'chapter-markdown-390');
    }
  }
  t.same(dialogs, [], 'no dialog opened, with the CSP off or on');
  t.same(violations, [], 'the CSP reported nothing of ours');
});
