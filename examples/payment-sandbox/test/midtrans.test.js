import { createHash } from 'node:crypto';
import t from 'tap';
import { createPaymentSandbox } from '../src/payment-sandbox.js';
import { api, createReceiver, quiet, readForm, submitForm } from './helpers.js';

// The Midtrans half through HTTP on port 0: Snap, the Snap page, the status and refund APIs,
// and the signed notifications a merchant's receiver gets.

const SERVER_KEY = 'SB-Mid-server-test-0123456789';
const receiver = await createReceiver(t);
const sandbox = createPaymentSandbox({
  midtrans: { serverKey: SERVER_KEY, notificationUrl: `${receiver.url}/webhooks/midtrans` },
  retryScale: 0.00001,
  log: quiet,
});
const base = await sandbox.listen();
t.teardown(() => sandbox.close());
const midtrans = api(base, SERVER_KEY);
const anonymous = api(base);
const idle = () => fetch(`${base}/_sandbox/idle`).then((r) => r.json());
const control = (path, body = {}) => api(base)('POST', `/_sandbox/${path}`, body);
/** The SHA-512 Midtrans documents, computed here independently of the sandbox. */
const sha512 = (s) => createHash('sha512').update(s).digest('hex');
const verifies = (n) => n.signature_key === sha512(`${n.order_id}${n.status_code}${n.gross_amount}${SERVER_KEY}`);

let seq = 0;
async function checkout(overrides = {}) {
  const orderId = `LMS-P${++seq}-${Date.now()}`;
  const res = await midtrans('POST', '/snap/v1/transactions', {
    transaction_details: { order_id: orderId, gross_amount: 150000 },
    customer_details: { first_name: 'Siti', last_name: 'Rahma', email: 'siti@example.org' },
    item_details: [{ id: 'course-1', price: 150000, quantity: 1, name: 'Kursus K3' }],
    expiry: { unit: 'hour', duration: 2 },
    callbacks: { finish: 'https://lms.test/courses/k3?return=1' },
    ...overrides,
  });
  return { orderId, res };
}
const notificationsFor = (orderId) => receiver.received.filter((r) => r.json.order_id === orderId).map((r) => r.json);

t.test('Snap: 201 {token, redirect_url}; a used order_id and a bad body refused as Snap does', async (t) => {
  const { orderId, res } = await checkout();
  t.equal(res.status, 201);
  t.match(res.json, { token: /^[0-9a-f-]{36}$/, redirect_url: `${base}/snap/v4/redirection/${res.json.token}` });
  t.same(Object.keys(res.json).sort(), ['redirect_url', 'token']);
  const again = await midtrans('POST', '/snap/v1/transactions', { transaction_details: { order_id: orderId, gross_amount: 150000 } });
  t.equal(again.status, 400);
  t.same(again.json, { error_messages: ['transaction_details.order_id sudah digunakan'] });
  const missing = await midtrans('POST', '/snap/v1/transactions', { transaction_details: { order_id: 'x-1' } });
  t.equal(missing.status, 400);
  t.same(missing.json.error_messages, ['transaction_details.gross_amount is required']);
  const sum = await checkout({ item_details: [{ id: 'a', price: 1000, quantity: 1, name: 'a' }] });
  t.equal(sum.res.status, 400, 'items must add up to gross_amount');
  const badId = await midtrans('POST', '/snap/v1/transactions', { transaction_details: { order_id: '<b>', gross_amount: 1000 } });
  t.equal(badId.status, 400, 'order_id outside Midtrans characters');
});

t.test('auth: no key or another key is 401, in Snap and Core API shapes', async (t) => {
  for (const call of [anonymous, api(base, 'SB-Mid-server-wrong')]) {
    const snap = await call('POST', '/snap/v1/transactions', { transaction_details: { order_id: 'a-1', gross_amount: 1000 } });
    t.equal(snap.status, 401);
    t.match(snap.json.error_messages[0], /Access denied due to unauthorized transaction/);
    const status = await call('GET', '/v2/a-1/status');
    t.equal(status.status, 401);
    t.match(status.json, { status_code: '401', status_message: String, id: String });
    const refund = await call('POST', '/v2/a-1/refund', { refund_key: 'k', amount: 1 });
    t.equal(refund.status, 401);
  }
  t.notOk(sandbox.midtrans.transactions.has('a-1'), 'nothing was created');
  const log = await (await fetch(`${base}/_sandbox/log`)).json();
  t.notMatch(JSON.stringify(log.requests), SERVER_KEY, 'the log never holds the key');
  t.ok(log.requests.some((r) => r.path === '/snap/v1/transactions' && r.status === 401 && r.authorization === null));
});

