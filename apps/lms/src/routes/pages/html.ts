import type { FastifyReply } from 'fastify';

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Pages load nothing from elsewhere: their only script is the LMS's own file, styles are inline,
 * charts are inline SVG. The policy makes that a rule the browser enforces.
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const STYLE = `
  *, *::before, *::after { box-sizing: border-box; }
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; line-height: 1.5; color: #1a1a1a; background: #f6f7f9; }
  a { color: #0b57d0; }
  a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
  .skip { position: absolute; left: -999px; }
  .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: 0.5rem; z-index: 2; }
  .topbar { background: #12355b; color: #fff; }
  .topbar .inner { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1.25rem; max-width: 64rem; margin: 0 auto; padding: 0.6rem 1rem; }
  .topbar a { color: #fff; text-decoration: none; padding: 0.2rem 0; }
  .topbar a[aria-current="page"] { border-bottom: 3px solid #ffd54f; }
  .topbar .brand { font-weight: 700; margin-right: auto; }
  .topbar form { margin: 0; }
  .topbar button { background: transparent; color: #fff; border: 1px solid #fff; border-radius: 4px; }
  main { max-width: 64rem; margin: 0 auto; padding: 1rem; }
  h1 { font-size: 1.6rem; margin: 0.5rem 0 1rem; }
  h2 { font-size: 1.2rem; margin: 1.5rem 0 0.5rem; }
  .card { background: #fff; border: 1px solid #d9dde3; border-radius: 8px; padding: 1rem; margin-bottom: 1rem; }
  .card > :first-child { margin-top: 0; }
  .card > :last-child { margin-bottom: 0; }
  .error { border-left: 4px solid #b00020; background: #fdecee; padding: 0.75rem 1rem; }
  .warning { border-left: 4px solid #8a5a00; background: #fff4d6; padding: 0.75rem 1rem; }
  .muted { color: #555; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0; }
  dt { font-weight: 600; }
  dd { margin: 0; overflow-wrap: anywhere; }
  .table-wrap { overflow-x: auto; }
  table { border-collapse: collapse; width: 100%; background: #fff; }
  caption { text-align: left; font-weight: 600; padding: 0.4rem 0; }
  th, td { text-align: left; padding: 0.5rem; border-bottom: 1px solid #d9dde3; vertical-align: top; }
  td.num, th.num { text-align: right; white-space: nowrap; }
  .bar { display: inline-block; width: 7rem; height: 0.8rem; background: #e3e7ed; border-radius: 4px; overflow: hidden; vertical-align: middle; }
  .bar > span { display: block; height: 100%; background: #1b7f3b; }
  .figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(10rem, 1fr)); gap: 0.75rem; margin: 0; padding: 0; list-style: none; }
  .figures li { background: #fff; border: 1px solid #d9dde3; border-radius: 8px; padding: 0.75rem; }
  .figures .value { display: block; font-size: 1.3rem; font-weight: 700; color: #12355b; }
  .figures .label { color: #444; font-size: 0.9rem; }
  .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: 1rem; }
  figure { margin: 0; background: #fff; border: 1px solid #d9dde3; border-radius: 8px; padding: 0.75rem; }
  figcaption { font-weight: 600; margin-bottom: 0.5rem; }
  svg.chart { width: 100%; height: auto; display: block; }
  .badge { display: inline-block; padding: 0.05rem 0.5rem; border-radius: 999px; font-size: 0.85rem; border: 1px solid currentColor; white-space: nowrap; }
  .badge.completed, .badge.unlocked { color: #1b6b34; }
  .badge.in-progress { color: #7a4d00; }
  .badge.not-started, .badge.locked, .badge.draft, .badge.revoked { color: #555; }
  form.filters { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: flex-end; }
  form.filters label, form.stack label { display: flex; flex-direction: column; font-weight: 600; font-size: 0.95rem; }
  input, select, button { font: inherit; }
  input, select { font-weight: 400; padding: 0.4rem; border: 1px solid #767676; border-radius: 4px; min-width: 12rem; background: #fff; }
  button { padding: 0.4rem 1rem; cursor: pointer; border-radius: 4px; border: 1px solid #12355b; background: #12355b; color: #fff; }
  button.secondary { background: #fff; color: #12355b; }
  button.danger { background: #fff; color: #b00020; border-color: #b00020; }
  .course-list { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.75rem; }
  .course-list h3 { margin: 0 0 0.25rem; font-size: 1.05rem; }
  .modules { list-style: none; padding: 0; margin: 0; }
  .modules > li { background: #fff; border: 1px solid #d9dde3; border-radius: 8px; padding: 0.75rem 1rem; margin-bottom: 0.75rem; }
  .modules h3 { margin: 0 0 0.25rem; font-size: 1.05rem; }
  .chapters { margin: 0.25rem 0 0; padding-left: 1.25rem; }
  .pager { display: flex; gap: 1rem; align-items: center; margin-top: 1rem; }
  code.key { display: block; padding: 0.5rem; background: #f0f2f5; border-radius: 4px; overflow-wrap: anywhere; font-size: 0.95rem; }
  .topbar .who { color: #dfe7f1; font-size: 0.9rem; }
  .sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
  [hidden] { display: none !important; }
  @media (max-width: 40rem) {
    main { padding: 0.75rem; }
    h1 { font-size: 1.35rem; }
    input, select { min-width: 0; width: 100%; }
    form.filters label { width: 100%; }
    /* Tables become one card per row, each cell labelled by its column. */
    table.responsive { background: transparent; }
    table.responsive thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
    table.responsive tr { display: block; border: 1px solid #d9dde3; border-radius: 8px; margin-bottom: 0.75rem; background: #fff; }
    table.responsive td { display: flex; justify-content: space-between; gap: 1rem; text-align: right; border-bottom: 1px solid #eef1f5; }
    table.responsive td:last-child { border-bottom: 0; }
    table.responsive td::before { content: attr(data-label); font-weight: 600; text-align: left; }
  }
`;

