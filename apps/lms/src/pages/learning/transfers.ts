import { ADMIN_ROLES, LearningIdParams } from '@lms/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findDecidablePurchase, listPendingPurchases, type PendingPurchaseView } from '../../domain/learning/pending-purchases.js';
import { ForbiddenError, NotFoundError } from '../../errors.js';
import type { PageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import type { PageSession } from '../session.js';
import { amount, dataTable, pager, when } from '../view/components.js';
import { type Html, href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { pageOptions, signedIn } from '../page-route.js';

/** Transfers per page of /dashboard/transfers; the dashboard shows the oldest few. */
const PAGE_SIZE = 20;
const DASHBOARD_SIZE = 5;
const MAX_PAGE = 100_000;

/** Who decides on transfers: admins (their institution's) and super_admins. */
export const decidesTransfers = (session: PageSession) => (ADMIN_ROLES as readonly string[]).includes(session.caller.role);

/** The session and language of a page only those who decide on transfers open (anyone else: the 403 page). */
async function deciderPage(app: FastifyInstance, request: FastifyRequest): Promise<{ session: PageSession; ctx: PageContext }> {
  const { session, ctx } = await signedIn(app, request);
  if (!decidesTransfers(session)) throw new ForbiddenError(ctx.t.enrol.forbidden.notAllowed);
  return { session, ctx };
}

/** The outcome of a confirm or reject form (./forms.ts), said at the top of the list. */
function flash(ctx: PageContext, value: unknown): Html | false {
  const words = ctx.t.purchase.confirmed;
  if (typeof value !== 'string' || !Object.hasOwn(words, value)) return false;
  const bad = value === 'reason-required' || value === 'refund-reason-required' || value === 'keep-reason-required';
  return html`<p class="${bad ? 'error' : 'notice'}" role="${bad ? 'alert' : 'status'}">${words[value as keyof typeof words]}</p>`;
}

/**
 * The transfers as a table: buyer, item, amount, reference, when, its deadline, its state, and for
 * those still open the two decisions (plain forms to ./forms.ts): confirm, or reject with a reason.
 */
function transferTable(ctx: PageContext, rows: PendingPurchaseView[]): Html {
  const { t, f } = ctx;
  const p = t.purchase.pending;
  const body = rows.map((x) => {
    const reference = x.reference ?? '';
    const open = x.status === 'pending' || x.status === 'expired';
    const decide =
      open &&
      html`<a class="button" href="${href('/dashboard/purchases', x.id, 'confirm')}" aria-label="${p.confirmLabel(reference)}">${p.confirm}</a>
<form method="post" action="${href('/dashboard/purchases', x.id, 'reject')}" class="inline-reason"><label for="reason-${x.id}">${p.rejectReason}</label>
<input id="reason-${x.id}" name="reason" required maxlength="500"> <button type="submit" class="secondary" aria-label="${p.rejectLabel(reference)}">${p.reject}</button></form>`;
    // A paid purchase (found by its reference) can be recorded as refunded, with a reason.
    const refund =
      x.status === 'paid' &&
      html`<form method="post" action="${href('/dashboard/purchases', x.id, 'refund')}" class="inline-reason"><p class="muted">${p.refundEnds}</p><label for="refund-${x.id}">${p.refundReason}</label>
<input id="refund-${x.id}" name="reason" required maxlength="500">
<label><input type="checkbox" name="keepCertificate" value="1"> ${p.keepCertificate}</label>
<label for="keep-${x.id}">${p.keepReason}</label> <input id="keep-${x.id}" name="keepReason" maxlength="500">
<button type="submit" class="secondary" aria-label="${p.refundLabel(reference)}">${p.refund}</button></form>`;
    return [
      html`${x.buyerName}<br><span class="muted email">${x.buyerEmail}</span>`,
      x.itemName,
      amount(t.purchase.money(x.amount, x.currency)),
      html`<code>${reference}</code>`,
      when(f.dateTime(x.createdAt)),
      when(f.dateTime(x.expiresAt)),
      html`${t.purchase.statuses[x.status]}${x.closeReason && html`<br><span class="muted">${x.closeReason}</span>`}`,
      decide || refund || '—',
    ];
  });
  const columns = [p.buyer, p.item, p.amount, p.reference, p.created, p.deadline, p.status, p.action].map((label) => ({
    label,
    num: label === p.amount,
  }));
  return dataTable(columns, body);
}

function searchForm(ctx: PageContext, value = ''): Html {
  const p = ctx.t.purchase.pending;
  return html`<form method="get" action="/dashboard/transfers" class="search"><label for="transfer-reference">${p.search}</label>
<input id="transfer-reference" name="reference" value="${value}" maxlength="40" autocomplete="off"> <button type="submit">${p.searchButton}</button></form>`;
}

/** The dashboard's section for admins: how many transfers wait, the oldest few, and the way to all of them. */
export async function transfersSection(app: FastifyInstance, ctx: PageContext, session: PageSession): Promise<Html> {
  const p = ctx.t.purchase.pending;
  const { purchases, total } = await listPendingPurchases(app.db, session.caller, { page: 1, limit: DASHBOARD_SIZE }, app.clock());
  return html`<section aria-labelledby="transfers">
<h2 id="transfers">${p.heading}</h2>
${
  total === 0
    ? html`<p class="muted">${p.none}</p>`
    : html`<p>${p.total(total)}</p>
${transferTable(ctx, purchases)}
<p><a href="/dashboard/transfers">${p.seeAll(total)}</a></p>`
}
${searchForm(ctx)}
</section>`;
}

/** Loose: a bad page or an empty reference is ignored, never an error page. */
const TransfersQuery = z.object({
  page: z.unknown().optional(),
  reference: z.unknown().optional(),
  confirmed: z.unknown().optional(),
  undo: z.unknown().optional(),
});

/**
 * GET /dashboard/transfers: every transfer an admin may confirm, oldest first, twenty to a page
 * with their total; or the one with a transfer reference (`?reference=`), whatever its state, so
 * money that arrives after its purchase expired can still be confirmed.
 */
const transfersPage: FastifyPluginAsyncZod = async (app) => {
  app.get('/transfers', pageOptions({ querystring: TransfersQuery }), async (request, reply) => {
    const { session, ctx } = await deciderPage(app, request);
    const p = ctx.t.purchase.pending;
    const q = request.query;
    const reference = typeof q.reference === 'string' && q.reference.trim() !== '' ? q.reference.trim().slice(0, 40) : undefined;
    const asked = typeof q.page === 'string' && /^[1-9][0-9]{0,5}$/.test(q.page) ? Math.min(Number(q.page), MAX_PAGE) : 1;
    const first = await listPendingPurchases(app.db, session.caller, { page: asked, limit: PAGE_SIZE, reference }, app.clock());
    // A page past the end shows the last one: the list shrinks as transfers are decided.
    const totalPages = Math.max(1, Math.ceil(first.total / PAGE_SIZE));
    const at = { page: Math.min(asked, totalPages), totalPages };
    const { purchases, total } =
      at.page === asked ? first : await listPendingPurchases(app.db, session.caller, { page: at.page, limit: PAGE_SIZE }, app.clock());
    const list =
      purchases.length > 0
        ? transferTable(ctx, purchases)
        : html`<p class="muted" role="status">${reference === undefined ? p.none : p.noMatch(reference)}</p>`;
    // Just confirmed: the way back for 15 minutes (the domain refuses it later, or once the course was used).
    const undoId = q.confirmed === 'done' && typeof q.undo === 'string' && /^[1-9][0-9]{0,9}$/.test(q.undo) ? Number(q.undo) : null;
    const undo =
      undoId !== null &&
      html`<form method="post" action="${href('/dashboard/purchases', undoId, 'undo')}" class="notice"><p>${p.undoText}</p><button type="submit" class="secondary">${p.undo}</button></form>`;
    const body = html`<h1>${p.heading}</h1>
${flash(ctx, q.confirmed)}
${undo}
${searchForm(ctx, reference)}
${reference === undefined && total > 0 && html`<p>${p.total(total)}</p>`}
${list}
${reference === undefined && pager(ctx, at, (n) => href('/dashboard/transfers').withQuery({ page: n }))}`;
    return sendPage(reply, page(ctx, p.heading, body, { user: session.user, current: '/dashboard' }));
  });
};

/**
 * GET /dashboard/purchases/:id/confirm: the step before confirming a transfer. What the admin is
 * about to confirm (buyer, item, amount, reference) and the form that does it; a purchase they may
 * not decide on is a 404 page, one already decided says so.
 */
export const confirmTransferPage: FastifyPluginAsyncZod = async (app) => {
  app.get('/purchases/:id/confirm', pageOptions({ params: LearningIdParams }), async (request, reply) => {
    const { session, ctx } = await deciderPage(app, request);
    const { t, f } = ctx;
    const p = t.purchase.pending;
    const x = await findDecidablePurchase(app.db, session.caller, request.params.id);
    if (!x) throw new NotFoundError('Purchase not found');
    const open = x.status === 'pending' || x.status === 'expired';
    const reference = x.reference ?? '';
    const body = html`<p><a href="/dashboard/transfers">${p.backToList}</a></p>
<h1>${p.confirmHeading}</h1>
<div class="card">
<dl>
<dt>${p.buyer}</dt><dd>${x.buyerName} <span class="muted">${x.buyerEmail}</span></dd>
<dt>${p.item}</dt><dd>${x.itemName}</dd>
<dt>${p.amount}</dt><dd><strong>${amount(t.purchase.money(x.amount, x.currency))}</strong></dd>
<dt>${p.reference}</dt><dd><code>${reference}</code></dd>
<dt>${p.created}</dt><dd>${f.dateTime(x.createdAt)}</dd>
<dt>${p.status}</dt><dd>${t.purchase.statuses[x.status]}</dd>
</dl>
${
  open
    ? html`<p>${p.confirmQuestion}</p>
<form method="post" action="${href('/dashboard/purchases', x.id, 'confirm')}"><button type="submit">${p.confirmYes}</button></form>`
    : html`<p class="notice">${t.purchase.confirmed.already}</p>`
}
</div>`;
    return sendPage(reply, page(ctx, p.confirmHeading, body, { user: session.user, current: '/dashboard' }));
  });
};

export default transfersPage;
