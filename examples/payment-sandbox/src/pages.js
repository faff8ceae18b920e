// The payer's pages: Snap's redirect_url page and Xendit's invoice_url page, reduced to what a
// test or a demo needs: the order, the amount, a method to choose, and pay / fail / expire.
import { escapeHtml as e } from './http.js';
import { PAYMENT_TYPES } from './midtrans.js';
import { CHANNELS } from './xendit.js';

const METHOD_LABEL = {
  qris: 'QRIS',
  bank_transfer: 'Virtual account (BCA)',
  gopay: 'GoPay',
  shopeepay: 'ShopeePay',
  credit_card: 'Card',
};
const rupiah = (n, currency = 'IDR') => `${currency} ${Number(n).toLocaleString('id-ID')}`;

function layout(title, body) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}
dt{color:#555}dd{margin:0 0 .5rem;font-weight:600}button{margin:.25rem .25rem 0 0;padding:.5rem 1rem}
.banner{background:#fff3cd;padding:.5rem;border-radius:4px}</style></head>
<body><p class="banner">Payment sandbox: no real money moves.</p>${body}</body></html>`;
}

export function snapPage(tx, token) {
  const name = [tx.customer_details.first_name, tx.customer_details.last_name].filter(Boolean).join(' ');
  const done = tx.transaction_status && tx.transaction_status !== 'pending';
  const form = done
    ? `<p id="status">This transaction is <strong>${e(tx.transaction_status)}</strong>.</p>`
    : `<form method="post" action="/snap/v4/redirection/${e(token)}">
<label for="payment_type">Payment method</label>
<select id="payment_type" name="payment_type">${PAYMENT_TYPES.map((t) => `<option value="${t}">${METHOD_LABEL[t]}</option>`).join('')}</select>
<div><button name="action" value="pay">Pay</button><button name="action" value="fail">Fail</button><button name="action" value="expire">Expire</button></div>
</form>`;
  return layout(
    `Midtrans Snap (sandbox): ${tx.order_id}`,
    `<h1>Midtrans Snap</h1>
<dl><dt>Order</dt><dd id="order-id">${e(tx.order_id)}</dd>
<dt>Amount</dt><dd id="amount">${e(rupiah(tx.gross_amount, tx.currency))}</dd>
${name ? `<dt>Customer</dt><dd>${e(name)}</dd>` : ''}
${tx.item_details.map((i) => `<dt>Item</dt><dd>${e(i.name)} × ${e(i.quantity)}</dd>`).join('')}
<dt>Expires</dt><dd>${e(tx.expiry_time)} (GMT+7)</dd></dl>
${form}`,
  );
}

export function invoicePage(inv) {
  const form =
    inv.status === 'PENDING'
      ? `<form method="post" action="/web/${e(inv.id)}">
<label for="channel">Payment method</label>
<select id="channel" name="channel">${CHANNELS.map((c) => `<option value="${c}">${e(c.replace(':', ' / '))}</option>`).join('')}</select>
<div><button name="action" value="pay">Pay</button><button name="action" value="expire">Expire</button></div>
</form>`
      : `<p id="status">This invoice is <strong>${e(inv.status)}</strong>.</p>`;
  return layout(
    `Xendit invoice (sandbox): ${inv.external_id}`,
    `<h1>${e(inv.merchant_name)}</h1>
<dl><dt>Invoice</dt><dd id="external-id">${e(inv.external_id)}</dd>
<dt>Amount</dt><dd id="amount">${e(rupiah(inv.amount, inv.currency))}</dd>
${inv.description ? `<dt>Description</dt><dd>${e(inv.description)}</dd>` : ''}
<dt>Expires</dt><dd>${e(inv.expiry_date)}</dd></dl>
${form}`,
  );
}

export function resultPage(title, text) {
  return layout(title, `<h1>${e(title)}</h1><p id="status">${e(text)}</p>`);
}

export function notFoundPage() {
  return layout('Not found', '<h1>Not found</h1><p>No such transaction in this sandbox.</p>');
}
