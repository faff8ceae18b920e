import { DEMO_TEACHER_EMAIL, seedDemo } from '@lms/db/seed';
import { sql } from 'drizzle-orm';
import type { Locator, Page } from 'playwright-core';
import t from 'tap';
import { launchBrowser } from '../helpers/browser.js';
import { signInThroughPartner } from '../helpers/pages.js';
import { freePort, startDemoPartner, startLms } from '../helpers/services.js';
import { solidPng } from '../helpers/png.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium.

// The studio's enhancements in a real browser, in both languages: the demo teacher builds the
// course of course-studio.test.ts (two modules with a chapter each, a picture in chapter 1 and a
// video in chapter 2 both put at the cursor, a chapter quiz, a final exam, a cover, an event code,
// published) in at most 25 clicks, counted here (every click, link or button; typing is not a
// click); then leaves a chapter with unsaved text through the Pictures link and is warned
// (the beforeunload dialog), and reorders the chapters with the keyboard (no reload).

const MAX_CLICKS = 25;
const WORDS = {
  en: { newCourse: 'New course', outline: 'Outline', pictures: 'Pictures', settings: 'Settings', overview: 'Overview' },
  id: { newCourse: 'Kursus baru', outline: 'Kerangka', pictures: 'Gambar', settings: 'Pengaturan', overview: 'Ringkasan' },
} as const;

