import path from 'node:path';
import { certificates, courses, enrollments, purchases, users } from '@lms/db';
import { and, eq, isNotNull } from 'drizzle-orm';
import t from 'tap';
import { axeViolations, describeFindings } from '../helpers/axe.js';
import { launchBrowser } from '../helpers/browser.js';
import { screenshotDir, signInThroughPartner } from '../helpers/pages.js';
import { startSeededDemo } from '../helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium; the SQL behind them runs on both backends in apps/lms's page tests.

// Every link a page offers works, for each role and in both languages. On the demo data, a
// member, a teacher and an admin sign in through the demo partner (the staff by the operator's
// link of the seed), then every same-origin GET link their pages offer is followed, breadth first
// and bounded: no answer may be a 4xx or 5xx, at 390 px no page may be wider than the screen, and
// axe-core finds no serious or critical WCAG 2.2 AA violation on any page (../helpers/axe.ts).
// The crawl knows no page by name: new pages are covered once a page links to them. Screenshots
// of the first page of each kind at 1280 and 390 px go to SCREENSHOT_DIR (default: a temp dir).

// Three roles in two languages, each crawl with axe-core on every page: about a minute each.
t.setTimeout(900_000);

/** Pages visited per role and language, and per kind of page (the path with its ids as :id). */
const MAX_PAGES = 70;
const PER_KIND = 2;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** Links the crawl does not follow: they end the session or switch the language, not pages to check. */
const SKIP = [/\/sign-out/, /\/logout/, /^\/language/, /[?&]lang=/];

/** The kind of a page: its path with every numeric or code-like segment as :id, and its query's names. */
function kindOf(url: URL): string {
  const pathKind = url.pathname
    .split('/')
    .map((s) => (/^\d+$/.test(s) || /^[A-Za-z0-9_-]{16,}$/.test(s) ? ':id' : s))
    .join('/');
  return `${pathKind}?${[...url.searchParams.keys()].sort().join('&')}`;
}

interface Visit {
  url: string;
  from: string;
  /** The link had the `download` attribute. */
  download: boolean;
}

