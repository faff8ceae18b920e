// Xendit Invoices and Refunds, as documented:
//   POST /v2/invoices, GET /v2/invoices/{id}, POST /invoices/{id}/expire!
//       https://developers.xendit.co/api-reference/#create-invoice and the SDK's reference,
//       https://github.com/xendit/xendit-node/blob/master/docs/Invoice.md (request: external_id,
//       amount, currency, payer_email, description, invoice_duration (s), success_redirect_url,
//       failure_redirect_url; answer: id, external_id, user_id, status PENDING, merchant_name,
//       amount, invoice_url, expiry_date, available_*, created, updated, currency)
//   invoice callback (header x-callback-token): the InvoiceCallback object of the same page
//       (id, external_id, user_id, is_high, status PAID|EXPIRED, merchant_name, amount,
//       paid_amount, paid_at, payer_email, description, payment_method, payment_channel,
//       payment_destination, payment_id, bank_code, ewallet_type, currency, created, updated)
//   POST /refunds {invoice_id, amount, reason, reference_id} and the refund.succeeded callback
//       https://github.com/xendit/xendit-node/blob/master/docs/Refund.md ("invoice refunds go
//       through the Refund API with invoice_id"); errors {error_code, message}.
// Auth: `Authorization: Basic base64(<secret API key>:)` (https://developers.xendit.co/api-reference/#authentication).
import { randomBytes, randomUUID } from 'node:crypto';
import { baseUrl, basicUser } from './http.js';

const CURRENCIES = ['IDR', 'PHP', 'THB', 'VND', 'MYR', 'SGD', 'USD'];
/** The page's choices: payment_method:payment_channel, as the callback reports them. */
export const CHANNELS = [
  'QR_CODE:QRIS',
  'BANK_TRANSFER:BCA',
  'BANK_TRANSFER:MANDIRI',
  'EWALLET:OVO',
  'EWALLET:DANA',
  'CREDIT_CARD:CREDIT_CARD',
];
const REFUND_REASONS = ['FRAUDULENT', 'DUPLICATE', 'REQUESTED_BY_CUSTOMER', 'CANCELLATION', 'OTHERS'];

const hexId = () => randomBytes(12).toString('hex');
const xError = (status, error_code, message) => ({ status, body: { error_code, message } });

function invoiceProblem(b) {
  if (typeof b.external_id !== 'string' || b.external_id === '') return '"external_id" is required';
  if (b.external_id.length > 1000) return '"external_id" length must be less than or equal to 1000 characters long';
  if (typeof b.amount !== 'number' || !Number.isFinite(b.amount)) return '"amount" must be a number';
  if (b.amount < 1) return '"amount" must be greater than or equal to 1';
  if (b.currency !== undefined && !CURRENCIES.includes(b.currency)) return `"currency" must be one of [${CURRENCIES.join(', ')}]`;
  if (b.invoice_duration !== undefined && !(Number.isInteger(Number(b.invoice_duration)) && Number(b.invoice_duration) >= 1))
    return '"invoice_duration" must be a positive integer';
  if (b.payer_email !== undefined && !/^[^@\s]+@[^@\s]+$/.test(String(b.payer_email))) return '"payer_email" must be a valid email';
  return null;
}

/**
 * The Xendit half of the sandbox. Callbacks go to `invoiceCallbackUrl` (and refunds' to
 * `refundCallbackUrl`), each with `x-callback-token: <callbackToken>`, as set in the dashboard.
 */