t.test('a teacher builds a course in at most 25 clicks with the studio editor', async (t) => {
  const port = await freePort();
  const lmsUrl = `http://127.0.0.1:${port}`;
  const lms = await startLms(t, { PUBLIC_URL: lmsUrl }, port);
  const db = lms.db.db;
  const { partnerUrl } = await startDemoPartner(t, lmsUrl, db);
  await seedDemo(db);
  const browser = await launchBrowser(t);
  const png = solidPng(64, 32, [0x1f, 0x6f, 0x8b]);

  for (const lang of ['en', 'id'] as const) {
    const w = WORDS[lang];
    const courseName = lang === 'en' ? 'Forensic Audit (editor)' : 'Audit Investigasi (editor)';
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: 'lms_lang', value: lang, url: lmsUrl }]);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('response', (response) => {
      if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
    });
    await signInThroughPartner(page, partnerUrl, lmsUrl, { email: DEMO_TEACHER_EMAIL, name: 'Budi Santoso', membershipId: 'STAFF-001' });

    let clicks = 0;
    const click = async (target: Locator) => {
      clicks++;
      await target.click();
    };
    const tab = (name: string) => page.locator('nav.studio-tabs').getByRole('link', { name, exact: true });
    const saveButton = page.locator('button[value="save"]');

    await click(page.getByRole('link', { name: w.newCourse }));
    await page.locator('#f-name').fill(courseName);
    await click(page.locator('form[action="/dashboard/studio/new"] button'));
    await page.waitForURL(/\/dashboard\/studio\/courses\/\d+$/);
    const courseId = Number(page.url().match(/(\d+)$/)?.[1]);

    // Outline: two modules, a chapter in each.
    await click(tab(w.outline));
    for (const name of ['Modul 1', 'Modul 2']) {
      await page.locator(`form[action$="/courses/${courseId}/modules"] input[name="name"]`).fill(name);
      await click(page.locator(`form[action$="/courses/${courseId}/modules"] button`));
      await page.waitForURL(/outline\?saved=1/);
    }
    for (const [i, m] of (await ids(db, sql`select id from modules where course_id = ${courseId} order by order_index`)).entries()) {
      await page.locator(`form[action$="/modules/${m}/chapters"] input[name="name"]`).fill(`Bab ${i + 1}`);
      await click(page.locator(`form[action$="/modules/${m}/chapters"] button`));
      await page.waitForURL(/outline\?saved=1/);
    }
    const chapterIds = await ids(db, sql`select id from chapters where course_id = ${courseId} order by module_id, order_index`);

    // Chapter 1: typed, the cursor put between the two paragraphs, a picture uploaded from the toolbar.
    await click(page.getByRole('link', { name: 'Bab 1', exact: true }));
    const content = page.locator('#f-content');
    await content.focus();
    await page.keyboard.type('# Pengantar\n\nBacaan penting.\n\nPenutup.');
    await content.evaluate((area: HTMLTextAreaElement) =>
      area.setSelectionRange(area.value.indexOf('\n\nPenutup'), area.value.indexOf('\n\nPenutup')),
    );
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), click(page.locator('button[data-md="picture"]'))]);
    await chooser.setFiles({ name: 'sampul.png', mimeType: 'image/png', buffer: png });
    await page.waitForFunction(() => (document.querySelector('#f-content') as HTMLTextAreaElement).value.includes('/media/pictures/'));
    const withPicture = await content.inputValue();
    t.match(
      withPicture,
      /^# Pengantar\n\nBacaan penting\.\n\n!\[sampul\]\(\/media\/pictures\/[0-9a-f]{64}\.png\)\n\nPenutup\.$/,
      `${lang}: the picture is at the cursor`,
    );
    const previewPicture = page.locator('.chapter-preview img');
    await previewPicture.waitFor();
    t.ok(await previewPicture.evaluate((img) => (img as HTMLImageElement).complete), `${lang}: the live preview shows it`);
    await click(saveButton);
    await page.waitForURL(/saved=1/);

    // Chapter 1's quiz, from the chapter.
    await click(page.locator(`a[href="/dashboard/studio/quizzes/chapter/${chapterIds[0]}"]`));
    await fillQuiz(page, 'Kuis bab 1');
    await click(saveButton);
    await page.waitForURL(/saved=1/);

    // Chapter 2: a video at the cursor (the toolbar's button, the URL typed in its field).
    await click(tab(w.outline));
    await click(page.getByRole('link', { name: 'Bab 2', exact: true }));
    await content.focus();
    await page.keyboard.type('Sebelum.\n\nSesudah.');
    await content.evaluate((area: HTMLTextAreaElement) =>
      area.setSelectionRange(area.value.indexOf('\n\nSesudah'), area.value.indexOf('\n\nSesudah')),
    );
    await page.locator('#f-videoUrl').fill('https://youtu.be/dQw4w9WgXcQ');
    await click(page.locator('button[data-md="video"]'));
    await page.locator('.chapter-preview iframe[src^="https://www.youtube-nocookie.com/embed/"]').waitFor({ state: 'attached' });
    t.match(
      await content.inputValue(),
      /^Sebelum\.\n\n<iframe src="https:\/\/www\.youtube-nocookie\.com\/embed\/dQw4w9WgXcQ"[^\n]*><\/iframe>\n\nSesudah\.$/,
      `${lang}: the video is at the cursor, as the embed the renderer keeps`,
    );
    await click(saveButton);
    await page.waitForURL(/saved=1/);

    // The final exam.
    await click(tab(w.outline));
    await click(page.locator(`a[href="/dashboard/studio/quizzes/final/${courseId}"]`));
    await fillQuiz(page, 'Ujian akhir');
    await click(saveButton);
    await page.waitForURL(/saved=1/);

    // The cover, the event code (explained next to its field), then publish.
    await click(tab(w.pictures));
    await click(page.locator('form[action$="/cover"] button'));
    await page.waitForURL(/\/pictures$/);
    await click(tab(w.settings));
    t.match(await page.locator('#f-categoryId').evaluate((el) => el.tagName), 'SELECT', `${lang}: the category is a picker`);
    await page.locator('#f-eventCode').fill(`EV-ED-${lang}`);
    await click(page.locator(`form[action$="/courses/${courseId}/settings"] button[type="submit"]`));
    await page.waitForURL(/saved=1/);
    await click(tab(w.overview));
    await click(page.locator(`form[action$="/courses/${courseId}/publish"] button`));
    await page.waitForURL(/published=1/);
    t.ok(clicks <= MAX_CLICKS, `${lang}: the course is built and published in ${clicks} clicks (at most ${MAX_CLICKS})`);
    const [course] = (await db.execute(sql`select is_published, cover_picture from courses where id = ${courseId}`)).rows;
    t.equal(course?.is_published, true, `${lang}: published`);
    t.match(String(course?.cover_picture), '/media/pictures/', `${lang}: with its cover`);

    // Unsaved text, then the Pictures link: the browser asks first (beforeunload).
    await page.goto(`${lmsUrl}/dashboard/studio/chapters/${chapterIds[0]}`);
    await content.focus();
    await page.keyboard.press('End');
    await page.keyboard.type(' Belum disimpan.');
    const dialogs: string[] = [];
    page.once('dialog', async (dialog) => {
      dialogs.push(dialog.type());
      await dialog.dismiss();
    });
    await page.locator('section[aria-labelledby="pics"] a').first().click({ noWaitAfter: true });
    await page.waitForTimeout(500);
    t.same(dialogs, ['beforeunload'], `${lang}: leaving with unsaved text is warned`);
    t.match(page.url(), `/chapters/${chapterIds[0]}`, `${lang}: and stays when the teacher stays`);
    t.match(await content.inputValue(), 'Belum disimpan.', `${lang}: the text is still there`);
    // The draft survives a reload (localStorage), offered back.
    page.once('dialog', (dialog) => dialog.accept());
    await page.reload();
    await page.waitForFunction(() => (document.querySelector('#f-content') as HTMLTextAreaElement).value.includes('Belum disimpan.'));
    t.pass(`${lang}: the unsaved draft is restored after a reload`);
    page.once('dialog', (dialog) => dialog.accept());
    await page.goto(`${lmsUrl}/dashboard/studio/courses/${courseId}/outline`);

    // Reorder with the keyboard: Modul 2 up, by Tab to its button and Enter; no reload.
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 1;
    });
    const up = page.locator('form.move button[aria-label*="Modul 2"]');
    await up.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('ol.modules > li h3')?.textContent === 'Modul 2');
    t.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 1, `${lang}: reordered without a reload`);
    t.same(
      (await db.execute(sql`select name from modules where course_id = ${courseId} order by order_index`)).rows.map((r) => r.name),
      ['Modul 2', 'Modul 1'],
      `${lang}: the new order is saved`,
    );
    t.ok(await page.evaluate(() => document.activeElement?.closest('form.move') !== null), `${lang}: the focus stays on a move button`);
    // A question added without a reload (the button no longer saves first), then saved with the rest.
    await page.goto(`${lmsUrl}/dashboard/studio/quizzes/chapter/${chapterIds[0]}`);
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 2;
    });
    await page.locator('button[value="more"]').click();
    await page.locator('#f-q1_text').waitFor();
    t.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 2, `${lang}: a question added without a reload`);
    t.equal(await page.locator('#f-q1_text').evaluate((el) => el === document.activeElement), true, `${lang}: its text has the focus`);
    await page.keyboard.type('Bukti audit harus relevan?');
    await page.locator('#f-q1_type').selectOption('true_false');
    t.equal(
      await page.locator('#f-q1_options').inputValue(),
      lang === 'en' ? 'True\nFalse' : 'Benar\nSalah',
      `${lang}: true/false prefilled`,
    );
    await page.locator('#f-q1_right').fill('1');
    await saveButton.click();
    await page.waitForURL(/saved=1/);
    t.equal(
      Number(
        (
          await db.execute(
            sql`select count(*)::int as n from questions q join quizzes z on z.id = q.quiz_id where z.chapter_id = ${chapterIds[0]}`,
          )
        ).rows[0]?.n,
      ),
      2,
      `${lang}: both questions saved`,
    );
    t.same(errors, [], `${lang}: no script errors`);
    await context.close();
  }
});

async function ids(db: Awaited<ReturnType<typeof startLms>>['db']['db'], query: ReturnType<typeof sql>): Promise<number[]> {
  return (await db.execute(query)).rows.map((r) => Number(r.id));
}

/** A quiz of one multiple-choice question (the default kind): typing only, no clicks. */
async function fillQuiz(page: Page, name: string): Promise<void> {
  await page.locator('#f-name').fill(name);
  await page.locator('#f-q0_text').fill('Apa tujuan audit forensik?');
  await page.locator('#f-q0_options').fill('Mengumpulkan bukti\nMenjual produk');
  await page.locator('#f-q0_right').fill('1');
}
