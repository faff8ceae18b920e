import type { FastifyInstance } from 'fastify';
import type { PurchaseToPay } from '../../domain/learning/payment-provider.js';
import type { PageContext } from '../i18n/index.js';
import { amount } from '../view/components.js';
import { type Html, href, html } from '../view/html.js';

/** A pending purchase as the transfer instructions need it. */
export interface PendingPurchase {
  id: number;
  amount: string;
  currency: string;
  reference: string | null;
  /** When it expires unpaid (null: a purchase from before expiry existed). */
  expiresAt: Date | string | null;
  /** The selling institution's account, when the operator set one. */
  transferAccount?: PurchaseToPay['account'];
}

/**
 * What a buyer with a pending purchase must do: transfer the exact amount to the account the
 * payment provider names, with the purchase's reference, before it expires, then wait for an
 * admin's confirmation; or cancel it (the form comes back to the page that shows the item). The
 * course page's enrol section and the bundles page show the same block. Without an account,
 * `contact` names whom to ask (./contact.ts).
 */
export function transferInstructions(app: FastifyInstance, ctx: PageContext, open: PendingPurchase, contact: Html | false = false): Html {
  const { t, f } = ctx;
  const steps = app.payments.provider.begin({
    id: open.id,
    amount: open.amount,
    currency: open.currency,
    reference: open.reference ?? '',
    account: open.transferAccount,
  });
  const reference = open.reference ?? '';
  // No account configured: say so plainly, name none (nobody should transfer to a guess).
  const account = steps.accountNumber
    ? html`<dt>${t.purchase.bank}</dt><dd>${steps.bankName ?? '—'}</dd>
<dt>${t.purchase.accountNumber}</dt><dd><code>${steps.accountNumber}</code></dd>
<dt>${t.purchase.accountHolder}</dt><dd>${steps.accountName ?? '—'}</dd>`
    : html`<dt>${t.purchase.toAccount}</dt><dd><p class="error" role="alert">${t.purchase.noAccount}</p>${contact}</dd>`;
  return html`<h3>${t.purchase.pendingHeading}</h3>
<dl class="transfer">
<dt>${t.purchase.amount}</dt><dd><strong>${amount(t.purchase.money(open.amount, open.currency))}</strong></dd>
${account}
<dt>${t.purchase.reference}</dt><dd><code>${reference}</code></dd>
</dl>
${open.expiresAt !== null && html`<p>${t.purchase.payBefore(f.dateTime(open.expiresAt) ?? '')}</p>`}
<p class="muted">${t.purchase.waiting}</p>
<form method="post" action="${href('/dashboard/purchases', open.id, 'cancel')}">
<button type="submit" class="secondary" aria-label="${t.purchase.cancelLabel(reference)}">${t.purchase.cancelButton}</button>
</form>`;
}
