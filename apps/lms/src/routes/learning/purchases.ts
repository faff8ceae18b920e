import {
  ConfirmedPurchaseResponse,
  ErrorResponse,
  LearningIdParams,
  PendingPurchasesResponse,
  type Purchase,
  PurchaseBody,
  PurchaseListResponse,
  StartedPurchaseResponse,
  ValidationErrorResponse,
} from '@lms/contracts';
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { BankTransferProvider, type PaymentProvider } from '../../domain/learning/payment-provider.js';
import {
  confirmPurchase,
  listMyPurchases,
  listPendingPurchases,
  type PurchaseView,
  startPurchase,
} from '../../domain/learning/purchases.js';
import { CSRF_RULE, SESSION_ONLY, sessionCaller, sessionOnly } from './session-only.js';

const TAGS = ['learning: purchases'];

export function purchaseBody(p: PurchaseView): Purchase {
  return {
    id: p.id,
    courseId: p.courseId,
    bundleId: p.bundleId,
    itemName: p.itemName,
    amount: p.amount,
    currency: p.currency,
    status: p.status,
    provider: p.provider,
    reference: p.reference,
    createdAt: p.createdAt.toISOString(),
    paidAt: p.paidAt?.toISOString() ?? null,
  };
}

/** The payment provider of this LMS: bank transfer, to the account of the configuration. */
export function paymentProvider(app: FastifyInstance): PaymentProvider {
  return new BankTransferProvider({
    bankName: app.config.BANK_TRANSFER_BANK,
    accountNumber: app.config.BANK_TRANSFER_ACCOUNT_NUMBER,
    accountName: app.config.BANK_TRANSFER_ACCOUNT_NAME,
  });
}

const common = {
  401: ErrorResponse.describe('No session (or an unknown one).'),
  403: ErrorResponse,
};

/** Purchases: start one, list mine, list the transfers to confirm, confirm one. */
const purchaseRoutes: FastifyPluginAsyncZod = async (app) => {
  const provider = paymentProvider(app);

  app.post(
    '/api/learning/purchases',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: TAGS,
        summary: 'Start a purchase of a course or a bundle (pending until an admin confirms the transfer)',
        description:
          `${SESSION_ONLY}${CSRF_RULE}\n\n` +
          "The amount is the caller's tier price when the purchase starts. A course (buyer-visible and purchasable): " +
          'anggota → price, umum → priceNonMember or else price, mahasiswa → priceMahasiswa or else price, an ' +
          "account without a tier → price. A bundle (both courses buyer-visible), with the catalog's bundle prices " +
          "(price: the bundle's own or the two course prices added up; priceNonMember: its own or else price): umum → " +
          'priceNonMember; anggota, mahasiswa (bundles have no student price) and no tier → price. 201 with a pending ' +
          'purchase, a unique transfer reference and the bank-transfer instructions; while one is pending for the same ' +
          'item, 200 with that one (its amount and reference unchanged). An admin confirms the transfer ' +
          '(`POST /api/learning/purchases/{id}/confirm`); the buyer is then enrolled (a bundle: in both courses). ' +
          'Nothing lets a buyer mark their own purchase paid.',
        security: [{ session: [] }],
        body: PurchaseBody,
        response: {
          200: StartedPurchaseResponse.describe('The purchase already pending for this item.'),
          201: StartedPurchaseResponse.describe('A new pending purchase.'),
          400: ValidationErrorResponse.or(ErrorResponse),
          ...common,
          404: ErrorResponse.describe('No such course or bundle, or not buyer-visible.'),
          409: ErrorResponse.describe(
            "Nothing to buy: not for sale, free at the caller's tier, already enrolled (a bundle: in both), or already paid.",
          ),
        },
      },
    },
    async (request, reply) => {
      const caller = sessionCaller(request);
      const body = request.body;
      const what = 'courseId' in body ? { courseId: body.courseId } : { bundleId: body.bundleId };
      const started = await startPurchase(app.db, provider, caller.userId, what, app.clock());
      return reply
        .code(started.created ? 201 : 200)
        .send({ success: true as const, purchase: purchaseBody(started.purchase), instructions: started.instructions });
    },
  );

  app.get(
    '/api/learning/purchases',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: TAGS,
        summary: "The caller's purchases, newest first (at most 200)",
        description: SESSION_ONLY,
        security: [{ session: [] }],
        response: { 200: PurchaseListResponse, ...common },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      return { success: true as const, purchases: (await listMyPurchases(app.db, caller.userId)).map(purchaseBody) };
    },
  );

  app.get(
    '/api/learning/purchases/pending',
    {
      config: { auth: sessionOnly(['admin', 'super_admin']) },
      schema: {
        tags: TAGS,
        summary: 'The pending transfers the caller may confirm, oldest first (at most 200)',
        description:
          `${SESSION_ONLY} Admins see purchases whose every course belongs to their institution, super_admins all; ` +
          'never their own. Students and teachers: 403.',
        security: [{ session: [] }],
        response: { 200: PendingPurchasesResponse, ...common },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      const rows = await listPendingPurchases(app.db, caller);
      return {
        success: true as const,
        purchases: rows.map((p) => ({
          ...purchaseBody(p),
          buyer: { id: p.userId, name: p.buyerName, email: p.buyerEmail, membershipId: p.membershipId },
        })),
      };
    },
  );

  app.post(
    '/api/learning/purchases/:id/confirm',
    {
      config: { auth: sessionOnly(['admin', 'super_admin']) },
      schema: {
        tags: TAGS,
        summary: 'Confirm that a bank transfer arrived: the purchase is paid and the buyer enrolled',
        description:
          `${SESSION_ONLY}${CSRF_RULE}\n\n` +
          "Who: an admin of the institution of every course in the purchase, or a super_admin; never the purchase's " +
          'buyer (403), nor a student or teacher (403). In one transaction: status pending → paid, paidAt now, ' +
          'confirmedBy the caller, and the buyer enrolled in the course (a bundle: both courses). Only a pending ' +
          'purchase is confirmed: a second confirmation (or a concurrent one) is 409. The metrics ' +
          '(`/api/lms-progress`) follow: a paid purchase, its amount in the 30-day revenue, its buyer, the new enrollments.',
        security: [{ session: [] }],
        params: LearningIdParams,
        response: {
          200: ConfirmedPurchaseResponse,
          400: ErrorResponse,
          ...common,
          404: ErrorResponse.describe('No such purchase.'),
          409: ErrorResponse.describe('Already paid or refunded, or what was bought no longer exists.'),
        },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      const { purchase, enrolledCourseIds } = await confirmPurchase(app.db, caller, request.params.id, app.clock());
      return { success: true as const, purchase: purchaseBody(purchase), enrolledCourseIds };
    },
  );
};

export default purchaseRoutes;
