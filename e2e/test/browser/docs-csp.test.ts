import t from 'tap';
import { launchBrowser } from '../helpers/browser.js';
import { startGateway, startLms } from '../helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium; the SQL behind them runs on both backends in apps/lms's page tests.

// The API docs UI of both apps works in a real browser under its Content-Security-Policy: the
// operations render and the browser reports no policy violation.

t.test('the docs UI renders under its CSP', async (t) => {
  const lms = await startLms(t);
  const gateway = await startGateway(t, []);
  const gatewayUrl = await gateway.listen({ port: 0, host: '127.0.0.1' });
  const browser = await launchBrowser(t);

  for (const [name, base, operation] of [
    ['LMS', lms.url, '/api/courses'],
    ['gateway', gatewayUrl, '/sso/verify'],
  ] as const) {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    const res = await page.goto(`${base}/docs/`);
    t.equal(res?.status(), 200, `${name}: /docs/`);
    t.ok(res?.headers()['content-security-policy'], `${name}: a CSP is sent`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    t.ok(
      paths.some((p) => p.replace(/\u200b/g, '') === operation),
      `${name}: the operations are rendered (${operation})`,
    );
    t.same(violations, [], `${name}: no CSP violation`);
    await page.close();
  }
});
