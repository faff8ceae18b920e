import { HtmlPage, RedirectResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type BundleOffer, findBundleOffers } from '../domain/learning/bundle-offers.js';
import { type PageContext, pageContext } from './i18n/index.js';
import { transferInstructions } from './learning/transfer.js';
import { sendPage } from './send.js';
import { pageSession } from './session.js';
import { type Html, href, html } from './view/html.js';
import { page } from './view/layout.js';

/** The outcomes of the buy form (./learning/forms.ts) shown here (`?purchase=`), each with its sentence. */
export type BundleFlash = keyof PageContext['t']['bundles']['flash'];

/** Loose: an unknown or repeated `purchase` value shows nothing; it is not an error page. */
const PageQuery = z.object({ purchase: z.unknown().optional() });

function flashOf(ctx: PageContext, value: unknown): Html | false {
  if (typeof value !== 'string' || !Object.hasOwn(ctx.t.bundles.flash, value)) return false;
  return html`<p class="notice" role="status">${ctx.t.bundles.flash[value as BundleFlash]}</p>`;
}

/** Where the buyer stands with the bundle, and the one form that moves them on (buy), if any. */
function standing(ctx: PageContext, offer: BundleOffer, pending: Html | false): Html {
  const { t } = ctx;
  if (offer.enrolledIn === 2) return html`<p class="notice">${t.bundles.enrolledInBoth}</p>`;
  if (offer.paid) return html`<p class="notice">${t.bundles.paid}</p>`;
  if (pending) return pending;
  if (!offer.forSale) return html`<p class="muted">${t.bundles.free}</p>`;
  return html`${offer.enrolledIn === 1 && html`<p class="muted">${t.bundles.enrolledInOne}</p>`}<p class="muted">${t.purchase.buyText}</p>
<form method="post" action="${href('/dashboard/bundles', offer.id, 'purchase')}"><button type="submit" aria-label="${t.bundles.buyLabel(offer.name)}">${t.bundles.buyButton}</button></form>`;
}

/**
 * GET /dashboard/bundles: the bundles the person can buy (both courses buyer-visible), each with
 * its two courses, their price at their tier against the two bought separately, and where they
 * stand: enrolled in both, paid, a pending transfer with its instructions, free, or the buy form
 * (a plain form posting to ./learning/forms.ts, which comes back here with 303).
 */
const bundlesPage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/bundles',
    {
      config: { auth: true },
      schema: {
        hide: true,
        tags: ['pages'],
        summary: 'The course bundles a learner can buy, at their tier price, with the buy form',
        querystring: PageQuery,
        response: { 200: HtmlPage, 302: RedirectResponse },
      },
    },
    async (request, reply) => {
      const session = await pageSession(app, request);
      const ctx = pageContext(app, request);
      const { t } = ctx;
      const offers = await findBundleOffers(app.db, session.caller.userId);
      const cards = offers.map((offer) => {
        const price = t.purchase.money(offer.price, offer.currency);
        const separately = t.purchase.money(offer.separatePrice, offer.currency);
        const pending = offer.pending !== null && transferInstructions(app, ctx, offer.pending);
        return html`<li class="card"><article aria-labelledby="bundle-${offer.id}-name" id="bundle-${offer.id}">
<h2 id="bundle-${offer.id}-name">${offer.name}</h2>
<p class="muted">${t.bundles.category(offer.categoryName)}</p>
${offer.description && html`<p>${offer.description}</p>`}
<p>${t.bundles.contains}:</p>
<ul>${offer.courses.map((c) => html`<li><a href="${href('/dashboard/courses', c.id)}">${c.name}</a></li>`)}</ul>
${offer.forSale && html`<p><strong>${t.bundles.priceForYou(price)}</strong>${Number(offer.separatePrice) > Number(offer.price) && html` <span class="muted">(${t.bundles.separately(separately)})</span>`}</p>`}
${standing(ctx, offer, pending)}
</article></li>
`;
      });
      const body = html`<h1>${t.bundles.title}</h1>
<p class="muted">${t.bundles.intro}</p>
${flashOf(ctx, request.query.purchase)}
${offers.length > 0 ? html`<ul class="course-list" aria-label="${t.bundles.title}">${cards}</ul>` : html`<p class="muted" role="status">${t.bundles.none}</p>`}`;
      return sendPage(reply, page(ctx, t.bundles.title, body, { user: session.user, current: '/dashboard/bundles' }));
    },
  );
};

export default bundlesPage;
