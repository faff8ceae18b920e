/**
 * How a purchase gets paid. A provider turns a new pending purchase into what the buyer must do
 * (`begin`), and says who settles it. The one shipped is bank transfer: the buyer transfers the
 * amount writing the purchase's reference, and an admin who sees the money arrive confirms it on
 * the dashboard (POST /api/learning/purchases/{id}/confirm), the usual way here. A payment
 * gateway added later would settle by its own signed callback instead; nothing lets a buyer mark
 * their own purchase paid.
 */
export interface PaymentProvider {
  /** Stored in purchases.provider. */
  readonly name: string;
  /** Who moves a purchase from pending to paid. */
  readonly settledBy: 'admin-confirmation';
  begin(purchase: PurchaseToPay): PaymentInstructions;
}

export interface PurchaseToPay {
  id: number;
  amount: string;
  currency: string;
  reference: string;
  /** The selling institution's own account (operator configuration), when it has one. */
  account?: { bankName: string | null; accountNumber: string | null; accountName: string | null } | null | undefined;
}

export interface PaymentInstructions {
  method: 'bank_transfer';
  amount: string;
  currency: string;
  /** What the buyer writes in the transfer's description, so an admin can match the money. */
  reference: string;
  bankName: string | null;
  accountNumber: string | null;
  accountName: string | null;
  /** The steps in a sentence (English; the pages say it in the person's language). */
  text: string;
}

export interface BankAccount {
  bankName?: string | undefined;
  accountNumber?: string | undefined;
  accountName?: string | undefined;
}

/** Bank transfer confirmed by an admin: the only provider shipped. */
export class BankTransferProvider implements PaymentProvider {
  readonly name = 'bank_transfer';
  readonly settledBy = 'admin-confirmation' as const;

  constructor(private readonly account: BankAccount = {}) {}

  /**
   * The institution's own account when the operator set one; else the deployment's
   * (BANK_TRANSFER_*); else none: then the instructions say so and name no account.
   */
  begin(purchase: PurchaseToPay): PaymentInstructions {
    const own = purchase.account?.accountNumber ? purchase.account : null;
    const bankName = own ? own.bankName : (this.account.bankName ?? null);
    const accountNumber = own ? own.accountNumber : (this.account.accountNumber ?? null);
    const accountName = own ? own.accountName : (this.account.accountName ?? null);
    const to =
      accountNumber !== null
        ? `to ${[bankName, accountNumber, accountName && `(${accountName})`].filter(Boolean).join(' ')}`
        : "to the institution's account, which is not set up yet (do not transfer until an admin names it)";
    return {
      method: 'bank_transfer',
      amount: purchase.amount,
      currency: purchase.currency,
      reference: purchase.reference,
      bankName,
      accountNumber,
      accountName,
      text:
        `Transfer exactly ${purchase.amount} ${purchase.currency} ${to}, writing ${purchase.reference} in the ` +
        'transfer description. An admin confirms the payment when it arrives; you are then enrolled.',
    };
  }
}
