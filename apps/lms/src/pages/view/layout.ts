import { STYLESHEET_PATH } from '../assets.js';
import { type Locale, LOCALES, type PageContext } from '../i18n/index.js';
import { LANGUAGE_PATH } from '../language.js';
import { institutionWords } from '../institution/messages.js';
import { webhooksWords } from '../webhooks/messages.js';
import { attr, type Html, href, html, join } from './html.js';

export interface NavUser {
  name: string;
  role: string;
}

export interface PageOptions {
  /** The signed-in person; null on pages shown without a session. */
  user?: NavUser | null;
  /** The path of the current nav entry, marked `aria-current`. */
  current?: string;
  /** The path of the page's script (served by the LMS itself), if it needs one. */
  script?: string;
  /** A stylesheet of the page's own after the common one (served by the LMS itself), if it needs one. */
  stylesheet?: string;
}

/** Where the nav's links of the institution and webhooks pages go (their modules import this file). */
export const INSTITUTION_PATH = '/dashboard/institution';
export const WEBHOOKS_PATH = '/dashboard/webhooks';

function nav(ctx: PageContext, user: NavUser, current: string | undefined): Html {
  const { t } = ctx;
  const links: [string, string][] = [
    ['/dashboard', t.layout.dashboard],
    ['/dashboard/catalog', t.layout.catalog],
    ['/dashboard/bundles', t.layout.bundles],
  ];
  if (user.role === 'teacher') links.push(['/dashboard/api-keys', t.layout.apiKeys]);
  // The pages of those who keep an institution (../institution) and the platform (../webhooks).
  if (user.role === 'admin' || user.role === 'super_admin') links.push([INSTITUTION_PATH, institutionWords(ctx).nav]);
  if (user.role === 'super_admin') links.push([WEBHOOKS_PATH, webhooksWords(ctx).title]);
  const items = links.map(([path, label]) => html`<a href="${href(path)}"${attr('aria-current', path === current && 'page')}>${label}</a>`);
  return html`<nav class="links" aria-label="${t.layout.mainNav}">
${join(items, '\n')}
<span class="who">${t.layout.signedInAs(user.name)}</span>
<form method="post" action="/api/auth/sign-out"><button type="submit">${t.layout.signOut}</button></form>
</nav>`;
}

/**
 * The language switch, on every page: a plain form (it works without JavaScript) that posts the
 * choice and the page to come back to (../language.ts sets the cookie and redirects there). Each
 * language is named in itself and marked with its own `lang`.
 */
function languageSwitch(ctx: PageContext): Html {
  const buttons = (Object.keys(LOCALES) as Locale[]).map(
    (locale) =>
      html`<button type="submit" name="lang" value="${locale}" lang="${locale}" aria-pressed="${String(locale === ctx.locale)}">${LOCALES[locale].name}</button>`,
  );
  return html`<form class="language" method="post" action="${href(LANGUAGE_PATH)}" aria-label="${ctx.t.layout.language}">
<input type="hidden" name="next" value="${ctx.path}">
${join(buttons, '\n')}
</form>`;
}

/**
 * A whole page in the request's language: our stylesheet (and at most one of the page's own), at
 * most one script of our own, inline SVG; nothing from elsewhere and nothing inline that the CSP would have to allow (see ../send.ts).
 */
export function page(ctx: PageContext, title: string, body: Html, options: PageOptions = {}): Html {
  const { t } = ctx;
  return html`<!doctype html>
<html lang="${ctx.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t.layout.title(title)}</title>
<link rel="stylesheet" href="${href(STYLESHEET_PATH)}">
${options.stylesheet && html`<link rel="stylesheet" href="${href(options.stylesheet)}">`}
${options.script && html`<script src="${href(options.script)}" defer></script>`}
</head>
<body>
<a class="skip" href="#content">${t.layout.skipToContent}</a>
<header class="topbar"><div class="inner">
<span class="brand">LMS</span>
${options.user && nav(ctx, options.user, options.current)}
${languageSwitch(ctx)}
</div></header>
<main id="content">
${body}
</main>
</body>
</html>
`;
}

/** The statuses with a page of their own; anything else is shown as a 500. */
export type ErrorPageStatus = keyof PageContext['t']['errorPages'];

function isErrorPageStatus(ctx: PageContext, status: number): status is ErrorPageStatus {
  return Object.hasOwn(ctx.t.errorPages, status);
}

/** The page for a 403, 404, 413, 429, 500 or 503 on a page route (a 401 is a redirect to /sign-in). */
export function errorPage(ctx: PageContext, status: number, user: NavUser | null, detail?: string): Html {
  const { t } = ctx;
  const known = t.errorPages[isErrorPageStatus(ctx, status) ? status : 500];
  const body = html`<h1>${known.title}</h1>
<div class="error" role="alert"><p>${known.text}</p>${detail && html`<p>${detail}</p>`}</div>
<p>${user ? html`<a href="/dashboard">${t.errors.backToDashboard}</a>` : html`<a href="/sign-in">${t.errors.howToSignIn}</a>`}</p>`;
  return page(ctx, known.title, body, { user });
}
