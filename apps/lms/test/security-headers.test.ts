import { DOCS_UI_CSP } from '@lms/server-kit';
import t from 'tap';
import { buildTestApp } from './helpers/app.js';
import { makeUser, sessionCookieFor } from './helpers/fixtures.js';

// CI runs this file once (not again in the PostgreSQL pass): response headers set by hooks, whatever the database (the pages' reads run on both backends in test/pages).

// Response headers that keep the browser from doing more than we mean: pages send no Referer
// (their URLs can carry a search, a course, an SSO error), the docs UI runs under its own CSP, and
// nothing of ours is content-sniffed. (JSON answers: test/routes/hostile-input.test.ts.)

t.test('pages: no referrer, and their CSP', async (t) => {
  const { app, db } = await buildTestApp(t);
  const student = await makeUser(db.db, { role: 'student' });
  const cookie = await sessionCookieFor(app, student.id);
  for (const [url, headers] of [
    ['/sign-in?error=invalid_token&reason=signature%20verification%20failed', {}],
    ['/dashboard', { cookie }],
    ['/dashboard/catalog?search=etika', { cookie }],
    ['/dashboard/no-such-page', { cookie }],
  ] as const) {
    const res = await app.inject({ url, headers });
    t.match(res.headers['content-type'], /^text\/html/, url);
    t.equal(res.headers['referrer-policy'], 'no-referrer', `${url} (${res.statusCode})`);
    t.equal(res.headers['x-content-type-options'], 'nosniff');
    t.match(res.headers['content-security-policy'], "default-src 'none'");
  }
});

t.test('/docs: a CSP the UI works under, and nosniff', async (t) => {
  const { app } = await buildTestApp(t);
  const ui = await app.inject('/docs/');
  t.equal(ui.statusCode, 200);
  t.equal(ui.headers['content-security-policy'], DOCS_UI_CSP);
  t.equal(ui.headers['x-content-type-options'], 'nosniff');
  t.match(DOCS_UI_CSP, "script-src 'self'");
  t.match(DOCS_UI_CSP, "frame-ancestors 'none'");
  // The policy allows no inline script: every script of the page is a file it serves.
  const scripts = [...ui.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
  t.ok(scripts.length > 0);
  for (const [, attributes, content] of scripts) {
    t.match(attributes, /src="/, 'loaded from a file');
    t.equal(content!.trim(), '', 'no inline code');
    const src = attributes!.match(/src="([^"]+)"/)![1]!;
    const file = await app.inject(new URL(src, 'http://lms.test/docs/').pathname);
    t.equal(file.statusCode, 200, src);
    t.equal(file.headers['x-content-type-options'], 'nosniff');
  }
  const doc = await app.inject('/docs/json');
  t.equal(doc.headers['x-content-type-options'], 'nosniff');
});
