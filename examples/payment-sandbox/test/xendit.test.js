import t from 'tap';
import { createPaymentSandbox } from '../src/payment-sandbox.js';
import { api, createReceiver, quiet, readForm, submitForm } from './helpers.js';

// The Xendit half through HTTP on port 0: invoices, the invoice page, callbacks with the
// verification token (retried), refunds through the Refund API with invoice_id.

const SECRET = 'xnd_development_test_0123456789';
const TOKEN = 'callback-token-0123456789';
const receiver = await createReceiver(t);
const sandbox = createPaymentSandbox({
  xendit: {
    secretKey: SECRET,
    callbackToken: TOKEN,
    invoiceCallbackUrl: `${receiver.url}/webhooks/xendit`,
    refundCallbackUrl: `${receiver.url}/webhooks/xendit-refund`,
  },
  retryScale: 0.00001,
  log: quiet,
});
const base = await sandbox.listen();
t.teardown(() => sandbox.close());
const xendit = api(base, SECRET);
const control = (path, body = {}) => api(base)('POST', `/_sandbox/${path}`, body);
const idle = () => fetch(`${base}/_sandbox/idle`).then((r) => r.json());
const callbacksFor = (id) => receiver.received.filter((r) => r.json.id === id);

let seq = 0;
async function invoice(overrides = {}) {
  const res = await xendit('POST', '/v2/invoices', {
    external_id: `lms-purchase-${++seq}`,
    amount: 150000,
    currency: 'IDR',
    payer_email: 'siti@example.org',
    description: 'Kursus K3',
    invoice_duration: 7200,
    success_redirect_url: 'https://lms.test/courses/k3?paid=1',
    failure_redirect_url: 'https://lms.test/courses/k3?failed=1',
    ...overrides,
  });
  return res;
}

t.test('POST /v2/invoices: the documented invoice, PENDING, with its invoice_url; GET returns it', async (t) => {
  const before = Date.now();
  const res = await invoice();
  t.equal(res.status, 200);
  t.match(res.json, {
    id: /^[0-9a-f]{24}$/,
    external_id: `lms-purchase-${seq}`,
    user_id: String,
    status: 'PENDING',
    merchant_name: String,
    amount: 150000,
    payer_email: 'siti@example.org',
    description: 'Kursus K3',
    currency: 'IDR',
    success_redirect_url: 'https://lms.test/courses/k3?paid=1',
    failure_redirect_url: 'https://lms.test/courses/k3?failed=1',
    available_banks: Array,
    available_ewallets: Array,
    available_qr_codes: [{ qr_code_type: 'QRIS' }],
  });
  t.equal(res.json.invoice_url, `${base}/web/${res.json.id}`);
  const expiry = Date.parse(res.json.expiry_date);
  t.ok(expiry >= before + 7200_000 && expiry <= Date.now() + 7200_000, 'expiry_date = now + invoice_duration');
  const got = await xendit('GET', `/v2/invoices/${res.json.id}`);
  t.same(got.json, res.json);
  const missing = await xendit('GET', '/v2/invoices/000000000000000000000000');
  t.equal(missing.status, 404);
  t.same(missing.json, { error_code: 'INVOICE_NOT_FOUND_ERROR', message: 'Could not find invoice by id' });
});

t.test('auth and validation: INVALID_API_KEY 401, API_VALIDATION_ERROR 400', async (t) => {
  for (const call of [api(base), api(base, 'xnd_development_wrong')]) {
    const r = await call('POST', '/v2/invoices', { external_id: 'a', amount: 1000 });
    t.equal(r.status, 401);
    t.same(r.json, { error_code: 'INVALID_API_KEY', message: 'API key is not authorized for this API service' });
    t.equal((await call('GET', '/v2/invoices/x')).status, 401);
    t.equal((await call('POST', '/refunds', { invoice_id: 'x' })).status, 401);
  }
  for (const body of [
    { amount: 1000 },
    { external_id: 'a' },
    { external_id: 'a', amount: 0 },
    { external_id: 'a', amount: 1000, currency: 'EUR' },
  ]) {
    const r = await xendit('POST', '/v2/invoices', body);
    t.equal(r.status, 400);
    t.equal(r.json.error_code, 'API_VALIDATION_ERROR');
  }
  t.equal((await xendit('POST', '/v2/invoices', '{not json')).status, 400);
});

t.test('the invoice page escapes the external id; Pay sends the PAID callback with the token and redirects', async (t) => {
  const res = await invoice({ external_id: 'lms-<img src=x onerror=alert(1)>' });
  const page = await fetch(res.json.invoice_url);
  t.equal(page.status, 200);
  const html = await page.text();
  t.match(html, 'lms-&lt;img src=x onerror=alert(1)&gt;');
  t.notMatch(html, '<img');
  t.match(html, /IDR 150\.000/);
  const form = readForm(html);
  t.same(form.buttons, ['pay', 'expire']);
  t.ok(form.options.includes('QR_CODE:QRIS'));

  const paid = await submitForm(`${base}${form.action}`, { channel: 'BANK_TRANSFER:BCA', action: 'pay' });
  t.equal(paid.status, 303);
  t.equal(paid.headers.get('location'), 'https://lms.test/courses/k3?paid=1');
  await idle();
  const [cb] = callbacksFor(res.json.id);
  t.equal(cb.path, '/webhooks/xendit');
  t.equal(cb.headers['x-callback-token'], TOKEN);
  t.match(cb.json, {
    id: res.json.id,
    external_id: 'lms-<img src=x onerror=alert(1)>',
    user_id: res.json.user_id,
    status: 'PAID',
    amount: 150000,
    paid_amount: 150000,
    currency: 'IDR',
    payment_method: 'BANK_TRANSFER',
    payment_channel: 'BCA',
    bank_code: 'BCA',
    payment_id: String,
    paid_at: String,
    payer_email: 'siti@example.org',
  });
  t.equal((await xendit('GET', `/v2/invoices/${res.json.id}`)).json.status, 'PAID');
  t.match(await (await fetch(res.json.invoice_url)).text(), 'This invoice is <strong>PAID</strong>');
  t.equal((await submitForm(`${base}${form.action}`, { action: 'expire' })).status, 409);
});

