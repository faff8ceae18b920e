import { MAX_ID } from '@lms/contracts';
import type { Db } from '@lms/db';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type BundleOffer,
  type BundleOfferFilter,
  countBundleOffers,
  endedCourseOf,
  findBundleOffers,
} from '../../domain/learning/bundle-offers.js';
import type { PageContext } from '../i18n/index.js';
import { courseContactLine } from '../learning/contact.js';
import { transferInstructions } from '../learning/transfer.js';
import { sendPage } from '../send.js';
import { ignoredNote, pager } from '../view/components.js';
import { type Html, href, html } from '../view/html.js';
import { page } from '../view/layout.js';
import { pageOptions, signedIn } from '../page-route.js';

/** The outcomes of the buy form (../learning/forms.ts) shown here (`?purchase=`), each with its sentence. */
export type BundleFlash = keyof PageContext['t']['bundles']['flash'];

/** Bundles per page: each is a card with two courses, a price and a form. */
export const BUNDLES_PAGE_SIZE = 10;
/** Far beyond any real list; a larger page number is not a number this page takes. */
const MAX_PAGE = 100_000;

/**
 * Loose: an unknown or repeated `purchase` value shows nothing, and a `courseId` or `page` that is
 * not a whole number in range is ignored with a note; none of them is an error page.
 */
const PageQuery = z.object({ purchase: z.unknown().optional(), courseId: z.unknown().optional(), page: z.unknown().optional() });

/**
 * Where the buy form comes back to: the page of the whole list (id order) that shows the bundle,
 * with the outcome to say, at the bundle's card.
 */
export async function bundlePageLink(db: Db, bundleId: number, flash: BundleFlash): Promise<string> {
  const position = await countBundleOffers(db, { upToId: bundleId });
  return `/dashboard/bundles?page=${Math.max(1, Math.ceil(position / BUNDLES_PAGE_SIZE))}&purchase=${flash}#bundle-${bundleId}`;
}

/** A positive whole number up to `max`, written plainly (no sign, exponent or leading zero), or undefined. */
function wholeNumber(value: unknown, max: number): number | undefined {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,15}$/.test(value)) return undefined;
  const n = Number(value);
  return n <= max ? n : undefined;
}

function flashOf(ctx: PageContext, value: unknown): Html | false {
  if (typeof value !== 'string' || !Object.hasOwn(ctx.t.bundles.flash, value)) return false;
  return html`<p class="notice" role="status">${ctx.t.bundles.flash[value as BundleFlash]}</p>`;
}

/** Where the buyer stands with the bundle, and the one form that moves them on (buy), if any. */
function standing(ctx: PageContext, offer: BundleOffer, pending: Html | false, now: Date): Html {
  const { t, f } = ctx;
  if (offer.enrolledIn === 2) return html`<p class="notice">${t.bundles.enrolledInBoth}</p>`;
  if (offer.paid) return html`<p class="notice">${t.bundles.paid}</p>`;
  if (pending) return pending;
  // Nobody pays twice for a course: a bundle holding one they have, or are paying for, is not sold to them.
  if (offer.held?.why === 'enrolled')
    return html`<p class="notice">${t.bundles.heldEnrolled(offer.held.course.name, offer.held.other.name)}</p>`;
  if (offer.held?.why === 'waiting') return html`<p class="notice">${t.bundles.heldWaiting(offer.held.course.name)}</p>`;
  const ended = endedCourseOf(offer, now);
  if (ended) return html`<p class="notice">${t.bundles.ended(ended.name, f.day(ended.endDate) ?? '')}</p>`;
  if (!offer.forSale) return html`<p class="muted">${t.bundles.free}</p>`;
  return html`<p class="muted">${t.purchase.buyText}</p>
<form method="post" action="${href('/dashboard/bundles', offer.id, 'purchase')}"><button type="submit" aria-label="${t.bundles.buyLabel(offer.name)}">${t.bundles.buyButton}</button></form>`;
}

/**
 * GET /dashboard/bundles: the bundles the person can buy (both courses buyer-visible), ten to a
 * page (`?page=`), all of them or those holding one course (`?courseId=`, the course page's link), each with
 * its two courses, their price at their tier against the two bought separately, and where they
 * stand: enrolled in both, paid, a pending transfer with its instructions, a course of it already
 * had or being paid for, free, or the buy form
 * (a plain form posting to ../learning/forms.ts, which comes back here with 303).
 */
