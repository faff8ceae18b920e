import type { FastifyInstance } from 'fastify';
import type { PageContext } from '../i18n/index.js';
import { type Html, href, html } from '../view/html.js';

/** A pending purchase as the transfer instructions need it. */
export interface PendingPurchase {
  id: number;
  amount: string;
  currency: string;
  reference: string | null;
  /** When it expires unpaid (null: a purchase from before expiry existed). */
  expiresAt: Date | string | null;
}

/**
 * What a buyer with a pending purchase must do: transfer the exact amount to the account the
 * payment provider names, with the purchase's reference, before it expires, then wait for an
 * admin's confirmation; or cancel it (the form comes back to the page that shows the item). The
 * course page's enrol section and the bundles page show the same block.
 */
export function transferInstructions(app: FastifyInstance, ctx: PageContext, open: PendingPurchase): Html {
  const { t, f } = ctx;
  const steps = app.payments.provider.begin({ id: open.id, amount: open.amount, currency: open.currency, reference: open.reference ?? '' });
  const account = steps.accountNumber
    ? [steps.bankName, steps.accountNumber, steps.accountName].filter(Boolean).join(' · ')
    : t.purchase.institutionAccount;
  const reference = open.reference ?? '';
  return html`<h3>${t.purchase.pendingHeading}</h3>
<dl>
<dt>${t.purchase.amount}</dt><dd><strong>${t.purchase.money(open.amount, open.currency)}</strong></dd>
<dt>${t.purchase.toAccount}</dt><dd>${account}</dd>
<dt>${t.purchase.reference}</dt><dd><code>${reference}</code></dd>
</dl>
${open.expiresAt !== null && html`<p>${t.purchase.payBefore(f.dateTime(open.expiresAt) ?? '')}</p>`}
<p class="muted">${t.purchase.waiting}</p>
<form method="post" action="${href('/dashboard/purchases', open.id, 'cancel')}">
<button type="submit" class="secondary" aria-label="${t.purchase.cancelLabel(reference)}">${t.purchase.cancelButton}</button>
</form>`;
}