t.test('Expire on the page, by the API (expire!) and by the control API: EXPIRED callbacks', async (t) => {
  const a = await invoice();
  const r = await submitForm(a.json.invoice_url, { action: 'expire' });
  t.equal(r.status, 303);
  t.equal(r.headers.get('location'), 'https://lms.test/courses/k3?failed=1');
  const b = await invoice();
  const expired = await xendit('POST', `/invoices/${b.json.id}/expire!`);
  t.equal(expired.json.status, 'EXPIRED');
  const c = await invoice();
  t.equal((await control(`xendit/${c.json.id}/expire`)).json.status, 'EXPIRED');
  t.equal((await control(`xendit/${c.json.id}/pay`)).status, 409, 'an expired invoice cannot be paid');
  await idle();
  for (const inv of [a, b, c]) {
    const [cb] = callbacksFor(inv.json.id);
    t.match(cb.json, { status: 'EXPIRED', amount: 150000 });
    t.notOk('paid_amount' in cb.json);
    t.equal(cb.headers['x-callback-token'], TOKEN);
  }
});

t.test('callbacks are retried on 500 until 200; duplicates, a wrong token and a changed amount on request', async (t) => {
  const inv = await invoice();
  receiver.failNext(500, 1);
  await control(`xendit/${inv.json.id}/pay`, { channel: 'QR_CODE:QRIS' });
  await idle();
  t.same(
    callbacksFor(inv.json.id).map((r) => r.answered),
    [500, 200],
  );
  await control('notifications/resend');
  await control(`xendit/${inv.json.id}/notify`, { callback_token: 'forged' });
  await control(`xendit/${inv.json.id}/notify`, { paid_amount: 1000, amount: 1000 });
  await idle();
  const all = callbacksFor(inv.json.id);
  t.equal(all[2].body, all[1].body, 'a duplicate is the same body');
  t.equal(all[3].headers['x-callback-token'], 'forged');
  t.match(all[4].json, { status: 'PAID', amount: 1000, paid_amount: 1000, payment_channel: 'QRIS' });
  t.equal(all[4].headers['x-callback-token'], TOKEN);
});

t.test('refunds through POST /refunds with invoice_id: partial, full, too much; the refund.succeeded callback', async (t) => {
  const inv = await invoice();
  const early = await xendit('POST', '/refunds', { invoice_id: inv.json.id, amount: 1000, reason: 'CANCELLATION' });
  t.equal(early.status, 400, 'a pending invoice cannot be refunded');
  await control(`xendit/${inv.json.id}/pay`, { channel: 'EWALLET:OVO' });
  const part = await xendit(
    'POST',
    '/refunds',
    { invoice_id: inv.json.id, amount: 50000, reason: 'REQUESTED_BY_CUSTOMER', reference_id: 'r-1' },
    { 'idempotency-key': 'k-1' },
  );
  t.equal(part.status, 200);
  t.match(part.json, {
    id: /^rfd-/,
    invoice_id: inv.json.id,
    amount: 50000,
    currency: 'IDR',
    reason: 'REQUESTED_BY_CUSTOMER',
    status: 'PENDING',
    channel_code: 'OVO',
    reference_id: 'r-1',
  });
  const same = await xendit(
    'POST',
    '/refunds',
    { invoice_id: inv.json.id, amount: 50000, reason: 'REQUESTED_BY_CUSTOMER' },
    { 'idempotency-key': 'k-1' },
  );
  t.equal(same.json.id, part.json.id, 'the same Idempotency-key is the same refund');
  const over = await xendit('POST', '/refunds', { invoice_id: inv.json.id, amount: 100001, reason: 'OTHERS' });
  t.match(over, { status: 400, json: { error_code: 'REFUND_AMOUNT_EXCEEDED_ERROR' } });
  const bad = await xendit('POST', '/refunds', { invoice_id: inv.json.id, reason: 'BECAUSE' });
  t.equal(bad.json.error_code, 'API_VALIDATION_ERROR');
  const rest = await xendit('POST', '/refunds', { invoice_id: inv.json.id, reason: 'CANCELLATION' });
  t.equal(rest.json.amount, 100000);
  const done = await xendit('POST', '/refunds', { invoice_id: inv.json.id, reason: 'CANCELLATION' });
  t.match(done, { status: 403, json: { error_code: 'MAXIMUM_REFUND_AMOUNT_REACHED_ERROR' } });
  t.equal((await xendit('GET', `/refunds/${part.json.id}`)).json.status, 'SUCCEEDED');
  await idle();
  const cbs = receiver.received.filter((r) => r.path === '/webhooks/xendit-refund' && r.json.data.invoice_id === inv.json.id);
  t.equal(cbs.length, 2);
  t.match(cbs[0].json, { event: 'refund.succeeded', business_id: String, data: { id: part.json.id, status: 'SUCCEEDED', amount: 50000 } });
  t.equal(cbs[0].headers['x-callback-token'], TOKEN);
});