const bundlesPage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/bundles',
    pageOptions(
      { summary: 'The course bundles a learner can buy, at their tier price, with the buy form', querystring: PageQuery },
      { sessionLimited: true },
    ),
    async (request, reply) => {
      const { session, ctx } = await signedIn(app, request);
      const { t } = ctx;
      const userId = session.caller.userId;
      const given = request.query;
      const ignored: ('courseId' | 'page')[] = [];
      const read = (name: 'courseId' | 'page', max: number) => {
        const value = given[name];
        if (value === undefined || value === '') return undefined;
        const n = wholeNumber(value, max);
        if (n === undefined) ignored.push(name);
        return n;
      };
      const filter: BundleOfferFilter = { courseId: read('courseId', MAX_ID) };
      const asked = read('page', MAX_PAGE) ?? 1;
      const total = await countBundleOffers(app.db, filter);
      // A page past the end shows the last one: the list may have shrunk since the link was made.
      const totalPages = Math.max(1, Math.ceil(total / BUNDLES_PAGE_SIZE));
      const at = { page: Math.min(asked, totalPages), totalPages };
      const offers =
        total === 0
          ? []
          : await findBundleOffers(app.db, userId, filter, { offset: (at.page - 1) * BUNDLES_PAGE_SIZE, limit: BUNDLES_PAGE_SIZE });
      const now = app.clock();
      // Whom to ask when a waiting purchase's institution (its first course's) has no account yet.
      const contacts = new Map(
        await Promise.all(
          offers
            .filter((o) => o.pending !== null && !o.pending.transferAccount?.accountNumber)
            .map(async (o) => [o.id, await courseContactLine(app, ctx, Number(o.courses[0].id), 'account')] as const),
        ),
      );
      const cards = offers.map((offer) => {
        const price = t.purchase.money(offer.price, offer.currency);
        const separately = t.purchase.money(offer.separatePrice, offer.currency);
        const pending = offer.pending !== null && transferInstructions(app, ctx, offer.pending, contacts.get(offer.id) ?? false);
        return html`<li class="card"><article aria-labelledby="bundle-${offer.id}-name" id="bundle-${offer.id}">
<h2 id="bundle-${offer.id}-name">${offer.name}</h2>
<p class="muted">${t.bundles.category(offer.categoryName)}</p>
${offer.description && html`<p>${offer.description}</p>`}
<p>${t.bundles.contains}:</p>
<ul>${offer.courses.map((c) => html`<li><a href="${href('/dashboard/courses', c.id)}">${c.name}</a></li>`)}</ul>
${offer.forSale && html`<p><strong>${t.bundles.priceForYou(price)}</strong>${Number(offer.separatePrice) > Number(offer.price) && html` <span class="muted">(${t.bundles.separately(separately)})</span>`}</p>`}
${standing(ctx, offer, pending, now)}
</article></li>
`;
      });
      // The course the list is narrowed to, named as the bundles show it (no name when none holds it).
      const course = filter.courseId !== undefined && offers.flatMap((o) => o.courses).find((c) => c.id === filter.courseId);
      const narrowed =
        filter.courseId !== undefined &&
        html`<p role="status">${course ? t.bundles.forCourse(course.name) : t.bundles.noneForCourse} <a href="/dashboard/bundles">${t.bundles.showAll}</a></p>`;
      const link = (p: number) => href('/dashboard/bundles').withQuery({ courseId: filter.courseId, page: p });
      const body = html`<h1>${t.bundles.title}</h1>
<p class="muted">${t.bundles.intro}</p>
${flashOf(ctx, given.purchase)}
${ignoredNote(
  ctx,
  ignored.map((name) => t.bundles.field[name]),
)}
${narrowed}
${offers.length > 0 ? html`<ul class="course-list" aria-label="${t.bundles.title}">${cards}</ul>` : filter.courseId === undefined && html`<p class="muted" role="status">${t.bundles.none}</p>`}
${pager(ctx, at, link)}`;
      return sendPage(reply, page(ctx, t.bundles.title, body, { user: session.user, current: '/dashboard/bundles' }));
    },
  );
};

export default bundlesPage;
