import type { Db } from '@lms/db';
import { countBundleOffers, findBundleOffers } from '../../domain/learning/bundle-offers.js';
import type { PageContext } from '../i18n/index.js';
import { type Html, href, html } from '../view/html.js';

/** How many of the bundles holding a course its page names; the link shows them all. */
const NAMED = 3;

/**
 * The course page's note on the bundles that hold the course and that the person can buy (both
 * courses buyer-visible, as on the bundles page): how many, the first few by name with the
 * person's price, and a link to the bundles page narrowed to this course. Nothing when there are none.
 */
export async function bundlesSection(db: Db, ctx: PageContext, userId: string, courseId: number): Promise<Html | false> {
  const { t } = ctx;
  const [total, offers] = await Promise.all([
    countBundleOffers(db, { courseId }),
    findBundleOffers(db, userId, { courseId }, { offset: 0, limit: NAMED }),
  ]);
  if (total === 0) return false;
  const items = offers.map(
    (offer) =>
      html`<li>${offer.name}${offer.forSale && html` <span class="muted">· ${t.bundles.priceForYou(t.purchase.money(offer.price, offer.currency))}</span>`}</li>`,
  );
  return html`<section aria-labelledby="bundles" class="card">
<h2 id="bundles">${t.bundles.inBundles}</h2>
<p>${t.bundles.inBundlesText(total)}</p>
<ul>${items}</ul>
<p><a href="${href('/dashboard/bundles').withQuery({ courseId })}">${t.bundles.seeBundles}</a></p>
</section>`;
}
