import type { LearnerStatus } from '@lms/contracts';
import type { PageContext } from '../i18n/index.js';
import { type Html, html } from './html.js';

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
