import path from 'node:path';
import { users } from '@lms/db';
import { DEMO_TEACHER_EMAIL, seedDemo } from '@lms/db/seed';
import { eq, sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import t from 'tap';
import { launchBrowser } from '../helpers/browser.js';
import { screenshotDir, signInThroughPartner } from '../helpers/pages.js';
import { solidPng } from '../helpers/png.js';
import { freePort, startDemoPartner, startLms } from '../helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium; the SQL behind them runs on both backends in apps/lms's page tests.

// The course studio in a real browser, in both languages: the demo teacher signs in through the
// demo partner's form, creates a course, two modules with chapters (one with a picture, one with a
// video), a chapter quiz and a final exam, is refused publishing until an event code is set,
// publishes; a member, signed in through the demo partner too, finds the course in the catalog
// with its cover, enrols, completes every chapter, passes the chapter quiz and the final exam and
// opens the certificate. Screenshots at 1280 and 390 px (SCREENSHOT_DIR, else a temp dir).

const WIDTHS = [1280, 390] as const;

/** What the member clicks and reads, in each language of the pages. */
const WORDS = {
  en: {
    markComplete: 'Mark as complete',
    completed: 'Completed',
    takeQuiz: "Take this chapter's quiz",
    start: 'Start',
    submit: 'Submit answers',
    passed: 'Passed',
    viewCertificate: 'View certificate',
    certificate: 'Certificate',
  },
  id: {
    markComplete: 'Tandai selesai',
    completed: 'Selesai',
    takeQuiz: 'Kerjakan kuis bab ini',
    start: 'Mulai mengerjakan',
    submit: 'Kirim jawaban',
    passed: 'Lulus',
    viewCertificate: 'Lihat sertifikat',
    certificate: 'Sertifikat',
  },
} as const;

const MEMBERS = {
  en: { email: 'dewi.anggota@example.org', name: 'Dewi Anggota', membershipId: 'IAI-000777' },
  id: { email: 'rudi.anggota@example.org', name: 'Rudi Anggota', membershipId: 'IAI-000778' },
} as const;

t.test('a teacher builds a course in the studio and a member enrols', async (t) => {
  const shots = await screenshotDir(t, 'studio-shots');
  const port = await freePort();
  const lmsUrl = `http://127.0.0.1:${port}`;
  const lms = await startLms(t, { PUBLIC_URL: lmsUrl }, port);
  const db = lms.db.db;
  const { partnerUrl } = await startDemoPartner(t, lmsUrl, db);
  // The demo data links the demo teacher (STAFF-001) to the demo partner, as the README walk-through does.
  await seedDemo(db);
  const browser = await launchBrowser(t);
  const png = solidPng(1800, 900, [0x1f, 0x6f, 0x8b]);

  /** A browser in `lang` signed in through the demo partner's own form (partner → gateway → LMS SSO). */
  const signIn = async (who: { email: string; name: string; membershipId: string }, lang: 'id' | 'en') => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: 'lms_lang', value: lang, url: lmsUrl }]);
    const page = await context.newPage();
    await signInThroughPartner(page, partnerUrl, lmsUrl, who);
    return { context, page };
  };
  /** Screenshots at both widths; at 390 px nothing may be wider than the screen. */
  const shoot = async (page: Page, name: string) => {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
      if (width === 390) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
        t.ok(overflow <= 390, `${name}: no layout overflow at 390 px (${overflow})`);
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };
  const submit = (page: Page, action: string) => page.locator(`form[action$="${action}"] button[type="submit"]`).first().click();

  for (const lang of ['en', 'id'] as const) {
    const courseName = lang === 'en' ? 'Forensic Audit' : 'Audit Investigasi';
    const { context, page } = await signIn({ email: DEMO_TEACHER_EMAIL, name: 'Budi Santoso', membershipId: 'STAFF-001' }, lang);
    const [teacher] = await db.select().from(users).where(eq(users.email, DEMO_TEACHER_EMAIL));
    t.equal(teacher!.role, 'teacher', `${lang}: the demo teacher signed in through the partner`);
    await page.locator('a[href="/dashboard/studio/new"]').click();
    await page.locator('#f-name').fill(courseName);
    await page.locator('form[action="/dashboard/studio/new"] button').click();
    await page.waitForURL(/\/dashboard\/studio\/courses\/\d+$/);
    const courseId = Number(page.url().match(/(\d+)$/)?.[1]);
    t.match(await page.locator('h1').innerText(), courseName, `${lang}: the studio of the new course opens`);
    t.match(
      await page.locator('nav.studio-tabs').innerText(),
      lang === 'en' ? 'Preview as learner' : 'Pratinjau sebagai peserta',
      `${lang}: in the page's language`,
    );

    // Outline: two modules, a chapter in each.
    await page.goto(`${lmsUrl}/dashboard/studio/courses/${courseId}/outline`);
    for (const name of ['Modul 1', 'Modul 2']) {
      await page.locator(`form[action$="/courses/${courseId}/modules"] input[name="name"]`).fill(name);
      await submit(page, `/courses/${courseId}/modules`);
      await page.waitForURL(/outline\?saved=1/);
    }
    const moduleIds = (await db.execute(sql`select id from modules where course_id = ${courseId} order by order_index`)).rows.map((r) =>
      Number(r.id),
    );
    for (const [i, m] of moduleIds.entries()) {
      await page.locator(`form[action$="/modules/${m}/chapters"] input[name="name"]`).fill(`Bab ${i + 1}`);
      await submit(page, `/modules/${m}/chapters`);
      await page.waitForURL(/outline\?saved=1/);
    }
    await shoot(page, `studio-${lang}-outline`);
    const chapterIds = (
      await db.execute(sql`select id from chapters where course_id = ${courseId} order by module_id, order_index`)
    ).rows.map((r) => Number(r.id));

    // A picture, made the cover; then chapter 1 shows it and chapter 2 embeds a video.
    await page.goto(`${lmsUrl}/dashboard/studio/courses/${courseId}/pictures`);
    await page.locator('input[type="file"]').setInputFiles({ name: 'sampul.png', mimeType: 'image/png', buffer: png });
    await page.locator('form[enctype="multipart/form-data"] button').click();
    await page.waitForURL(/pictures\?saved=1/);
    await page.locator('form[action$="/cover"] button').click();
    await page.waitForURL(/\/pictures$/);
    const markdown = await page.locator('ul.course-list code').first().innerText();

    await page.goto(`${lmsUrl}/dashboard/studio/chapters/${chapterIds[0]}`);
    await page.locator('#f-content').fill(`# Pengantar\n\nBacaan **penting**.\n\n${markdown}`);
    await page.locator('button[value="preview"]').click();
    const picture = page.locator('.chapter-preview img');
    await picture.waitFor();
    t.ok(await picture.evaluate((img) => (img as HTMLImageElement).naturalWidth > 0), `${lang}: the picture loads in the preview`);
    await shoot(page, `studio-${lang}-chapter`);
    await page.locator('button[value="save"]').click();
    await page.waitForURL(/saved=1/);

    await page.goto(`${lmsUrl}/dashboard/studio/chapters/${chapterIds[1]}`);
    await page.locator('#f-videoUrl').fill('https://evil.example/watch?v=dQw4w9WgXcQ');
    await page.locator('button[value="video"]').click();
    await page.locator('#f-videoUrl-error').waitFor();
    await page.locator('#f-videoUrl').fill('https://youtu.be/dQw4w9WgXcQ');
    await page.locator('button[value="video"]').click();
    await page.locator('.chapter-preview iframe[src^="https://www.youtube-nocookie.com/embed/"]').waitFor({ state: 'attached' });
    await page.locator('button[value="save"]').click();
    await page.waitForURL(/saved=1/);
    t.match(
      String((await db.execute(sql`select content from chapters where id = ${chapterIds[1]}`)).rows[0].content),
      'youtube-nocookie.com/embed/dQw4w9WgXcQ',
      `${lang}: the video is saved in the chapter`,
    );

    // A chapter quiz and the final exam.
    for (const url of [`/dashboard/studio/quizzes/chapter/${chapterIds[0]}`, `/dashboard/studio/quizzes/final/${courseId}`]) {
      await page.goto(`${lmsUrl}${url}`);
      await page.locator('#f-name').fill(url.includes('final') ? 'Ujian akhir' : 'Kuis bab 1');
      await page.locator('#f-q0_type').selectOption('multiple_choice');
      await page.locator('#f-q0_text').fill('Apa tujuan audit forensik?');
      await page.locator('#f-q0_options').fill('Mengumpulkan bukti\nMenjual produk');
      await page.locator('#f-q0_right').fill('1');
      await page.locator('#f-q0_explanation').fill('Audit forensik mengumpulkan bukti.');
      if (!url.includes('final')) await shoot(page, `studio-${lang}-quiz`);
      await page.locator('button[value="save"]').click();
      await page.waitForURL(/saved=1/);
    }

    // Settings: free and open; publishing is refused until the event code is set.
    await page.goto(`${lmsUrl}/dashboard/studio/courses/${courseId}/settings`);
    await page.locator('#f-description').fill('Dasar-dasar audit forensik.');
    await page.locator('#f-isPurchasable').uncheck();
    await page.locator('#f-enrollmentType').selectOption('open');
    // The course's credit is left alone: an admin records it as an accreditation (docs/authoring.md).
    await shoot(page, `studio-${lang}-settings`);
    await submit(page, `/courses/${courseId}/settings`);
    await page.waitForURL(/saved=1/);
    await page.goto(`${lmsUrl}/dashboard/studio/courses/${courseId}`);
    await submit(page, `/courses/${courseId}/publish`);
    await page.waitForURL(/published=0/);
    const eventRule = page.locator('li[data-rule="eventCode"]');
    t.equal(await eventRule.getAttribute('data-ok'), 'false', `${lang}: publishing refused without an event code`);
    await eventRule.locator('a').click();
    await page.waitForURL(/settings#prices/);
    await page.locator('#f-eventCode').fill(`EV-${lang}`);
    await submit(page, `/courses/${courseId}/settings`);
    await page.waitForURL(/saved=1/);
    await page.goto(`${lmsUrl}/dashboard/studio/courses/${courseId}`);
    await submit(page, `/courses/${courseId}/publish`);
    await page.waitForURL(/published=1/);
    t.ok(await page.locator('form[action$="/unpublish"]').isVisible(), `${lang}: published`);
    await context.close();

    // A member (through the demo partner) finds it in the catalog with its cover, enrols and takes it to the certificate.
    const w = WORDS[lang];
    const who = MEMBERS[lang];
    const { context: memberContext, page: m } = await signIn(who, lang);
    await m.goto(`${lmsUrl}/dashboard/catalog`);
    const card = m.locator('li.card', { hasText: courseName });
    const cover = card.locator('img.cover');
    await cover.waitFor();
    t.ok(await cover.evaluate((img) => (img as HTMLImageElement).naturalWidth > 0), `${lang}: the catalog shows the cover`);
    await card.locator('h3 a').click();
    await m.locator('section[aria-labelledby="enrol"] form button').first().click();
    await m.waitForURL(/enrol=enrolled/);
    const [member] = await db.select().from(users).where(eq(users.email, who.email));
    t.ok(
      (await db.execute(sql`select 1 from enrollments where user_id = ${member!.id} and course_id = ${courseId}`)).rows.length === 1,
      `${lang}: the member is enrolled`,
    );
    const coursePage = `${lmsUrl}/dashboard/courses/${courseId}`;
    for (const [i, chapter] of ['Bab 1', 'Bab 2'].entries()) {
      await m.goto(coursePage);
      await m.getByRole('link', { name: chapter, exact: true }).click();
      await m.getByRole('heading', { level: 1, name: chapter }).waitFor();
      if (i === 0) {
        const shown = m.locator('article img').first();
        await shown.waitFor();
        t.ok(await shown.evaluate((img) => (img as HTMLImageElement).naturalWidth > 0), `${lang}: the chapter shows its picture`);
      } else {
        await m.locator('iframe[src^="https://www.youtube-nocookie.com/embed/"]').waitFor({ state: 'attached' });
      }
      await m.getByRole('button', { name: w.markComplete }).click();
      await m.getByText(w.completed, { exact: true }).waitFor();
      if (i === 0) {
        // The chapter quiz opens the next chapter.
        await m.getByRole('link', { name: w.takeQuiz }).click();
        await m.getByRole('button', { name: w.start }).click();
        await m.waitForURL(/\/learn\/quiz-attempts\/\d+$/);
        await m.getByRole('radio', { name: 'Mengumpulkan bukti' }).check();
        await m.getByRole('button', { name: w.submit }).click();
        await m.getByText(w.passed, { exact: true }).waitFor();
      }
    }
    t.equal(
      Number(
        (
          await db.execute(
            sql`select count(*)::int as n from chapter_completions where user_id = ${member!.id} and course_id = ${courseId}`,
          )
        ).rows[0]!.n,
      ),
      2,
      `${lang}: every chapter completed`,
    );
    await m.goto(coursePage);
    await m
      .getByRole('link', { name: /Ujian akhir/ })
      .first()
      .click();
    await m.getByRole('button', { name: w.start }).click();
    await m.getByRole('radio', { name: 'Mengumpulkan bukti' }).check();
    await m.getByRole('button', { name: w.submit }).click();
    await m.getByText(w.passed, { exact: true }).waitFor();
    await m.getByRole('link', { name: w.viewCertificate }).click();
    await m.getByRole('heading', { name: w.certificate }).waitFor();
    const certificate = await m.locator('main').innerText();
    t.match(certificate, who.name, `${lang}: the certificate names the member`);
    t.match(certificate, courseName, `${lang}: and the course`);
    await shoot(m, `studio-${lang}-certificate`);
    await memberContext.close();
  }
});
