import fp from 'fastify-plugin';
import { BankTransferProvider, type PaymentProvider } from '../domain/learning/payment-provider.js';
import type { PurchaseRules } from '../domain/learning/purchases.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** How purchases are paid here, and the limits on those waiting for payment: the JSON routes and the pages share them. */
    payments: { provider: PaymentProvider; rules: PurchaseRules };
  }
}

/**
 * The payment set-up of this LMS, from its configuration: bank transfer to the account of
 * BANK_TRANSFER_*, confirmed by an admin; a pending purchase expires after PURCHASE_PENDING_HOURS
 * and a buyer has at most PURCHASE_PENDING_MAX of them at once.
 */
export default fp(
  async (app) => {
    app.decorate('payments', {
      provider: new BankTransferProvider({
        bankName: app.config.BANK_TRANSFER_BANK,
        accountNumber: app.config.BANK_TRANSFER_ACCOUNT_NUMBER,
        accountName: app.config.BANK_TRANSFER_ACCOUNT_NAME,
      }),
      rules: { pendingMs: app.config.PURCHASE_PENDING_HOURS * 3_600_000, maxPending: app.config.PURCHASE_PENDING_MAX },
    });
  },
  { name: 'payments' },
);
