// Midtrans Snap and the part of the Core API a merchant uses after checkout, as documented:
//   POST /snap/v1/transactions    https://docs.midtrans.com/reference/backend-integration
//                                 (request: transaction_details, customer_details, item_details,
//                                 expiry {start_time, unit, duration}, callbacks.finish;
//                                 201 {token, redirect_url}; errors {error_messages: [...]})
//   GET  /v2/{order_id}/status    https://docs.midtrans.com/reference/get-transaction-status
//   POST /v2/{order_id}/refund    https://docs.midtrans.com/reference/refund-transaction
//   HTTP notification body        https://docs.midtrans.com/docs/https-notification-webhooks
//   signature_key                 https://docs.midtrans.com/reference/handle-notifications
//                                 SHA512(order_id + status_code + gross_amount + server key)
//   status codes                  https://docs.midtrans.com/reference/code-4xx (401, 404, 406 duplicate, 412)
// Auth: `Authorization: Basic base64(<server key>:)` (https://docs.midtrans.com/docs/api-authorization).
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { baseUrl, basicUser, jakartaTime, withQuery } from './http.js';

const ORDER_ID = /^[A-Za-z0-9\-_~.]{1,50}$/;
/** status_code per transaction_status, as the notifications and the status API carry it. */
export const STATUS_CODE = {
  capture: '200',
  settlement: '200',
  pending: '201',
  deny: '202',
  cancel: '200',
  expire: '407',
  refund: '200',
  partial_refund: '200',
  failure: '202',
};
export const PAYMENT_TYPES = ['qris', 'bank_transfer', 'gopay', 'shopeepay', 'credit_card'];
const UNIT_MS = { minute: 60_000, minutes: 60_000, hour: 3_600_000, hours: 3_600_000, day: 86_400_000, days: 86_400_000 };

export function signatureKey(orderId, statusCode, grossAmount, serverKey) {
  return createHash('sha512').update(`${orderId}${statusCode}${grossAmount}${serverKey}`).digest('hex');
}

const money = (n) => Number(n).toFixed(2);
const snapError = (status, ...messages) => ({ status, body: { error_messages: messages } });
const coreError = (status, message) => ({ status, body: { status_code: String(status), status_message: message, id: randomUUID() } });

/** Snap's checks on a create-transaction body; the first problem, or null. */
function snapProblem(body) {
  const td = body?.transaction_details;
  if (!td || typeof td !== 'object') return 'transaction_details is required';
  if (td.order_id === undefined || td.order_id === '') return 'transaction_details.order_id is required';
  if (!ORDER_ID.test(String(td.order_id)))
    return 'transaction_details.order_id must be at most 50 characters: letters, digits, -, _, ~ and .';
  if (td.gross_amount === undefined) return 'transaction_details.gross_amount is required';
  if (!Number.isFinite(Number(td.gross_amount)) || Number(td.gross_amount) < 1)
    return 'transaction_details.gross_amount must be a number greater than or equal to 0.01';
  if (!Number.isInteger(Number(td.gross_amount))) return 'transaction_details.gross_amount must be an integer for IDR';
  if (Array.isArray(body.item_details)) {
    const sum = body.item_details.reduce((s, i) => s + Number(i.price) * Number(i.quantity), 0);
    if (sum !== Number(td.gross_amount)) return 'transaction_details.gross_amount is not equal to the sum of item_details';
  }
  const ex = body.expiry;
  if (ex !== undefined) {
    if (!UNIT_MS[ex?.unit]) return 'expiry.unit must be one of minute, hour or day';
    if (!Number.isInteger(ex.duration) || ex.duration < 1) return 'expiry.duration must be a positive integer';
  }
  return null;
}

/**
 * The Midtrans half of the sandbox. `deliver` is the shared deliverer; notifications go to
 * `notificationUrl` (the dashboard's "Payment Notification URL", set per sandbox instance).
 */
