import { STYLESHEET_PATH } from '../assets.js';
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
}

function nav(user: NavUser, current: string | undefined): Html {
  const links: [string, string][] = [
    ['/dashboard', 'Dashboard'],
    ['/dashboard/catalog', 'Catalog'],
  ];
  if (user.role === 'teacher') links.push(['/dashboard/api-keys', 'Kunci API']);
  const items = links.map(([path, label]) => html`<a href="${href(path)}"${attr('aria-current', path === current && 'page')}>${label}</a>`);
  return html`<header class="topbar"><nav class="inner" aria-label="Main">
<span class="brand">LMS</span>
${join(items, '\n')}
<span class="who"><span class="sr-only">Signed in as </span>${user.name}</span>
<form method="post" action="/api/auth/sign-out"><button type="submit">Sign out</button></form>
</nav></header>`;
}

/**
 * A whole page: our stylesheet, at most one script of our own, inline SVG; nothing from
 * elsewhere and nothing inline that the CSP would have to allow (see ../send.ts).
 */
export function page(title: string, body: Html, options: PageOptions = {}): Html {
  const header = options.user
    ? nav(options.user, options.current)
    : html`<header class="topbar"><div class="inner"><span class="brand">LMS</span></div></header>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · LMS</title>
<link rel="stylesheet" href="${href(STYLESHEET_PATH)}">
${options.script && html`<script src="${href(options.script)}" defer></script>`}
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

const ERROR_TEXT: Record<number, { title: string; text: string }> = {
  403: { title: 'Not allowed', text: 'Your account may not open this page.' },
  404: { title: 'Page not found', text: 'There is nothing here, or it is not visible to you.' },
  500: { title: 'Something went wrong', text: 'We could not show this page just now. Please try again in a moment.' },
  503: { title: 'Briefly unavailable', text: 'Our database is not answering just now. Please try again in a minute.' },
};

/** The page for a 403, 404, 500 or 503 on a page route (a 401 is a redirect to /sign-in). */
export function errorPage(status: number, user: NavUser | null, detail?: string): Html {
  const known = ERROR_TEXT[status] ?? ERROR_TEXT[500]!;
  const body = html`<h1>${known.title}</h1>
<div class="error" role="alert"><p>${known.text}</p>${detail && html`<p>${detail}</p>`}</div>
<p>${user ? html`<a href="/dashboard">Back to your dashboard</a>` : html`<a href="/sign-in">How to sign in</a>`}</p>`;
  return page(known.title, body, { user });
}
