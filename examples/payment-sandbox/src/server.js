// Runs the payment sandbox: `node src/server.js` (or `pnpm --filter @lms/example-payment-sandbox start`).
// Ready when GET / answers 200 (what scripts/start.mjs waits for).
import { createPaymentSandbox } from './payment-sandbox.js';

const env = process.env;
const port = Number(env.PORT ?? 3004);
const host = env.HOST ?? '127.0.0.1';

const sandbox = createPaymentSandbox({
  midtrans: {
    serverKey: env.MIDTRANS_SERVER_KEY ?? 'SB-Mid-server-sandbox-0123456789',
    notificationUrl: env.MIDTRANS_NOTIFICATION_URL || undefined,
  },
  xendit: {
    secretKey: env.XENDIT_SECRET_KEY ?? 'xnd_development_sandbox_0123456789',
    callbackToken: env.XENDIT_CALLBACK_TOKEN ?? 'sandbox-callback-token-0123456789',
    invoiceCallbackUrl: env.XENDIT_INVOICE_CALLBACK_URL || undefined,
    refundCallbackUrl: env.XENDIT_REFUND_CALLBACK_URL || undefined,
  },
  publicUrl: env.PUBLIC_URL || undefined,
  retryScale: env.RETRY_SCALE ? Number(env.RETRY_SCALE) : 1,
});
const base = await sandbox.listen(port, host);
console.info(`payment sandbox on ${base}`);
console.info(`  Midtrans: Snap ${base}/snap/v1/transactions, Core API ${base}/v2/{order_id}/status`);
console.info(`  Xendit:   ${base}/v2/invoices, ${base}/refunds`);
console.info(`  log:      ${base}/_sandbox/log`);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => sandbox.close().then(() => process.exit(0)));
}