t.test('the Snap page: order, amount, escaped customer, a method choice; Pay notifies and returns to finish', async (t) => {
  const { orderId, res } = await checkout({ customer_details: { first_name: '<script>alert(1)</script>', email: 'x@example.org' } });
  const page = await fetch(res.json.redirect_url);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), 'text/html');
  const html = await page.text();
  t.match(html, `<dd id="order-id">${orderId}</dd>`);
  t.match(html, /IDR 150\.000/);
  t.match(html, '&lt;script&gt;alert(1)&lt;/script&gt;');
  t.notMatch(html, '<script>');
  const form = readForm(html);
  t.same(form.buttons, ['pay', 'fail', 'expire']);
  t.same(form.options, ['qris', 'bank_transfer', 'gopay', 'shopeepay', 'credit_card']);

  t.equal((await midtrans('GET', `/v2/${orderId}/status`)).status, 404, 'no transaction before a method is chosen');
  const paid = await submitForm(`${base}${form.action}`, { payment_type: 'qris', action: 'pay' });
  t.equal(paid.status, 303);
  const back = new URL(paid.headers.get('location'));
  t.equal(`${back.origin}${back.pathname}`, 'https://lms.test/courses/k3');
  t.same(Object.fromEntries(back.searchParams), { return: '1', order_id: orderId, status_code: '200', transaction_status: 'settlement' });

  await idle();
  const [n] = notificationsFor(orderId);
  t.match(n, {
    transaction_status: 'settlement',
    status_code: '200',
    gross_amount: '150000.00',
    fraud_status: 'accept',
    order_id: orderId,
    transaction_id: /^[0-9a-f-]{36}$/,
    payment_type: 'qris',
    currency: 'IDR',
    transaction_time: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
    settlement_time: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
    status_message: 'midtrans payment notification',
  });
  t.ok(verifies(n), 'signature_key = SHA-512(order_id + status_code + gross_amount + server key)');
  t.equal(receiver.received.find((r) => r.json.order_id === orderId).path, '/webhooks/midtrans');
  const again = await (await fetch(res.json.redirect_url)).text();
  t.match(again, 'This transaction is <strong>settlement</strong>', 'a settled page offers no buttons');
  t.equal((await submitForm(`${base}${form.action}`, { action: 'fail' })).status, 409);
});

t.test('the page: Fail is deny, Expire is expire, a card payment is capture; a virtual account carries va_numbers', async (t) => {
  for (const [action, paymentType, status, code] of [
    ['fail', 'gopay', 'deny', '202'],
    ['expire', 'bank_transfer', 'expire', '407'],
    ['pay', 'credit_card', 'capture', '200'],
    ['pay', 'bank_transfer', 'settlement', '200'],
  ]) {
    const { orderId, res } = await checkout();
    const r = await submitForm(res.json.redirect_url, { payment_type: paymentType, action });
    t.equal(r.status, 303);
    t.match(r.headers.get('location'), `transaction_status=${status}`);
    await idle();
    const [n] = notificationsFor(orderId);
    t.match(n, { transaction_status: status, status_code: code, payment_type: paymentType }, `${action} ${paymentType}`);
    t.ok(verifies(n));
    if (status === 'settlement' && paymentType === 'bank_transfer') t.match(n.va_numbers, [{ bank: 'bca', va_number: /^\d{11}$/ }]);
  }
});

t.test('GET /v2/{order_id}/status: the documented body; unknown order 404', async (t) => {
  const { orderId } = await checkout();
  await control(`midtrans/${orderId}/settle`, { payment_type: 'shopeepay' });
  const s = await midtrans('GET', `/v2/${orderId}/status`);
  t.equal(s.status, 200);
  t.match(s.json, {
    status_code: '200',
    status_message: 'Success, transaction is found',
    transaction_status: 'settlement',
    order_id: orderId,
    gross_amount: '150000.00',
    currency: 'IDR',
    payment_type: 'shopeepay',
    fraud_status: 'accept',
  });
  t.ok(verifies(s.json));
  const byId = await midtrans('GET', `/v2/${s.json.transaction_id}/status`);
  t.equal(byId.json.order_id, orderId, 'the transaction id works too');
  const unknown = await midtrans('GET', '/v2/no-such-order/status');
  t.equal(unknown.status, 404);
  t.match(unknown.json, { status_code: '404', status_message: "Transaction doesn't exist." });
});

t.test('refunds: partial then full, each with a signed notification; an unsettled one 412', async (t) => {
  const { orderId } = await checkout();
  await control(`midtrans/${orderId}/pending`, { payment_type: 'qris' });
  const early = await midtrans('POST', `/v2/${orderId}/refund`, { refund_key: 'r0', amount: 1000, reason: 'x' });
  t.equal(early.status, 412);
  t.match(early.json, { status_code: '412' });
  t.equal((await control(`midtrans/${orderId}/settle`)).status, 200, 'pending, then settled');
  t.equal((await control(`midtrans/${orderId}/expire`)).status, 409, 'a settled one is not moved again');

  const part = await midtrans('POST', `/v2/${orderId}/refund`, { refund_key: 'r1', amount: 50000, reason: 'Permintaan peserta' });
  t.equal(part.status, 200);
  t.match(part.json, {
    status_code: '200',
    transaction_status: 'partial_refund',
    refund_amount: '50000.00',
    refund_key: 'r1',
    gross_amount: '150000.00',
    refund_chargeback_id: Number,
  });
  const same = await midtrans('POST', `/v2/${orderId}/refund`, { refund_key: 'r1', amount: 50000, reason: 'Permintaan peserta' });
  t.same(same.json.refund_chargeback_id, part.json.refund_chargeback_id, 'the same refund_key is the same refund');
  const over = await midtrans('POST', `/v2/${orderId}/refund`, { refund_key: 'r2', amount: 100001, reason: 'x' });
  t.equal(over.status, 412, 'more than is left');
  const rest = await midtrans('POST', `/v2/${orderId}/refund`, { refund_key: 'r3', reason: 'sisa' });
  t.match(rest.json, { transaction_status: 'refund', refund_amount: '100000.00' });
  await idle();
  const ns = notificationsFor(orderId).filter((n) => n.transaction_status.includes('refund'));
  t.same(
    ns.map((n) => [n.transaction_status, n.refund_amount]),
    [
      ['partial_refund', '50000.00'],
      ['refund', '150000.00'],
    ],
  );
  t.ok(ns.every(verifies));
  t.equal(ns[1].refunds.length, 2);
  t.equal((await midtrans('GET', `/v2/${orderId}/status`)).json.transaction_status, 'refund');
});
