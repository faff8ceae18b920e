import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** The rules axe checks: WCAG 2.0, 2.1 and 2.2, levels A and AA. */
export const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** The impacts a page may not have: a person with a screen reader or low vision is stopped by them. */
const BLOCKING = new Set(['serious', 'critical']);

export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  /** Up to three of the elements it concerns, as CSS selectors. */
  targets: string[];
}

/**
 * Runs axe-core on the page as it stands and returns its serious and critical violations. The
 * pages' CSP forbids inline scripts, so the engine goes in by `page.evaluate` of its source (a
 * DevTools call, not a `<script>` the CSP would judge); nothing of the page is changed before the
 * check, and the engine is injected again after each navigation.
 */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  const loaded = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(axe.source);
  const results = await page.evaluate(
    (tags) =>
      (window as unknown as { axe: typeof axe }).axe.run(document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      }),
    WCAG_AA_TAGS,
  );
  return results.violations
    .filter((v) => BLOCKING.has(v.impact ?? ''))
    .map((v) => ({
      rule: v.id,
      impact: v.impact ?? '',
      help: v.help,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
    }));
}

/** One line per finding, for a test's diagnostics: `rule (impact): help at selector, selector`. */
export function describeFindings(url: string, findings: AxeFinding[]): string[] {
  return findings.map((f) => `${url}: ${f.rule} (${f.impact}): ${f.help} at ${f.targets.join(', ')}`);
}
