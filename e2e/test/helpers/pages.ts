import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Db, generateSessionToken, sessions } from '@lms/db';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Test } from 'tap';

// What the browser tests share beyond launching chromium (./browser.ts): a page signed in as a
// user, a member signed in through the demo partner's form, a download kept as a file, and a
// command's output (pdftotext, lms-admin).

const execFileAsync = promisify(execFile);

/** A command's output, its exit code kept (no throw): the LMS runs in this process, so never spawnSync. */
export async function run(file: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await execFileAsync(file, args, { encoding: 'utf8', env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** A PDF's text as poppler's pdftotext reads it (another reader than the LMS's own pdf.js), spaces collapsed. */
export async function pdfText(path: string): Promise<string> {
  return (await run('pdftotext', ['-layout', path, '-'])).stdout.replace(/\s+/g, ' ');
}

/** Clicks a download link and keeps the file: its suggested name, path and bytes. */
export async function download(page: Page, link: Locator) {
  const [file] = await Promise.all([page.waitForEvent('download'), link.click()]);
  const path = await file.path();
  return { name: file.suggestedFilename(), path, bytes: await readFile(path) };
}

/** A browser page signed in as the user (a session made in the database), in the language. */
export async function signedIn(
  browser: Browser,
  lmsUrl: string,
  cookieName: string,
  db: Db,
  userId: string,
  lang: string,
  width = 1280,
): Promise<Page> {
  const { token, tokenHash } = generateSessionToken();
  await db.insert(sessions).values({ tokenHash, userId, expiresAt: new Date(Date.now() + 3_600_000) });
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  await context.addCookies([
    { name: 'lms_lang', value: lang, url: lmsUrl },
    { name: cookieName, value: token, url: lmsUrl },
  ]);
  return context.newPage();
}

/**
 * Signs a member in as a person would: the demo partner's form, then the gateway and the LMS's SSO
 * callback, ending on the LMS's dashboard. `tier` is chosen on the form when given.
 */
export async function signInThroughPartner(
  page: Page,
  partnerUrl: string,
  lmsUrl: string,
  who: { email: string; name: string; membershipId: string; tier?: string },
): Promise<void> {
  await page.goto(`${partnerUrl}/`);
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Name').fill(who.name);
  await page.getByLabel('Membership ID').fill(who.membershipId);
  if (who.tier !== undefined) await page.getByLabel('Tier').selectOption(who.tier);
  await page.getByRole('button', { name: 'Go to the courses' }).click();
  await page.waitForURL(`${lmsUrl}/dashboard`);
}

/** Where a browser test writes its screenshots: SCREENSHOT_DIR (made if missing), else a new temp dir; said in the output. */
export async function screenshotDir(t: Test, prefix: string): Promise<string> {
  const shots = process.env.SCREENSHOT_DIR || (await mkdtemp(path.join(tmpdir(), `${prefix}-`)));
  await mkdir(shots, { recursive: true });
  t.comment(`screenshots in ${shots}`);
  return shots;
}