t.test('every link a member, a teacher and an admin are offered answers, in both languages, and fits a phone', async (t) => {
  t.setTimeout(900_000);
  const shots = await screenshotDir(t, 'lms-crawl-shots');
  const now = new Date();
  const { lmsUrl, db, partnerUrl } = await startSeededDemo(t, now);

  const browser = await launchBrowser(t);
  const [someCourse] = await db
    .select({ id: courses.id, teacherId: courses.teacherId })
    .from(courses)
    .where(and(eq(courses.isPublished, true), isNotNull(courses.eventCode)))
    .limit(1);

  const roles = [
    { role: 'member', email: 'crawl.member@example.org', name: 'Crawl Member', membershipId: 'CRAWL-0001', tier: 'umum' },
    { role: 'teacher', email: 'teacher@demo.lms', name: 'Demo Teacher', membershipId: 'STAFF-001', tier: 'member' },
    { role: 'admin', email: 'admin@demo.lms', name: 'Demo Admin', membershipId: 'STAFF-003', tier: 'member' },
  ] as const;

  for (const who of roles) {
    for (const lang of ['id', 'en'] as const) {
      await t.test(`${who.role} (${lang})`, async (t) => {
        const context = await browser.newContext({ viewport: PHONE });
        t.teardown(() => context.close());
        await context.addCookies([{ name: 'lms_lang', value: lang, url: lmsUrl }]);
        const page = await context.newPage();
        await signInThroughPartner(page, partnerUrl, lmsUrl, who);
        if (who.role === 'member') await giveTheMemberSomething(who.email);

        const seen = new Set<string>();
        const perKind = new Map<string, number>();
        const shot = new Set<string>();
        const queue: Visit[] = [{ url: `${lmsUrl}/dashboard`, from: '(start)', download: false }];
        const bad: string[] = [];
        const wide: string[] = [];
        const inaccessible: string[] = [];
        let visited = 0;
        while (queue.length > 0 && visited < MAX_PAGES) {
          const { url, from, download } = queue.shift()!;
          visited += 1;
          // A download (a link with the `download` attribute: the learners' CSV, a certificate's PDF
          // or credential, the credit record) is fetched with the page's cookies, not navigated to.
          if (download) {
            const file = await page.request.get(url);
            if (file.status() >= 400) bad.push(`${file.status()} ${url} (linked from ${from})`);
            const type = file.headers()['content-type'] ?? '';
            if (type.includes('text/html')) bad.push(`a download answered a page: ${url} (linked from ${from})`);
            if (!/^attachment/.test(file.headers()['content-disposition'] ?? ''))
              bad.push(`not an attachment: ${url} (linked from ${from})`);
            continue;
          }
          const res = await page.goto(url);
          const status = res?.status() ?? 0;
          if (status >= 400 || status === 0) bad.push(`${status} ${url} (linked from ${from})`);
          const landed = new URL(page.url());
          if (landed.origin === lmsUrl && landed.pathname === '/sign-in') bad.push(`signed out at ${url} (linked from ${from})`);
          if (!(res?.headers()['content-type'] ?? '').includes('text/html')) continue;
          const width = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
          if (width[0]! > width[1]!) wide.push(`${url}: ${width[0]} px wide at ${width[1]} px`);
          // Cut off: something a person reads or presses that lies past the screen's edge (inside a
          // clipping or scrolling box, where scrollWidth does not show it).
          const cut = await page.evaluate(() => {
            const out: string[] = [];
            for (const el of Array.from(
              document.querySelectorAll('main button, main input, main select, main a, main td, main code, main dd'),
            )) {
              const box = el.getBoundingClientRect();
              if (box.width === 0 || box.height === 0 || el.closest('.sr-only')) continue;
              if (box.right > window.innerWidth + 1 || box.left < -1)
                out.push(`<${el.tagName.toLowerCase()}> ${(el.textContent ?? '').trim().slice(0, 40)}`);
            }
            return out.slice(0, 3);
          });
          if (cut.length > 0) wide.push(`${url}: cut off at ${PHONE.width} px: ${cut.join(', ')}`);
          inaccessible.push(...describeFindings(url, await axeViolations(page)));
          const kind = kindOf(new URL(url));
          if (!shot.has(kind)) {
            shot.add(kind);
            const name = `${who.role}-${lang}-${kind.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '') || 'root'}`;
            await page.screenshot({ path: path.join(shots, `${name}-390.png`), fullPage: true });
            await page.setViewportSize(DESKTOP);
            await page.screenshot({ path: path.join(shots, `${name}-1280.png`), fullPage: true });
            await page.setViewportSize(PHONE);
          }
          const links = await page.$$eval('a[href]', (as) =>
            as.map((a) => [(a as HTMLAnchorElement).href, a.hasAttribute('download')] as const),
          );
          for (const [link, download] of links) {
            let target: URL;
            try {
              target = new URL(link);
            } catch {
              continue;
            }
            if (target.origin !== lmsUrl) continue;
            target.hash = '';
            const path = `${target.pathname}${target.search}`;
            if (SKIP.some((re) => re.test(path))) continue;
            const key = target.toString();
            if (seen.has(key)) continue;
            seen.add(key);
            const k = kindOf(target);
            const n = perKind.get(k) ?? 0;
            if (n >= PER_KIND) continue;
            perKind.set(k, n + 1);
            queue.push({ url: key, from: url, download });
          }
        }
        t.ok(visited >= 5, `${visited} pages crawled (${perKind.size} kinds)`);
        t.same(bad, [], 'no link answers 4xx/5xx or signs the person out');
        t.same(wide, [], 'no page is wider than a 390 px screen');
        t.same(inaccessible, [], 'axe-core: no serious or critical WCAG 2.2 AA violation on any page');
      });
    }
  }

  /** A course with a certificate and a purchase waiting for payment: their pages are linked from the dashboard. */
  async function giveTheMemberSomething(email: string) {
    const [member] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
    if (!member || !someCourse) return;
    await db.insert(enrollments).values({ userId: member.id, courseId: someCourse.id }).onConflictDoNothing();
    await db.insert(certificates).values({ userId: member.id, courseId: someCourse.id }).onConflictDoNothing();
    const [paid] = await db
      .select({ id: courses.id })
      .from(courses)
      .where(and(eq(courses.isPurchasable, true), eq(courses.isPublished, true), isNotNull(courses.eventCode)))
      .limit(1);
    if (paid && paid.id !== someCourse.id) {
      await db
        .insert(purchases)
        .values({
          userId: member.id,
          courseId: paid.id,
          amount: '100000',
          status: 'pending',
          reference: `LMS-CRAWL-${paid.id}`,
          expiresAt: new Date(now.getTime() + 86_400_000),
        })
        .onConflictDoNothing();
    }
  }
});
