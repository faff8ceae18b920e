import path from 'node:path';
import { courses, enrollments, notifications, purchases, users } from '@lms/db';
// @ts-expect-error -- the mail catcher is plain JavaScript, an example written to be copied.
import { createMailCatcher } from '@lms/example-mail-catcher';
import { DEMO_INSTITUTION } from '@lms/db/seed';
import { and, eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { launchBrowser } from '../helpers/browser.js';
import { screenshotDir, signedIn, signInThroughPartner } from '../helpers/pages.js';
import { startSeededDemo } from '../helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium; the SQL behind them runs on both backends in apps/lms's tests.

// The e-mail notifications end to end, in a browser, in Bahasa Indonesia and in English (the
// mail's language is the person's notification setting, default id). The demo mail catcher runs
// here on free ports and the LMS sends to it over SMTP. A member signs in through the demo
// partner, switches a reminder off for e-mail on /account/notifications (and picks English for
// the English run) and sees it kept after a reload; buys a paid course by transfer on its page;
// an admin of the demo confirms it on the transfers page; the "paid" mail is read on the
// catcher's page. Then a course.ending reminder: due at 7 days, it arrives with an unsubscribe
// link, which a browser without a session follows and confirms; due again at 1 day, its row ends
// skipped and the catcher gets nothing. Screenshots at 1280 and 390 px, none wider than the screen.

t.setTimeout(600_000);

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

interface CaughtMail {
  id: number;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: string[];
}

const catcher = await createMailCatcher({ smtpPort: 0, httpPort: 0 });
t.teardown(() => catcher.close());
const { lmsUrl, lms, db, partnerUrl } = await startSeededDemo(t, new Date(), { SMTP_URL: catcher.smtpUrl });
const browser = await launchBrowser(t);
const shots = await screenshotDir(t, 'lms-notification-shots');
const [admin] = await db.select({ id: users.id }).from(users).where(eq(users.email, 'admin@demo.lms'));

/** What the catcher holds for `to`, newest first, as its JSON API answers. */
async function mailsTo(to: string): Promise<CaughtMail[]> {
  const res = await fetch(new URL('/api/messages', catcher.pageUrl));
  return ((await res.json()) as CaughtMail[]).filter((m) => m.to.includes(to));
}

/** Polls until `found` answers something; a failure naming `what` after 60 s (the queue polls every 0.5 s). */
async function until<T>(what: string, found: () => Promise<T | undefined | null | false>): Promise<T> {
  const end = Date.now() + 60_000;
  for (;;) {
    const value = await found();
    if (value) return value;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A screenshot at 1280 and at 390 px, each checked for sideways scrolling. */
async function photograph(t: Test, page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    t.ok(wide <= width, `${name}: ${wide} px wide at ${width} px`);
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

const RUNS = [
  {
    lang: 'id',
    course: 'AKT-302',
    who: { email: 'mail.anggota@example.org', name: 'Anggota Surel', membershipId: 'MAIL-0001', tier: 'member' },
    paid: 'Pembayaran diterima: ',
    open: 'Buka kursus',
    ending: 'berakhir dalam',
    unsubscribe: 'Berhenti menerima e-mail seperti ini',
    unsubscribed: 'Anda tidak lagi menerima "Kursus hampir berakhir" lewat Email.',
    page: { buy: 'Beli (transfer bank)', save: 'Simpan pengaturan', saved: 'Pengaturan disimpan.', stop: 'Ya, berhenti' },
    admin: { confirm: 'Ya, dana sudah diterima: konfirmasi' },
  },
  {
    lang: 'en',
    course: 'PJK-202',
    who: { email: 'mail.member@example.org', name: 'Mail Member', membershipId: 'MAIL-0002', tier: 'member' },
    paid: 'Payment received: ',
    open: 'Open the course',
    ending: 'ends in',
    unsubscribe: 'Stop receiving e-mails like this',
    unsubscribed: 'You no longer receive "Course ending soon" by E-mail.',
    page: { buy: 'Buy (bank transfer)', save: 'Save the settings', saved: 'Settings saved.', stop: 'Yes, stop' },
    admin: { confirm: 'Yes, the money arrived: confirm' },
  },
] as const;

for (const run of RUNS) {
  await t.test(`the e-mails of a purchase and a reminder, in ${run.lang}`, async (t) => {
    const [course] = await db.select({ id: courses.id, name: courses.name }).from(courses).where(eq(courses.courseCode, run.course));
    const courseUrl = `${lmsUrl}/dashboard/courses/${course!.id}`;

    // The member, signed in through the demo partner, in the run's language.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    t.teardown(() => context.close());
    await context.addCookies([{ name: 'lms_lang', value: run.lang, url: lmsUrl }]);
    const member = await context.newPage();
    await signInThroughPartner(member, partnerUrl, lmsUrl, run.who);
    const [me] = await db.select({ id: users.id }).from(users).where(eq(users.email, run.who.email));

    // Settings: the study reminder off for e-mail; English chosen for the English run. Kept after a reload.
    await member.goto(`${lmsUrl}/account/notifications`);
    const inactiveByMail = member.locator('input[name="on:course.inactive:email"]');
    t.ok(await inactiveByMail.isChecked(), 'the study reminder comes by e-mail until switched off');
    t.equal(await member.locator('#locale').inputValue(), 'id', 'the messages are in Bahasa Indonesia by default');
    await inactiveByMail.uncheck();
    await member.locator('#locale').selectOption(run.lang);
    await member.getByRole('button', { name: run.page.save }).click();
    await member.waitForURL(`${lmsUrl}/account/notifications?done=saved`);
    t.equal(await member.getByRole('status').innerText(), run.page.saved, 'the page says the settings were saved');
    await photograph(t, member, `settings-${run.lang}`);
    await member.reload();
    t.notOk(await member.locator('input[name="on:course.inactive:email"]').isChecked(), 'the study reminder stays off after a reload');
    t.ok(await member.locator('input[name="on:course.ending:email"]').isChecked(), 'the course-ending reminder is still on');
    t.equal(await member.locator('#locale').inputValue(), run.lang, 'the language of the messages is kept');

    // The purchase by transfer, on the course page: the instructions name the reference.
    await member.goto(courseUrl);
    await member.getByRole('button', { name: run.page.buy }).click();
    await member.waitForURL((url) => url.pathname === `/dashboard/courses/${course!.id}`);
    const [purchase] = await db
      .select({ id: purchases.id, reference: purchases.reference, status: purchases.status })
      .from(purchases)
      .where(and(eq(purchases.userId, me!.id), eq(purchases.courseId, course!.id)));
    t.equal(purchase?.status, 'pending', 'the purchase waits for the transfer');
    const instructions = member.locator('dl.transfer');
    const shown = await instructions.locator('dd code').allInnerTexts();
    t.same(
      shown,
      [DEMO_INSTITUTION.transferAccountNumber, purchase!.reference],
      'the transfer instructions name the account and the reference',
    );

    // An admin of the demo institution confirms it on the transfers page.
    const adminPage = await signedIn(browser, lmsUrl, lms.app.sessionCookieName, db, admin!.id, run.lang);
    t.teardown(() => adminPage.context().close());
    await adminPage.goto(`${lmsUrl}/dashboard/transfers?reference=${encodeURIComponent(purchase!.reference!)}`);
    await adminPage.locator(`a[href="/dashboard/purchases/${purchase!.id}/confirm"]`).click();
    await adminPage.getByRole('button', { name: run.admin.confirm }).click();
    await adminPage.waitForURL((url) => url.pathname === '/dashboard/transfers');
    const [decided] = await db.select({ status: purchases.status }).from(purchases).where(eq(purchases.id, purchase!.id));
    t.equal(decided?.status, 'paid', 'the purchase is paid');

    // The "paid" mail on the catcher's page, in the member's language, with the course's link.
    const paidSubject = `${run.paid}${course!.name}`;
    await until('the paid mail in the catcher', async () => (await mailsTo(run.who.email)).find((m) => m.subject === paidSubject));
    const outbox = await context.newPage();
    await outbox.goto(catcher.pageUrl);
    await photograph(t, outbox, `catcher-list-${run.lang}`);
    await outbox.getByRole('link', { name: paidSubject }).click();
    await outbox.waitForURL(/\/messages\/\d+$/);
    t.equal(await outbox.getByRole('heading', { level: 1 }).innerText(), paidSubject, 'the message page shows the subject');
    const text = await outbox.locator('pre').first().innerText();
    t.match(text, run.open, `the text says "${run.open}"`);
    t.match(text, courseUrl, 'the text links to the course');
    const body = outbox.frameLocator('iframe');
    t.equal(await body.locator(`a[href="${courseUrl}"]`).first().innerText(), run.open, 'the HTML part has the button to the course');
    t.equal(await body.locator('html').getAttribute('lang'), run.lang, 'the HTML part is in the language');
    await photograph(t, outbox, `catcher-paid-${run.lang}`);
    const opened = await member.goto(courseUrl);
    t.equal(opened?.status(), 200, "the mail's link opens the course page for the member");

    // A course.ending reminder due at 7 days: sent, with an unsubscribe link.
    const [enrolment] = await db
      .select({ id: enrollments.id })
      .from(enrollments)
      .where(and(eq(enrollments.userId, me!.id), eq(enrollments.courseId, course!.id)));
    t.ok(enrolment, 'the confirmed purchase enrolled the member');
    await db
      .update(courses)
      .set({ endDate: new Date(Date.now() + 7 * DAY_MS - HOUR_MS) })
      .where(eq(courses.id, course!.id));
    await lms.app.scanReminders();
    const reminder = await until('the 7-day reminder in the catcher', async () =>
      (await mailsTo(run.who.email)).find((m) => m.subject.startsWith(course!.name) && m.subject.includes(run.ending)),
    );
    t.ok(
      reminder.headers.some((h) => /^list-unsubscribe:/i.test(h)),
      'the reminder carries a List-Unsubscribe header',
    );
    await outbox.goto(catcher.pageUrl);
    // The demo's own learners of the course get theirs too: this member's message, by its id.
    await outbox.locator(`a[href="/messages/${reminder.id}"]`).click();
    await outbox.waitForURL(/\/messages\/\d+$/);
    const reminderText = await outbox.locator('pre').first().innerText();
    const link = new RegExp(`${run.unsubscribe}:\\s*(\\S+)`).exec(reminderText)?.[1];
    t.match(link, `${lmsUrl}/notifications/unsubscribe?token=`, 'the text part ends with the unsubscribe link');
    await photograph(t, outbox, `catcher-reminder-${run.lang}`);

    // A browser without a session follows it and confirms.
    const stranger = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    t.teardown(() => stranger.close());
    const unsubscribe = await stranger.newPage();
    await unsubscribe.goto(link!);
    await photograph(t, unsubscribe, `unsubscribe-${run.lang}`);
    await unsubscribe.getByRole('button', { name: run.page.stop }).click();
    t.equal(await unsubscribe.getByRole('status').innerText(), run.unsubscribed, 'the page says it is off');
    await photograph(t, unsubscribe, `unsubscribed-${run.lang}`);
    await member.goto(`${lmsUrl}/account/notifications`);
    t.notOk(await member.locator('input[name="on:course.ending:email"]').isChecked(), 'the settings page shows it off');

    // Due again at 1 day: recorded, then skipped; the catcher gets nothing more.
    const before = (await mailsTo(run.who.email)).length;
    await db
      .update(courses)
      .set({ endDate: new Date(Date.now() + DAY_MS - HOUR_MS) })
      .where(eq(courses.id, course!.id));
    await lms.app.scanReminders();
    const key = `course.ending:enrollment:${enrolment!.id}:1d`;
    const row = await until('the 1-day reminder to be decided', async () => {
      const [found] = await db
        .select({ state: notifications.state, lastError: notifications.lastError })
        .from(notifications)
        .where(and(eq(notifications.key, key), eq(notifications.channel, 'email')));
      return found && found.state !== 'pending' ? found : null;
    });
    t.equal(row.state, 'skipped', 'the 1-day reminder is skipped');
    t.equal(row.lastError, 'switched off by the person', 'because the person switched it off');
    t.equal((await mailsTo(run.who.email)).length, before, 'no new mail in the catcher');
  });
}
