// A local payment sandbox speaking Midtrans Snap (+ the Core API's status and refund) and Xendit
// Invoices (+ Refunds) as their documentation describes them (see src/midtrans.js, src/xendit.js
// for the pages each shape follows), with the payer's pages, signed notifications retried on the
// providers' schedules, and a control API for tests. One server plays both Midtrans hosts
// (app.sandbox.midtrans.com for Snap, api.sandbox.midtrans.com for the Core API) and Xendit's
// (api.xendit.co, checkout-staging.xendit.co). It imports nothing but node's own modules.
import { createServer } from 'node:http';
import { createDeliverer } from './deliver.js';
import { parseBody, readBody, redirect, sendHtml, sendJson } from './http.js';
import { createMidtrans } from './midtrans.js';
import { invoicePage, notFoundPage, resultPage, snapPage } from './pages.js';
import { createXendit } from './xendit.js';

export { RETRY_DELAYS } from './deliver.js';
export { signatureKey, STATUS_CODE } from './midtrans.js';

const MIDTRANS_CONTROL = { settle: 'settlement', capture: 'capture', pending: 'pending', deny: 'deny', cancel: 'cancel', expire: 'expire' };
const PAGE_ACTION = { pay: 'settlement', fail: 'deny', expire: 'expire' };

/**
 * The sandbox as a Node HTTP server (not yet listening). Options:
 *   midtrans: {serverKey, notificationUrl, merchantId?}
 *   xendit:   {secretKey, callbackToken, invoiceCallbackUrl, refundCallbackUrl?, businessId?, merchantName?}
 *   publicUrl  the base URL the pages are reached at (default: the Host the API was called on)
 *   retryScale multiplies the providers' retry delays (1: real time; 0.00001: milliseconds)
 */
