import { readFile } from 'node:fs/promises';
import t from 'tap';
import { CLIENT_DIR, loadPageAssets } from '../../src/pages/assets.js';
import { PAGE_CSP } from '../../src/pages/send.js';
import { buildTestApp } from '../helpers/app.js';

// The pages' stylesheet and script: real files built into dist, served by the LMS as public,
// revalidated by ETag, under a CSP that allows no inline style or script.
const { app } = await buildTestApp(t);

t.test('the stylesheet and the script are the built files, public and revalidated by ETag', async (t) => {
  for (const [path, file, type] of [
    ['/dashboard/assets/dashboard.css', 'dashboard.css', /^text\/css/],
    ['/dashboard/assets/dashboard.js', 'dashboard.js', /^text\/javascript/],
    ['/dashboard/assets/chapter-time.js', 'chapter-time.js', /^text\/javascript/],
    ['/dashboard/assets/studio-editor.js', 'studio-editor.js', /^text\/javascript/],
    ['/dashboard/assets/studio-editor.css', 'studio-editor.css', /^text\/css/],
  ] as const) {
    const res = await app.inject(path);
    t.equal(res.statusCode, 200, path);
    t.match(res.headers['content-type'], type);
    t.equal(res.body, await readFile(new URL(file, CLIENT_DIR), 'utf8'), 'the file the build wrote');
    t.equal(res.headers['cache-control'], 'public, max-age=300');
    t.equal(res.headers['x-content-type-options'], 'nosniff');
    const etag = res.headers.etag as string;
    t.match(etag, /^"[A-Za-z0-9_-]{27}"$/);
    const again = await app.inject({ url: path, headers: { 'if-none-match': etag } });
    t.equal(again.statusCode, 304, 'unchanged: 304');
    t.equal(again.body, '');
    t.equal(again.headers.etag, etag);
    const weak = await app.inject({ url: path, headers: { 'if-none-match': `"other", W/${etag}` } });
    t.equal(weak.statusCode, 304, 'in a list, as a weak validator');
    const stale = await app.inject({ url: path, headers: { 'if-none-match': '"not-this-one"' } });
    t.equal(stale.statusCode, 200, 'another ETag: the file');
  }
  const css = (await app.inject('/dashboard/assets/dashboard.css')).body;
  t.match(css, '.bar rect', 'progress bars are drawn by the stylesheet, not by inline styles');
  const js = (await app.inject('/dashboard/assets/dashboard.js')).body;
  t.notMatch(js, /^\s*(import|export)\b/m, 'a classic script: no module syntax left');
  const beats = (await app.inject('/dashboard/assets/chapter-time.js')).body;
  t.notMatch(beats, /^\s*(import|export)\b/m, "the chapter page's script too");
  const studio = (await app.inject('/dashboard/assets/studio-editor.js')).body;
  t.notMatch(studio, /^\s*(import|export)\b/m, "the studio's script too");
  t.notMatch(studio, /\.style\b|setAttribute\('style'/, 'it sets no inline style (the CSP would block it)');
});

t.test('the page CSP allows no inline style or script', async (t) => {
  t.match(PAGE_CSP, "style-src 'self';");
  t.match(PAGE_CSP, "script-src 'self';");
  t.notMatch(PAGE_CSP, 'unsafe-inline');
  const page = await app.inject('/sign-in?error=missing_token');
  t.equal(page.headers['content-security-policy'], PAGE_CSP);
  t.match(page.body, '<link rel="stylesheet" href="/dashboard/assets/dashboard.css">');
  t.notMatch(page.body, /<style|style=/, 'no inline style that the CSP would block');
});

t.test('a build without the browser files stops the start, saying how to fix it', async (t) => {
  await t.rejects(loadPageAssets(new URL('./no-such-dir/', CLIENT_DIR)), /dashboard\.(css|js) is missing from .*run `pnpm run build`/);
});
