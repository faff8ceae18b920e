import { createHash } from 'node:crypto';
import t from 'tap';
import { createPaymentSandbox, RETRY_DELAYS } from '../src/payment-sandbox.js';
import { api, createReceiver, quiet } from './helpers.js';

// Delivery as the providers do it, and the control API's faults: retries of a receiver answering
// 500, duplicates, out-of-order and tampered notifications, held and dropped ones.

const SERVER_KEY = 'SB-Mid-server-notify-0123456789';
const receiver = await createReceiver(t);
const sandbox = createPaymentSandbox({
  midtrans: { serverKey: SERVER_KEY, notificationUrl: `${receiver.url}/midtrans` },
  xendit: { secretKey: 'xnd_development_notify', callbackToken: 'cb-token-notify', invoiceCallbackUrl: `${receiver.url}/xendit` },
  retryScale: 0.00001,
  log: quiet,
});
const base = await sandbox.listen();
t.teardown(() => sandbox.close());
const midtrans = api(base, SERVER_KEY);
const control = (path, body = {}) => api(base)('POST', `/_sandbox/${path}`, body);
const idle = () => fetch(`${base}/_sandbox/idle`).then((r) => r.json());
const log = () => fetch(`${base}/_sandbox/log`).then((r) => r.json());
const verifies = (n) =>
  n.signature_key === createHash('sha512').update(`${n.order_id}${n.status_code}${n.gross_amount}${SERVER_KEY}`).digest('hex');

let seq = 0;
async function order() {
  const orderId = `N-${++seq}-${Date.now()}`;
  const res = await midtrans('POST', '/snap/v1/transactions', { transaction_details: { order_id: orderId, gross_amount: 150000 } });
  t.equal(res.status, 201);
  return orderId;
}
const receivedFor = (orderId) => receiver.received.filter((r) => r.json.order_id === orderId);

t.test('a receiver answering 500 twice then 200 gets the same body three times; the log has each answer', async (t) => {
  const orderId = await order();
  receiver.failNext(500, 2);
  const settled = await control(`midtrans/${orderId}/settle`);
  t.equal(settled.status, 200);
  await idle();
  const got = receivedFor(orderId);
  t.same(
    got.map((r) => r.answered),
    [500, 500, 200],
  );
  t.equal(new Set(got.map((r) => r.body)).size, 1, 'each retry is byte for byte the first');
  const entry = (await log()).notifications.find((n) => n.id === settled.json.notification.id);
  t.equal(entry.state, 'delivered');
  t.same(
    entry.attempts.map((a) => a.status),
    [500, 500, 200],
  );
});

t.test('a receiver that never answers 2xx is tried 1 + the documented number of retries, then given up', async (t) => {
  const orderId = await order();
  // Exactly as many failures as attempts: the receiver answers 200 again for the next tests.
  receiver.failNext(503, 1 + RETRY_DELAYS.midtrans.length);
  const settled = await control(`midtrans/${orderId}/settle`);
  await idle();
  t.equal(receivedFor(orderId).length, 1 + RETRY_DELAYS.midtrans.length);
  const entry = (await log()).notifications.find((n) => n.id === settled.json.notification.id);
  t.equal(entry.state, 'failed');
  t.same(new Set(entry.attempts.map((a) => a.status)), new Set([503]));
});

t.test('a duplicate: the last notification sent again, identical', async (t) => {
  const orderId = await order();
  await control(`midtrans/${orderId}/settle`);
  await idle();
  const dup = await control('notifications/resend');
  t.equal(dup.status, 200);
  t.equal(dup.json.notification.kind, 'notification:settlement:duplicate');
  await idle();
  const got = receivedFor(orderId);
  t.equal(got.length, 2);
  t.equal(got[0].body, got[1].body);
});

t.test('out of order: "settlement" then a genuine, signed "pending"', async (t) => {
  const orderId = await order();
  await control(`midtrans/${orderId}/settle`);
  const late = await control(`midtrans/${orderId}/notify`, { transaction_status: 'pending' });
  t.equal(late.status, 200);
  await idle();
  const got = receivedFor(orderId).map((r) => r.json);
  t.same(
    got.map((n) => [n.transaction_status, n.status_code]),
    [
      ['settlement', '200'],
      ['pending', '201'],
    ],
  );
  t.ok(got.every(verifies), 'both are signed by the server key');
  t.equal((await midtrans('GET', `/v2/${orderId}/status`)).json.transaction_status, 'settlement', 'the status stays settled');
  t.equal((await control(`midtrans/${orderId}/notify`, { transaction_status: 'bogus' })).status, 400);
});

t.test('tampered: another gross_amount with the original signature fails verification; resigned, it verifies', async (t) => {
  const orderId = await order();
  await control(`midtrans/${orderId}/settle`);
  await control(`midtrans/${orderId}/notify`, { gross_amount: '1000.00' });
  await control(`midtrans/${orderId}/notify`, { gross_amount: '1000.00', resign: true });
  await idle();
  const [real, tampered, resigned] = receivedFor(orderId).map((r) => r.json);
  t.equal(tampered.gross_amount, '1000.00');
  t.equal(tampered.signature_key, real.signature_key, 'the signature of the real amount');
  t.notOk(verifies(tampered));
  t.ok(verifies(resigned), 'a wrong amount correctly signed (the merchant must compare it with the order)');
});

t.test('held notifications wait for release; dropped ones are never sent', async (t) => {
  const a = await order();
  t.same((await control('notifications/hold', { on: true })).json, { held: true });
  const held = await control(`midtrans/${a}/settle`);
  t.equal(held.json.notification.state, 'held');
  await idle();
  t.equal(receivedFor(a).length, 0, 'nothing sent while held');
  t.same((await control('notifications/release')).json, { released: 1 });
  await control('notifications/hold', { on: false });
  await idle();
  t.equal(receivedFor(a).length, 1);

  const b = await order();
  await control('notifications/drop', { times: 1 });
  const dropped = await control(`midtrans/${b}/settle`);
  t.equal(dropped.json.notification.state, 'dropped');
  await idle();
  t.equal(receivedFor(b).length, 0);
  await control(`midtrans/${b}/notify`);
  await idle();
  t.equal(receivedFor(b).length, 1, 'the next one goes out again');
});

t.test('the log lists requests (no keys) and notifications with their bodies', async (t) => {
  const { requests, notifications } = await log();
  const created = requests.find((r) => r.method === 'POST' && r.path === '/snap/v1/transactions');
  t.match(created, { authorization: 'Basic', status: 201, body: { transaction_details: { order_id: /^N-1-/, gross_amount: 150000 } } });
  t.ok(requests.some((r) => r.path.endsWith('/status') && r.status === 200));
  t.notMatch(JSON.stringify(requests), SERVER_KEY);
  t.ok(notifications.every((n) => typeof n.body === 'object' && Array.isArray(n.attempts)));
  t.equal((await control('nothing-here')).status, 404);
});
