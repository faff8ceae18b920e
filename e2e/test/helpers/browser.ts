import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { Test } from 'tap';

/** Debian's chromium; never a downloaded browser. `.ci/run` installs it with apt-get. */
export const CHROMIUM = '/usr/bin/chromium';

/** Where the screenshots go (gitignored). */
export const OUTPUT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-output');

/**
 * A headless chromium closed with the test. Missing chromium is a failure with the fix in its
 * message, never a skip: these tests are the only proof that the pages work in a browser.
 */
export async function launchBrowser(t: Test): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser tests`);
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  t.teardown(() => browser.close());
  await mkdir(OUTPUT_DIR, { recursive: true });
  return browser;
}

/** Saves a full-page screenshot as test-output/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(OUTPUT_DIR, `${name}.png`), fullPage: true });
}
