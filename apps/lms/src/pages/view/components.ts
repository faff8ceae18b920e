import type { LearnerStatus } from '@lms/contracts';
import type { PageContext } from '../i18n/index.js';
import { type Html, href, html, type Url } from './html.js';

/**
 * A progress bar readable without colour: the percentage is written next to it. The bar is an
 * SVG rectangle sized by its `width` attribute (a presentation attribute, not a `style`), so the
 * page CSP needs no 'unsafe-inline' for styles.
 */
export function progressBar(ctx: PageContext, percent: number, label: string): Html {
  const p = Math.max(0, Math.min(100, percent));
  return html`<span class="bar" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="${p}" aria-label="${label}"><svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false"><rect width="${p}" height="10"/></svg></span> ${ctx.f.percent(p)}`;
}

/** A learner's status (not-started, in-progress, completed) as a badge. */
export function statusBadge(ctx: PageContext, status: LearnerStatus): Html {
  return html`<span class="badge ${status}">${ctx.t.status[status] ?? status}</span>`;
}

/**
 * Previous / "page N of M" / next links for a paged list (none when it fits on one page). `link`
 * gives a page's URL with the list's other parameters kept.
 */
export function pager(ctx: PageContext, at: { page: number; totalPages: number }, link: (page: number) => Url): Html | false {
  const { t } = ctx;
  return (
    at.totalPages > 1 &&
    html`<nav class="pager" aria-label="${t.common.pager.label}">${
      at.page > 1 && html`<a href="${link(at.page - 1)}" rel="prev">${t.common.pager.previous}</a>`
    }<span>${t.common.pager.pageOf(at.page, at.totalPages)}</span>${
      at.page < at.totalPages && html`<a href="${link(at.page + 1)}" rel="next">${t.common.pager.next}</a>`
    }</nav>`
  );
}

/** The note that some of a page's query parameters (named here in the person's language) were not valid and were ignored. */
export function ignoredNote(ctx: PageContext, fields: string[]): Html | false {
  return fields.length > 0 && html`<p class="warning" role="alert">${ctx.t.common.ignored(fields)}</p>`;
}

/** A course's cover picture (one of ours, by its path), or nothing. */
export function coverImage(path: string | null, name: string): Html | false {
  return path !== null && html`<img class="cover" src="${href(path)}" alt="${name}" width="320" height="160" loading="lazy">`;
}