export function createMidtrans({ serverKey, notificationUrl, merchantId = 'G000000000', publicUrl, deliver }) {
  /** Transactions by order_id, and order ids by Snap token. */
  const transactions = new Map();
  const byToken = new Map();

  function authorized(req) {
    return serverKey !== undefined && basicUser(req) === serverKey;
  }

  /** The fields the notification and the status API share, for the transaction as it stands. */
  function statusFields(tx, status = tx.transaction_status) {
    const statusCode = STATUS_CODE[status];
    const gross = money(tx.gross_amount);
    const fields = {
      transaction_time: tx.transaction_time,
      transaction_status: status,
      transaction_id: tx.transaction_id,
      status_code: statusCode,
      signature_key: signatureKey(tx.order_id, statusCode, gross, serverKey),
      payment_type: tx.payment_type,
      order_id: tx.order_id,
      merchant_id: merchantId,
      gross_amount: gross,
      fraud_status: status === 'deny' ? 'deny' : 'accept',
      currency: tx.currency,
      expiry_time: tx.expiry_time,
    };
    if (tx.settlement_time && ['settlement', 'refund', 'partial_refund'].includes(status)) fields.settlement_time = tx.settlement_time;
    if (tx.payment_type === 'qris') Object.assign(fields, { transaction_type: 'on-us', issuer: 'gopay', acquirer: 'gopay' });
    if (tx.payment_type === 'bank_transfer') fields.va_numbers = [{ bank: 'bca', va_number: tx.va_number }];
    if (tx.payment_type === 'credit_card')
      Object.assign(fields, { masked_card: '48111111-1114', bank: 'bni', card_type: 'credit', channel_response_code: '00' });
    if (tx.refunds.length > 0 && ['refund', 'partial_refund'].includes(status)) {
      fields.refund_amount = money(tx.refunds.reduce((s, r) => s + Number(r.refund_amount), 0));
      fields.refunds = tx.refunds;
    }
    return fields;
  }

  /** POSTs the HTTP notification; `overrides` fake what a real Midtrans would not send (tests). */
  function notify(tx, { status, grossAmount, resign = false, kind = 'notification' } = {}) {
    const body = { ...statusFields(tx, status ?? tx.transaction_status), status_message: 'midtrans payment notification' };
    if (grossAmount !== undefined) {
      body.gross_amount = String(grossAmount);
      if (resign) body.signature_key = signatureKey(body.order_id, body.status_code, body.gross_amount, serverKey);
    }
    return deliver.send({ provider: 'midtrans', kind, url: notificationUrl, body });
  }

  /** Moves a transaction to a new status (as the payer or Midtrans would) and notifies. */
  function transition(orderId, status, { paymentType } = {}) {
    const tx = transactions.get(orderId);
    if (!tx) return null;
    if (!tx.payment_type || paymentType) tx.payment_type = PAYMENT_TYPES.includes(paymentType) ? paymentType : (tx.payment_type ?? 'qris');
    if (tx.payment_type === 'credit_card' && status === 'settlement') status = 'capture';
    if (!tx.transaction_id) {
      tx.transaction_id = randomUUID();
      tx.transaction_time = jakartaTime();
      tx.va_number = String(randomInt(10 ** 10, 10 ** 11));
    }
    tx.transaction_status = status;
    if (status === 'settlement' || status === 'capture') tx.settlement_time = jakartaTime();
    const notification = notify(tx, { kind: `notification:${status}` });
    return { transaction: tx, notification };
  }

  function createTransaction(req, body) {
    if (!authorized(req))
      return snapError(
        401,
        'Access denied due to unauthorized transaction, please check client or server key',
        'Visit https://snap-docs.midtrans.com/#request-headers for more details',
      );
    if (body === undefined) return snapError(400, 'Invalid JSON in the request body');
    const problem = snapProblem(body);
    if (problem) return snapError(400, problem);
    const orderId = String(body.transaction_details.order_id);
    // A used order_id is refused (status code 406 "Duplicate order ID"), as Snap answers it.
    if (transactions.has(orderId)) return snapError(400, 'transaction_details.order_id sudah digunakan');
    const token = randomUUID();
    const start = body.expiry?.start_time
      ? Date.parse(body.expiry.start_time.replace(' ', 'T').replace(/ ?([+-]\d{2})(\d{2})$/, '$1:$2'))
      : Date.now();
    const expiresAt =
      (Number.isNaN(start) ? Date.now() : start) + (body.expiry ? body.expiry.duration * UNIT_MS[body.expiry.unit] : 86_400_000);
    const tx = {
      token,
      order_id: orderId,
      gross_amount: Number(body.transaction_details.gross_amount),
      currency: 'IDR',
      customer_details: body.customer_details ?? {},
      item_details: body.item_details ?? [],
      callbacks: body.callbacks ?? {},
      expiry_time: jakartaTime(expiresAt),
      transaction_status: null,
      payment_type: null,
      transaction_id: null,
      refunds: [],
      created_at: new Date().toISOString(),
    };
    transactions.set(orderId, tx);
    byToken.set(token, orderId);
    return { status: 201, body: { token, redirect_url: `${baseUrl(req, publicUrl)}/snap/v4/redirection/${token}` } };
  }

  function getStatus(req, orderId) {
    if (!authorized(req)) return coreError(401, 'Unknown Merchant server_key/id');
    const tx = transactions.get(orderId) ?? [...transactions.values()].find((t) => t.transaction_id === orderId);
    // Until the payer picks a method on the Snap page there is no transaction at Midtrans yet.
    if (!tx?.transaction_status) return coreError(404, "Transaction doesn't exist.");
    return { status: 200, body: { ...statusFields(tx), status_message: 'Success, transaction is found' } };
  }

  function refund(req, orderId, body) {
    if (!authorized(req)) return coreError(401, 'Unknown Merchant server_key/id');
    if (body === undefined) return coreError(413, 'The request cannot be processed due to malformed syntax in the request body');
    const tx = transactions.get(orderId);
    if (!tx?.transaction_status) return coreError(404, "Transaction doesn't exist.");
    if (!['settlement', 'capture', 'partial_refund'].includes(tx.transaction_status))
      return coreError(412, 'Merchant cannot modify status of the transaction');
    const previous = tx.refunds.find((r) => body.refund_key !== undefined && r.refund_key === body.refund_key);
    if (previous) return { status: 200, body: refundAnswer(tx, previous) };
    const refunded = tx.refunds.reduce((s, r) => s + Number(r.refund_amount), 0);
    const amount = body.amount === undefined ? tx.gross_amount - refunded : Number(body.amount);
    if (!Number.isFinite(amount) || amount <= 0) return coreError(400, 'amount must be greater than 0');
    if (amount + refunded > tx.gross_amount) return coreError(412, 'Refund amount exceeds the refundable amount of the transaction');
    const entry = {
      refund_chargeback_id: randomInt(1, 2 ** 31),
      refund_amount: money(amount),
      created_at: jakartaTime(),
      reason: String(body.reason ?? ''),
      refund_key: String(body.refund_key ?? randomUUID()),
      refund_method: '',
    };
    tx.refunds.push(entry);
    tx.transaction_status = amount + refunded === tx.gross_amount ? 'refund' : 'partial_refund';
    notify(tx, { kind: `notification:${tx.transaction_status}` });
    return { status: 200, body: refundAnswer(tx, entry) };
  }

  function refundAnswer(tx, entry) {
    return {
      status_code: '200',
      status_message: 'Success, refund request is approved',
      transaction_id: tx.transaction_id,
      order_id: tx.order_id,
      gross_amount: money(tx.gross_amount),
      currency: tx.currency,
      payment_type: tx.payment_type,
      transaction_time: tx.transaction_time,
      transaction_status: tx.transaction_status,
      refund_chargeback_id: entry.refund_chargeback_id,
      refund_amount: entry.refund_amount,
      refund_key: entry.refund_key,
    };
  }

  /** Where the payer goes back to after the Snap page, with the parameters Snap appends. */
  function finishUrl(tx) {
    if (!tx.callbacks?.finish) return null;
    return withQuery(tx.callbacks.finish, {
      order_id: tx.order_id,
      status_code: STATUS_CODE[tx.transaction_status],
      transaction_status: tx.transaction_status,
    });
  }

  return {
    transactions,
    byToken,
    createTransaction,
    getStatus,
    refund,
    transition,
    notify,
    finishUrl,
    /** The current status fields of a transaction (what GET status answers). */
    statusFields,
  };
}
