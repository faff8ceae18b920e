import path from 'node:path';
import { certificates, chapters, courses, enrollments, modules, purchases, users } from '@lms/db';
import { DEMO_QUICK_COURSE } from '@lms/db/seed';
import { and, asc, eq, isNotNull, ne } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import t from 'tap';
import { axeViolations, describeFindings } from '../helpers/axe.js';
import { launchBrowser } from '../helpers/browser.js';
import { screenshotDir, signInThroughPartner } from '../helpers/pages.js';
import { startSeededDemo } from '../helpers/services.js';

// The pages a review looks at, photographed at a phone's, a tablet's and a laptop's width: the
// studio (course outline and chapter editor), a quiz being taken, the transfers table and a
// certificate, in Bahasa Indonesia (the longer words). The files go to SCREENSHOT_DIR (default: a
// temp dir, printed), named <page>-<width>.png. At each width no page scrolls sideways, the quiz's
// radio buttons sit beside their answers, no amount breaks across lines, and axe-core finds no
// serious or critical WCAG 2.2 AA violation.

const WIDTHS = [390, 768, 1280] as const;

t.test('the studio, a quiz, the transfers table and a certificate at 390, 768 and 1280 px', async (t) => {
  t.setTimeout(600_000);
  const shots = await screenshotDir(t, 'lms-shots');
  const now = new Date();
  const { lmsUrl, db, partnerUrl } = await startSeededDemo(t, now);
  const browser = await launchBrowser(t);

  async function as(who: { email: string; name: string; membershipId: string; tier?: string }): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    t.teardown(() => context.close());
    await context.addCookies([{ name: 'lms_lang', value: 'id', url: lmsUrl }]);
    const page = await context.newPage();
    await signInThroughPartner(page, partnerUrl, lmsUrl, who);
    return page;
  }

  const taken: string[] = [];
  const problems: string[] = [];
  /** The page at each width: a full-page picture, and what a person would stumble on. */
  async function photograph(page: Page, name: string) {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const file = path.join(shots, `${name}-${width}.png`);
      await page.screenshot({ path: file, fullPage: true });
      taken.push(path.basename(file));
      const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      if (scroll! > inner!) problems.push(`${name} at ${width} px: ${scroll} px wide`);
      // An amount is one line: its box is no taller than one line of its text.
      const broken = await page.$$eval('.amount', (els) =>
        els.filter((el) => el.getClientRects().length > 1).map((el) => el.textContent ?? ''),
      );
      if (broken.length > 0) problems.push(`${name} at ${width} px: amounts broken across lines: ${broken.join(', ')}`);
      // A radio button or checkbox sits right beside its words (never above them, nor a column away).
      const apart = await page.$$eval('label:has(> input[type=radio]), label:has(> input[type=checkbox])', (labels) =>
        labels.flatMap((label) => {
          const box = label.querySelector('input')!.getBoundingClientRect();
          const words = label.querySelector('span')?.getBoundingClientRect();
          if (!words || box.width === 0) return [];
          const gap = words.left - box.right;
          return gap < 0 || gap > 16 || words.top > box.bottom
            ? [`${(label.textContent ?? '').trim().slice(0, 30)} (${Math.round(gap)} px)`]
            : [];
        }),
      );
      if (apart.length > 0) problems.push(`${name} at ${width} px: a choice away from its words: ${apart.join(', ')}`);
    }
    problems.push(...describeFindings(name, await axeViolations(page)));
  }

  // The studio: the demo teacher's course outline and its first chapter in the editor.
  const teacher = await as({ email: 'teacher@demo.lms', name: 'Demo Teacher', membershipId: 'STAFF-001', tier: 'member' });
  const [teacherRow] = await db.select({ id: users.id }).from(users).where(eq(users.email, 'teacher@demo.lms'));
  const [own] = await db
    .select({ id: courses.id })
    .from(courses)
    .where(eq(courses.teacherId, teacherRow!.id))
    .orderBy(asc(courses.id))
    .limit(1);
  t.ok(own, 'the demo teacher has a course');
  await teacher.goto(`${lmsUrl}/dashboard/studio/courses/${own!.id}/outline`);
  await photograph(teacher, 'studio-outline');
  const [chapter] = await db
    .select({ id: chapters.id })
    .from(chapters)
    .innerJoin(modules, eq(chapters.moduleId, modules.id))
    .where(eq(modules.courseId, own!.id))
    .orderBy(asc(chapters.id))
    .limit(1);
  await teacher.goto(`${lmsUrl}/dashboard/studio/chapters/${chapter!.id}`);
  await photograph(teacher, 'studio-chapter');

  // A quiz being taken: a member enrols in the quick course with its code, reads the first chapter and starts its quiz.
  const memberWho = { email: 'layar.anggota@example.org', name: 'Layar Anggota', membershipId: 'SHOT-0001', tier: 'umum' };
  const member = await as(memberWho);
  const [quick] = await db.select().from(courses).where(eq(courses.courseCode, DEMO_QUICK_COURSE.code));
  await member.goto(`${lmsUrl}/dashboard/courses/${quick!.id}`);
  await member.getByLabel('Kode pendaftaran').fill('COBA-DEMO');
  await member.getByRole('button', { name: 'Daftar', exact: true }).click();
  await member.getByText('Anda sudah terdaftar. Selamat belajar!').waitFor();
  await member.getByRole('link', { name: 'Apa itu etika profesi', exact: true }).click();
  await member.getByRole('button', { name: 'Tandai selesai' }).click();
  await member.getByRole('link', { name: 'Kerjakan kuis bab ini' }).click();
  await member.getByRole('button', { name: 'Mulai mengerjakan' }).click();
  await member.waitForURL(/\/learn\/quiz-attempts\/\d+$/);
  t.ok(await member.locator('fieldset.question input[type=radio]').count(), 'the quiz asks with radio buttons');
  await photograph(member, 'quiz');

  // A certificate of another course, and purchases waiting for a transfer (a long name among them).
  const [account] = await db.select({ id: users.id }).from(users).where(eq(users.email, memberWho.email));
  const paid = await db
    .select({ id: courses.id })
    .from(courses)
    .where(and(eq(courses.isPurchasable, true), eq(courses.isPublished, true), isNotNull(courses.eventCode), ne(courses.id, quick!.id)))
    .orderBy(asc(courses.id))
    .limit(3);
  t.ok(paid.length >= 2, 'the demo sells courses');
  await db.insert(enrollments).values({ userId: account!.id, courseId: paid[0]!.id });
  await db.insert(certificates).values({ userId: account!.id, courseId: paid[0]!.id });
  await member.goto(`${lmsUrl}/learn/certificates/${paid[0]!.id}`);
  await photograph(member, 'certificate');
  for (const [i, course] of paid.slice(1).entries())
    await db.insert(purchases).values({
      userId: account!.id,
      courseId: course.id,
      amount: i === 0 ? '12500000' : '350000',
      status: 'pending',
      reference: `LMS-SHOT-${course.id}`,
      expiresAt: new Date(now.getTime() + 86_400_000),
    });
  const admin = await as({ email: 'admin@demo.lms', name: 'Demo Admin', membershipId: 'STAFF-003', tier: 'member' });
  await admin.goto(`${lmsUrl}/dashboard/transfers`);
  t.ok(await admin.locator('table.responsive tbody tr').count(), 'the transfers table lists the waiting purchases');
  await photograph(admin, 'transfers');

  t.comment(`files: ${taken.join(' ')}`);
  t.equal(taken.length, 5 * WIDTHS.length, 'five pages at three widths');
  t.same(problems, [], 'no sideways scroll, no broken amount, no choice apart from its words, no serious axe finding');
});