export function createXendit({
  secretKey,
  callbackToken,
  invoiceCallbackUrl,
  refundCallbackUrl,
  businessId = '5f27a14a9bf05c73dd040bc8',
  merchantName = 'LMS Sandbox',
  publicUrl,
  deliver,
}) {
  const invoices = new Map();
  const refunds = new Map();
  /** Refunds by Idempotency-key header. */
  const idempotent = new Map();

  const authorized = (req) => secretKey !== undefined && basicUser(req) === secretKey;
  const unauthorized = () => xError(401, 'INVALID_API_KEY', 'API key is not authorized for this API service');

  function createInvoice(req, body) {
    if (!authorized(req)) return unauthorized();
    if (body === undefined) return xError(400, 'API_VALIDATION_ERROR', 'Request body must be a JSON object');
    const problem = invoiceProblem(body);
    if (problem) return xError(400, 'API_VALIDATION_ERROR', problem);
    const id = hexId();
    const now = new Date();
    const duration = Number(body.invoice_duration ?? 86_400);
    const currency = body.currency ?? 'IDR';
    const invoice = {
      id,
      external_id: body.external_id,
      user_id: businessId,
      status: 'PENDING',
      merchant_name: merchantName,
      merchant_profile_picture_url: 'https://xnd-companies.s3.amazonaws.com/prod/1538466380522_868.png',
      amount: body.amount,
      ...(body.payer_email ? { payer_email: body.payer_email } : {}),
      ...(body.description ? { description: body.description } : {}),
      expiry_date: new Date(now.getTime() + duration * 1000).toISOString(),
      invoice_url: `${baseUrl(req, publicUrl)}/web/${id}`,
      available_banks: ['BCA', 'MANDIRI'].map((bank_code) => ({
        bank_code,
        collection_type: 'POOL',
        transfer_amount: body.amount,
        bank_branch: 'Virtual Account',
        account_holder_name: merchantName.toUpperCase(),
        identity_amount: 0,
      })),
      available_retail_outlets: [],
      available_ewallets: [{ ewallet_type: 'OVO' }, { ewallet_type: 'DANA' }],
      available_qr_codes: [{ qr_code_type: 'QRIS' }],
      available_direct_debits: [],
      available_paylaters: [],
      should_exclude_credit_card: false,
      should_send_email: false,
      ...(body.success_redirect_url ? { success_redirect_url: body.success_redirect_url } : {}),
      ...(body.failure_redirect_url ? { failure_redirect_url: body.failure_redirect_url } : {}),
      created: now.toISOString(),
      updated: now.toISOString(),
      currency,
      ...(body.customer ? { customer: body.customer } : {}),
      ...(body.items ? { items: body.items } : {}),
    };
    invoices.set(id, invoice);
    return { status: 200, body: invoice };
  }

  function getInvoice(req, id) {
    if (!authorized(req)) return unauthorized();
    const invoice = invoices.get(id);
    if (!invoice) return xError(404, 'INVOICE_NOT_FOUND_ERROR', 'Could not find invoice by id');
    return { status: 200, body: invoice };
  }

  /** The invoice callback body for the invoice as it stands (or with `overrides`, for tests). */
  function callbackBody(inv, overrides = {}) {
    const base = {
      id: inv.id,
      external_id: inv.external_id,
      user_id: inv.user_id,
      is_high: false,
      status: inv.status,
      merchant_name: inv.merchant_name,
      amount: inv.amount,
      ...(inv.payer_email ? { payer_email: inv.payer_email } : {}),
      ...(inv.description ? { description: inv.description } : {}),
      created: inv.created,
      updated: inv.updated,
      currency: inv.currency,
    };
    if (inv.status === 'PAID' || inv.status === 'SETTLED') {
      Object.assign(base, {
        paid_amount: inv.paid_amount,
        paid_at: inv.paid_at,
        payment_method: inv.payment_method,
        payment_channel: inv.payment_channel,
        payment_destination: inv.payment_destination,
        payment_id: inv.payment_id,
        adjusted_received_amount: inv.paid_amount,
        fees_paid_amount: 0,
      });
      if (inv.payment_method === 'BANK_TRANSFER') base.bank_code = inv.payment_channel;
      if (inv.payment_method === 'EWALLET') base.ewallet_type = inv.payment_channel;
    }
    return { ...base, ...overrides };
  }

  function notify(inv, { overrides, token = callbackToken, kind = `callback:${inv.status}` } = {}) {
    return deliver.send({
      provider: 'xendit',
      kind,
      url: invoiceCallbackUrl,
      headers: { 'x-callback-token': token ?? '' },
      body: callbackBody(inv, overrides),
    });
  }

  /** PAID (with a channel "METHOD:CHANNEL") or EXPIRED; null when the invoice is unknown or no longer pending. */
  function transition(id, status, { channel } = {}) {
    const inv = invoices.get(id);
    if (!inv) return null;
    if (inv.status !== 'PENDING') return { invoice: inv, notification: null, refused: `invoice is ${inv.status}` };
    const now = new Date().toISOString();
    inv.status = status;
    inv.updated = now;
    if (status === 'PAID') {
      const [method, ch] = (CHANNELS.includes(channel) ? channel : CHANNELS[0]).split(':');
      Object.assign(inv, {
        paid_amount: inv.amount,
        paid_at: now,
        payment_method: method,
        payment_channel: ch,
        payment_destination: method === 'BANK_TRANSFER' ? `8808${randomBytes(4).readUInt32BE(0)}` : ch,
        payment_id: `pyid_${randomUUID()}`,
      });
    }
    return { invoice: inv, notification: notify(inv) };
  }

  function expireInvoice(req, id) {
    if (!authorized(req)) return unauthorized();
    const inv = invoices.get(id);
    if (!inv) return xError(404, 'INVOICE_NOT_FOUND_ERROR', 'Could not find invoice by id');
    if (inv.status !== 'PENDING') return xError(400, 'INVOICE_NOT_FOUND_ERROR', 'Invoice is already paid or expired');
    transition(id, 'EXPIRED');
    return { status: 200, body: inv };
  }

  function createRefund(req, body) {
    if (!authorized(req)) return unauthorized();
    if (body === undefined) return xError(400, 'API_VALIDATION_ERROR', 'Request body must be a JSON object');
    const key = req.headers['idempotency-key'];
    if (key && idempotent.has(key)) return { status: 200, body: refunds.get(idempotent.get(key)) };
    if (typeof body.invoice_id !== 'string') return xError(400, 'API_VALIDATION_ERROR', '"invoice_id" or "payment_request_id" is required');
    if (body.reason !== undefined && !REFUND_REASONS.includes(body.reason))
      return xError(400, 'API_VALIDATION_ERROR', `"reason" must be one of [${REFUND_REASONS.join(', ')}]`);
    const inv = invoices.get(body.invoice_id);
    if (!inv) return xError(404, 'DATA_NOT_FOUND', 'Invoice not found');
    if (inv.status !== 'PAID' && inv.status !== 'SETTLED')
      return xError(400, 'INELIGIBLE_TRANSACTION_STATUS_ERROR', 'Only a paid invoice can be refunded');
    const refunded = [...refunds.values()].filter((r) => r.invoice_id === inv.id).reduce((s, r) => s + r.amount, 0);
    const amount = body.amount === undefined ? inv.paid_amount - refunded : Number(body.amount);
    if (refunded >= inv.paid_amount) return xError(403, 'MAXIMUM_REFUND_AMOUNT_REACHED_ERROR', 'The invoice has been refunded in full');
    if (!Number.isFinite(amount) || amount <= 0 || amount + refunded > inv.paid_amount)
      return xError(400, 'REFUND_AMOUNT_EXCEEDED_ERROR', 'The refund amount exceeds the amount left to refund');
    const now = new Date().toISOString();
    const refund = {
      id: `rfd-${randomUUID()}`,
      payment_request_id: null,
      invoice_id: inv.id,
      payment_id: inv.payment_id,
      amount,
      channel_code: inv.payment_channel,
      country: 'ID',
      currency: inv.currency,
      reference_id: body.reference_id ?? null,
      reason: body.reason ?? 'OTHERS',
      status: 'PENDING',
      failure_code: null,
      refund_fee_amount: null,
      created: now,
      updated: now,
      metadata: body.metadata ?? null,
    };
    refunds.set(refund.id, refund);
    if (key) idempotent.set(key, refund.id);
    const answer = { ...refund };
    // The provider completes it shortly after and tells the merchant (refund.succeeded).
    refund.status = 'SUCCEEDED';
    refund.updated = new Date().toISOString();
    deliver.send({
      provider: 'xendit',
      kind: 'callback:refund.succeeded',
      url: refundCallbackUrl ?? invoiceCallbackUrl,
      headers: { 'x-callback-token': callbackToken ?? '' },
      body: { event: 'refund.succeeded', business_id: businessId, created: refund.updated, data: { ...refund } },
    });
    return { status: 200, body: answer };
  }

  function getRefund(req, id) {
    if (!authorized(req)) return unauthorized();
    const refund = refunds.get(id);
    if (!refund) return xError(404, 'DATA_NOT_FOUND', 'Refund not found');
    return { status: 200, body: refund };
  }

  return { invoices, refunds, createInvoice, getInvoice, expireInvoice, createRefund, getRefund, transition, notify, callbackBody };
}
