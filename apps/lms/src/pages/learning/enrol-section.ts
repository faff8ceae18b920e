import type { PublicCourse } from '@lms/contracts';
import type { FastifyInstance } from 'fastify';
import { enrolmentState } from '../../domain/learning/enrollment.js';
import { findOpenPurchase } from '../../domain/learning/purchases.js';
import type { PageContext } from '../i18n/index.js';
import { type Html, href, html } from '../view/html.js';
import { courseContactLine } from './contact.js';
import { transferInstructions } from './transfer.js';

/** The outcomes a form of ./forms.ts comes back with (`?enrol=`), each with its sentence. */
export type EnrolFlash = keyof PageContext['t']['enrol']['flash'];

function flashOf(ctx: PageContext, query: unknown): Html | false {
  const value = (query as Record<string, unknown> | undefined)?.enrol;
  if (typeof value !== 'string' || !Object.hasOwn(ctx.t.enrol.flash, value)) return false;
  const bad = value === 'wrong-code' || value === 'code-required' || value === 'too-many-pending';
  return html`<p class="${bad ? 'error' : 'notice'}" role="${bad ? 'alert' : 'status'}">${ctx.t.enrol.flash[value as EnrolFlash]}</p>`;
}

/**
 * The course page's enrol section: where the person stands with the course (enrolled, a pending
 * request, a pending transfer with its instructions) and the one form that moves them on (enrol,
 * enter the code, ask to join, buy). Plain forms posting to ./forms.ts, which answer 303 back here.
 */
export async function enrolSection(
  app: FastifyInstance,
  ctx: PageContext,
  userId: string,
  course: PublicCourse,
  query: unknown,
): Promise<Html> {
  const { t, f } = ctx;
  const courseId = Number(course.id);
  const state = await enrolmentState(app.db, userId, courseId, app.clock());
  if (!state) return html``;
  const flash = flashOf(ctx, query);
  const section = (content: Html) =>
    html`<section aria-labelledby="enrol"><h2 id="enrol">${t.enrol.heading}</h2><div class="card">${flash}${content}</div></section>`;
  if (state.enrolledAt) return section(html`<p>${t.enrol.enrolledSince(f.dateTime(state.enrolledAt) ?? '')}</p>`);
  // Only buyer-visible courses take enrolments (a teacher looking at a draft sees no form).
  if (!state.open) return html``;
  // Closed after its end date: no buy, no enrol (a pending purchase can still be paid or cancelled).
  const open = state.price && !state.paid ? await findOpenPurchase(app.db, userId, { courseId }) : null;
  if (open) {
    const contact = !open.transferAccount?.accountNumber && (await courseContactLine(app, ctx, courseId, 'account'));
    return section(transferInstructions(app, ctx, open, contact));
  }
  if (state.endedAt && !state.paid) return section(html`<p class="notice">${t.enrol.ended(f.day(state.endedAt) ?? '')}</p>`);
  const action = (what: string) => href('/dashboard/courses', courseId, what);

  if (state.price && !state.paid) {
    const price = t.purchase.money(state.price.amount, state.price.currency);
    return section(html`<p>${t.purchase.priceForYou(price)}</p><p class="muted">${t.purchase.buyText}</p>
<form method="post" action="${action('purchase')}"><button type="submit">${t.purchase.buyButton}</button></form>`);
  }

  switch (course.enrollmentType) {
    case 'code':
      return section(html`<p>${t.enrol.codeText}</p>
<form method="post" action="${action('enrol')}"><label for="enrol-code">${t.enrol.codeLabel}</label>
<input id="enrol-code" name="code" autocomplete="off" required maxlength="200"> <button type="submit">${t.enrol.enrolButton}</button></form>`);
    case 'approval': {
      if (state.request?.status === 'pending')
        return section(html`<p>${t.enrol.pendingRequest(f.dateTime(state.request.requestedAt) ?? '')}</p>`);
      const rejected = state.request?.status === 'rejected' && html`<p class="muted">${t.enrol.rejectedRequest}</p>`;
      return section(html`<p>${t.enrol.approvalText}</p>${rejected}
<form method="post" action="${action('enrol')}"><button type="submit">${t.enrol.askButton}</button></form>`);
    }
    default:
      return section(html`<p>${t.enrol.openText}</p>
<form method="post" action="${action('enrol')}"><button type="submit">${t.enrol.enrolButton}</button></form>`);
  }
}
