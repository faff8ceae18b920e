import type { FastifyInstance } from 'fastify';
import { paymentProvider } from '../../routes/learning/purchases.js';
import type { PageContext } from '../i18n/index.js';
import { type Html, html } from '../view/html.js';

/** A pending purchase as the transfer instructions need it. */
export interface PendingPurchase {
  id: number;
  amount: string;
  currency: string;
  reference: string | null;
}

/**
 * What a buyer with a pending purchase must do: transfer the exact amount to the account the
 * payment provider names, with the purchase's reference, then wait for an admin's confirmation.
 * The course page's enrol section and the bundles page show the same block.
 */
export function transferInstructions(app: FastifyInstance, ctx: PageContext, open: PendingPurchase): Html {
  const { t } = ctx;
  const steps = paymentProvider(app).begin({ id: open.id, amount: open.amount, currency: open.currency, reference: open.reference ?? '' });
  const account = steps.accountNumber
    ? [steps.bankName, steps.accountNumber, steps.accountName].filter(Boolean).join(' · ')
    : t.purchase.institutionAccount;
  const amount = t.purchase.money(open.amount, open.currency);
  return html`<h3>${t.purchase.pendingHeading}</h3>
<dl>
<dt>${t.purchase.transfer(amount)}</dt><dd>${amount}</dd>
<dt>${t.purchase.toAccount}</dt><dd>${account}</dd>
<dt>${t.purchase.reference}</dt><dd><code>${open.reference ?? ''}</code></dd>
</dl>
<p class="muted">${t.purchase.waiting}</p>`;
}
