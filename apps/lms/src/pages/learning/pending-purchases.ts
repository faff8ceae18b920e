import type { FastifyInstance } from 'fastify';
import { countBundleOffers } from '../../domain/learning/bundle-offers.js';
import { listMyPurchases } from '../../domain/learning/purchases.js';
import { BUNDLES_PAGE_SIZE } from '../bundles/index.js';
import type { PageContext } from '../i18n/index.js';
import { amount } from '../view/components.js';
import { type Html, href, html } from '../view/html.js';

/**
 * The learner's dashboard section of their purchases waiting for payment (not past their expiry):
 * what, how much, the reference, until when, with a link to the transfer instructions (the
 * course page's enrol section or the bundle's card) and the cancel form. Nothing when none waits.
 */
export async function pendingPurchasesSection(app: FastifyInstance, ctx: PageContext, userId: string): Promise<Html | false> {
  const { t, f } = ctx;
  const now = app.clock();
  const waiting = (await listMyPurchases(app.db, userId, 50)).filter(
    (p) => p.status === 'pending' && (p.expiresAt === null || p.expiresAt.getTime() > now.getTime()),
  );
  if (waiting.length === 0) return false;
  const links = await Promise.all(
    waiting.map(async (p) => {
      if (p.bundleId === null) return href('/dashboard/courses', p.courseId ?? 0).withFragment('enrol');
      // The page of the bundles list that shows the bundle's card (the list is in id order).
      const position = await countBundleOffers(app.db, { upToId: p.bundleId });
      return href('/dashboard/bundles')
        .withQuery({ page: Math.max(1, Math.ceil(position / BUNDLES_PAGE_SIZE)) })
        .withFragment(`bundle-${p.bundleId}`);
    }),
  );
  const items = waiting.map((p, i) => {
    const link = links[i] ?? href('/dashboard/bundles');
    const reference = p.reference ?? '';
    return html`<li class="card">
<p><strong>${p.itemName || '—'}</strong> · ${amount(t.purchase.money(p.amount, p.currency))} · <code>${reference}</code></p>
${p.expiresAt !== null && html`<p class="muted">${t.purchase.payBefore(f.dateTime(p.expiresAt) ?? '')}</p>`}
<p class="actions"><a href="${link}">${t.purchase.seeInstructions}</a></p>
<form method="post" action="${href('/dashboard/purchases', p.id, 'cancel')}">
<button type="submit" class="secondary" aria-label="${t.purchase.cancelLabel(reference)}">${t.purchase.cancelButton}</button>
</form>
</li>`;
  });
  return html`<section aria-labelledby="pending-purchases">
<h2 id="pending-purchases">${t.purchase.pendingHeading}</h2>
<ul class="course-list">${items}</ul>
</section>`;
}
