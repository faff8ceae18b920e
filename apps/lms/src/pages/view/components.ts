import type { LearnerStatus } from '@lms/contracts';
import type { PageContext } from '../i18n/index.js';
import { attr, type Html, href, html, type Url } from './html.js';

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

/** An amount, a number or a date that never breaks across lines ("Rp 350.000" stays whole). */
export function amount(text: string | null | undefined): Html {
  return html`<span class="amount">${text ?? '—'}</span>`;
}

/**
 * A date with its time (`f.dateTime`: "6 Okt 2026, 14.00 WIB"): the date and the time each stay
 * whole, and a narrow column may put the time under the date.
 */
export function when(text: string | null | undefined): Html {
  if (!text) return amount(text);
  const cut = text.lastIndexOf(', ');
  if (cut < 0) return amount(text);
  return html`${amount(text.slice(0, cut + 1))} ${amount(text.slice(cut + 2))}`;
}

/** A column of a `dataTable`: its heading, and whether it holds numbers (right-aligned, unbroken). */
export interface Column {
  label: string;
  num?: boolean;
}

/** A cell's content: markup, text, or nothing (shown empty). */
export type Cell = Html | string | number | false | null | undefined;

/**
 * A table of rows that becomes one card per row on a phone (dashboard.css): every cell carries its
 * column's name in `data-label`, which the phone layout shows above the value, so no page has to
 * repeat the headings by hand. Wrapped in `.table-wrap`, which scrolls a table too wide for the screen.
 * A table of six columns or more is `.wide`: cards on a tablet too.
 */
export function dataTable(columns: readonly Column[], rows: readonly (readonly Cell[])[], className?: string): Html {
  const head = columns.map((c) => html`<th scope="col"${attr('class', c.num === true && 'num')}>${c.label}</th>`);
  const body = rows.map(
    (row) =>
      html`<tr>${columns.map(
        (c, i) => html`<td data-label="${c.label}"${attr('class', c.num === true && 'num')}>${row[i] ?? ''}</td>`,
      )}</tr>
`,
  );
  // Six columns or more do not fit a tablet either: cards up to 960 px (dashboard.css).
  const classes = ['responsive', columns.length >= 6 && 'wide', className].filter(Boolean).join(' ');
  return html`<div class="table-wrap"><table class="${classes}">
<thead><tr>${head}</tr></thead>
<tbody>
${body}</tbody>
</table></div>`;
}