export function createPaymentSandbox({ midtrans = {}, xendit = {}, publicUrl, retryScale = 1, retryDelays, log = console } = {}) {
  const deliver = createDeliverer({ retryScale, retryDelays, log });
  const mt = createMidtrans({ ...midtrans, publicUrl, deliver });
  const xn = createXendit({ ...xendit, publicUrl, deliver });
  /** Every request received, oldest first, with its body (never the Authorization header's value, only its scheme). */
  const requests = [];

  function lastNotification(id) {
    return id ? deliver.notifications.find((n) => n.id === id) : deliver.notifications.at(-1);
  }

  /** The sandbox's own API for tests: state changes without the pages, duplicates, tampering, holds. */
  async function control(method, parts, body) {
    const [area, id, action] = parts;
    if (method === 'GET' && area === 'log') return [200, { requests, notifications: deliver.notifications.map(publicNotification) }];
    if (method === 'GET' && area === 'idle') {
      await deliver.idle();
      return [200, { notifications: deliver.notifications.length }];
    }
    if (method !== 'POST') return [405, { error: 'POST' }];
    if (area === 'midtrans' && id) {
      const tx = mt.transactions.get(id);
      if (!tx) return [404, { error: `no transaction ${id}` }];
      if (action === 'notify') {
        // Out of order ({transaction_status: "pending"} after a settlement) or tampered
        // ({gross_amount: "1.00"}: signature left as computed for the real amount unless resign).
        if (!tx.transaction_id) return [409, { error: 'no payment was made on this transaction yet' }];
        if (body.transaction_status !== undefined && !(body.transaction_status in MIDTRANS_CONTROL_STATUS))
          return [400, { error: 'unknown transaction_status' }];
        const n = mt.notify(tx, {
          status: body.transaction_status,
          grossAmount: body.gross_amount,
          resign: body.resign === true,
          kind: 'notification:forced',
        });
        return [200, { notification: publicNotification(n) }];
      }
      const status = MIDTRANS_CONTROL[action];
      if (!status) return [404, { error: `unknown action ${action}` }];
      if (tx.transaction_status && tx.transaction_status !== 'pending')
        return [409, { error: `transaction is ${tx.transaction_status}; use notify to send any status` }];
      const { notification } = mt.transition(id, status, { paymentType: body.payment_type });
      return [200, { transaction_status: tx.transaction_status, notification: publicNotification(notification) }];
    }
    if (area === 'xendit' && id) {
      const inv = xn.invoices.get(id);
      if (!inv) return [404, { error: `no invoice ${id}` }];
      if (action === 'notify') {
        const overrides = {};
        for (const k of ['status', 'amount', 'paid_amount', 'currency', 'external_id']) if (body[k] !== undefined) overrides[k] = body[k];
        const n = xn.notify(inv, { overrides, token: body.callback_token ?? undefined, kind: 'callback:forced' });
        return [200, { notification: publicNotification(n) }];
      }
      const status = { pay: 'PAID', expire: 'EXPIRED' }[action];
      if (!status) return [404, { error: `unknown action ${action}` }];
      const result = xn.transition(id, status, { channel: body.channel });
      if (result.refused) return [409, { error: result.refused }];
      return [200, { status: inv.status, notification: publicNotification(result.notification) }];
    }
    if (area === 'notifications') {
      if (id === 'resend') {
        const n = lastNotification(body.id);
        if (!n) return [404, { error: 'no notification to send again' }];
        return [200, { notification: publicNotification(deliver.resend(n)) }];
      }
      if (id === 'hold') {
        deliver.hold(body.on !== false);
        return [200, { held: deliver.held }];
      }
      if (id === 'release') return [200, { released: deliver.release() }];
      if (id === 'drop') {
        deliver.drop(Number(body.times ?? 1));
        return [200, { dropping: Number(body.times ?? 1) }];
      }
    }
    return [404, { error: 'unknown control request' }];
  }

  /** Routes one request; returns the log entry's provider. */
  async function route(req, res, url, entry) {
    const path = url.pathname;
    /** The decoded first group of `re` in the path, or null. */
    const param = (re) => {
      const hit = path.match(re);
      return hit ? decodeURIComponent(hit[1]) : null;
    };
    const needsBody = req.method === 'POST';
    const raw = needsBody ? await readBody(req) : '';
    if (raw === null) return sendJson(res, 413, { error: 'body too large' });
    const body = needsBody ? parseBody(req, raw) : undefined;
    if (needsBody) entry.body = body ?? raw;
    const answer = (a) => sendJson(res, a.status, a.body);

    if (path.startsWith('/_sandbox/')) {
      const [status, out] = await control(req.method, path.split('/').slice(2).map(decodeURIComponent), body ?? {});
      return sendJson(res, status, out);
    }
    // Midtrans Snap and Core API.
    if (req.method === 'POST' && path === '/snap/v1/transactions') return answer(mt.createTransaction(req, body));
    const token = param(/^\/snap\/v[1-4]\/redirection\/([^/]+)$/);
    if (token !== null) {
      const tx = mt.transactions.get(mt.byToken.get(token));
      if (!tx) return sendHtml(res, 404, notFoundPage());
      if (req.method === 'GET') return sendHtml(res, 200, snapPage(tx, token));
      if (req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' });
      const status = PAGE_ACTION[body?.action];
      if (!status) return sendHtml(res, 400, resultPage('Unknown action', 'Choose pay, fail or expire.'));
      if (tx.transaction_status && tx.transaction_status !== 'pending') return sendHtml(res, 409, snapPage(tx, token));
      mt.transition(tx.order_id, status, { paymentType: body.payment_type });
      const finish = mt.finishUrl(tx);
      return finish ? redirect(res, finish) : sendHtml(res, 200, resultPage('Midtrans Snap', `Transaction ${tx.transaction_status}.`));
    }
    // Xendit Invoices and Refunds first: /v2/invoices/{id} would otherwise read as a Midtrans order id.
    const apiRoutes = [
      ['POST', /^\/v2\/invoices\/?$/, () => xn.createInvoice(req, body)],
      ['GET', /^\/v2\/invoices\/([^/]+)$/, (id) => xn.getInvoice(req, id)],
      ['POST', /^\/invoices\/([^/]+)\/expire!$/, (id) => xn.expireInvoice(req, id)],
      ['POST', /^\/refunds$/, () => xn.createRefund(req, body)],
      ['GET', /^\/refunds\/([^/]+)$/, (id) => xn.getRefund(req, id)],
      ['GET', /^\/v2\/([^/]+)\/status$/, (orderId) => mt.getStatus(req, orderId)],
      ['POST', /^\/v2\/([^/]+)\/refund$/, (orderId) => mt.refund(req, orderId, body)],
    ];
    for (const [method, re, handle] of apiRoutes) {
      const hit = req.method === method && path.match(re);
      if (hit) return answer(handle(hit[1] === undefined ? undefined : decodeURIComponent(hit[1])));
    }
    const invoiceId = param(/^\/web\/([^/]+)$/);
    if (invoiceId !== null) {
      const inv = xn.invoices.get(invoiceId);
      if (!inv) return sendHtml(res, 404, notFoundPage());
      if (req.method === 'GET') return sendHtml(res, 200, invoicePage(inv));
      if (req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' });
      const status = { pay: 'PAID', expire: 'EXPIRED' }[body?.action];
      if (!status) return sendHtml(res, 400, resultPage('Unknown action', 'Choose pay or expire.'));
      if (inv.status !== 'PENDING') return sendHtml(res, 409, invoicePage(inv));
      xn.transition(inv.id, status, { channel: body.channel });
      const back = status === 'PAID' ? inv.success_redirect_url : inv.failure_redirect_url;
      return back ? redirect(res, back) : sendHtml(res, 200, resultPage('Xendit invoice', `Invoice ${inv.status}.`));
    }
    if (req.method === 'GET' && path === '/')
      return sendJson(res, 200, { sandbox: 'payment', midtrans: mt.transactions.size, xendit: xn.invoices.size });
    return sendJson(res, 404, { error: `Unknown path ${path}` });
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://sandbox.local');
    const entry = {
      at: new Date().toISOString(),
      method: req.method,
      path: url.pathname,
      authorization: req.headers.authorization ? String(req.headers.authorization).split(' ')[0] : null,
    };
    if (!url.pathname.startsWith('/_sandbox/')) requests.push(entry);
    res.on('finish', () => {
      entry.status = res.statusCode;
    });
    try {
      await route(req, res, url, entry);
    } catch (err) {
      log.error?.(err);
      if (!res.headersSent) sendJson(res, 500, { error: 'sandbox error' });
    }
  });

  return {
    server,
    requests,
    notifications: deliver.notifications,
    midtrans: mt,
    xendit: xn,
    /** Resolves once every notification has been delivered or given up (held ones excepted). */
    idle: () => deliver.idle(),
    hold: (on = true) => deliver.hold(on),
    release: () => deliver.release(),
    drop: (times = 1) => deliver.drop(times),
    /** Listens (port 0: any free port) and resolves to the base URL. */
    listen(port = 0, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve(`http://${host}:${server.address().port}`));
      });
    },
    /** Stops retries and listening. */
    close() {
      deliver.close();
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const MIDTRANS_CONTROL_STATUS = { capture: 1, settlement: 1, pending: 1, deny: 1, cancel: 1, expire: 1, refund: 1, partial_refund: 1 };

/** A notification as the log shows it: the body as sent, each attempt's answer. */
function publicNotification(n) {
  if (!n) return null;
  const { json, ...rest } = n;
  return { ...rest, body: json };
}