export interface NavUser {
  name: string;
  role: string;
}

export interface PageOptions {
  /** The signed-in person; null on pages shown without a session. */
  user?: NavUser | null;
  /** The path of the current nav entry, marked `aria-current`. */
  current?: string;
  /** The page's script (served by the LMS itself), if it needs one. */
  script?: string;
}

function nav(user: NavUser, current: string | undefined): string {
  const links: [string, string][] = [
    ['/dashboard', 'Dashboard'],
    ['/dashboard/catalog', 'Catalog'],
  ];
  if (user.role === 'teacher') links.push(['/dashboard/api-keys', 'Kunci API']);
  const items = links
    .map(([href, label]) => `<a href="${href}"${href === current ? ' aria-current="page"' : ''}>${label}</a>`)
    .join('\n');
  return `<header class="topbar"><nav class="inner" aria-label="Main">
<span class="brand">LMS</span>
${items}
<span class="who"><span class="sr-only">Signed in as </span>${escapeHtml(user.name)}</span>
<form method="post" action="/api/auth/sign-out"><button type="submit">Sign out</button></form>
</nav></header>`;
}

/** A whole page: self-contained (inline CSS, inline SVG, at most one script of our own). */
export function page(title: string, body: string, options: PageOptions = {}): string {
  const header = options.user ? nav(options.user, options.current) : `<header class="topbar"><div class="inner"><span class="brand">LMS</span></div></header>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · LMS</title>
<style>${STYLE}</style>
${options.script ? `<script src="${escapeHtml(options.script)}" defer></script>` : ''}
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
${header}
<main id="content">
${body}
</main>
</body>
</html>
`;
}

/** Sends a page: HTML, never cached (it is personal), under the page CSP. */
export function sendPage(reply: FastifyReply, html: string, status = 200): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    // Page URLs can carry what belongs to the person (a course, a search, an SSO error reason).
    .header('referrer-policy', 'no-referrer')
    .send(html);
}

const ERROR_TEXT: Record<number, { title: string; text: string }> = {
  403: { title: 'Not allowed', text: 'Your account may not open this page.' },
  404: { title: 'Page not found', text: 'There is nothing here, or it is not visible to you.' },
  500: { title: 'Something went wrong', text: 'We could not show this page just now. Please try again in a moment.' },
};

/** The page for a 403, 404 or 500 on a page route (a 401 is a redirect to /sign-in). */
export function errorPage(status: number, user: NavUser | null, detail?: string): string {
  const known = ERROR_TEXT[status] ?? ERROR_TEXT[500]!;
  const body = `<h1>${escapeHtml(known.title)}</h1>
<div class="error" role="alert"><p>${escapeHtml(known.text)}</p>${detail ? `<p>${escapeHtml(detail)}</p>` : ''}</div>
<p>${user ? '<a href="/dashboard">Back to your dashboard</a>' : '<a href="/sign-in">How to sign in</a>'}</p>`;
  return page(known.title, body, { user });
}

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
export function formatNumber(n: number): string {
  return numberFormat.format(n);
}
export function formatMoney(n: number, currency = 'IDR'): string {
  return currency === 'IDR' ? `Rp ${numberFormat.format(n)}` : `${currency} ${numberFormat.format(n)}`;
}
export function formatDate(iso: string | Date | null): string {
  if (!iso) return '—';
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A calendar day, for course dates. */
export function formatDay(iso: string | Date | null): string {
  if (!iso) return '—';
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return d.toISOString().slice(0, 10);
}

/** "1 chapter", "3 chapters". */
export function plural(n: number, word: string): string {
  return `${formatNumber(n)} ${word}${n === 1 ? '' : 's'}`;
}

export const STATUS_LABELS: Record<string, string> = { 'not-started': 'Not started', 'in-progress': 'In progress', completed: 'Completed' };
export const TIER_LABELS: Record<string, string> = { anggota: 'Anggota (member)', umum: 'Umum (general public)', mahasiswa: 'Mahasiswa (student)' };

/** A progress bar readable without colour: the percentage is written next to it. */
export function progressBar(percent: number, label: string): string {
  const p = Math.max(0, Math.min(100, percent));
  return `<span class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="${p}" aria-label="${escapeHtml(label)}"><span style="width:${p}%"></span></span> ${formatNumber(p)}%`;
}
