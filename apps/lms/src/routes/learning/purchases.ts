import {
  ADMIN_ROLES,
  ConfirmedPurchaseResponse,
  ErrorResponse,
  LearningIdParams,
  PendingPurchasesQuery,
  PendingPurchasesResponse,
  type Purchase,
  PurchaseBody,
  PurchaseListResponse,
  PurchaseResponse,
  RefundedPurchaseResponse,
  RefundPurchaseBody,
  RejectPurchaseBody,
  StartedPurchaseResponse,
  ValidationErrorResponse,
} from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  cancelPurchase,
  listMyPurchases,
  type PurchaseView,
  FIRST_PAYMENT_MAX_PENDING,
  startPurchase,
} from '../../domain/learning/purchases.js';
import { listPendingPurchases } from '../../domain/learning/pending-purchases.js';
import {
  confirmPurchase,
  CONFIRMATION_UNDO_MS,
  refundPurchase,
  rejectPurchase,
  undoConfirmation,
} from '../../domain/learning/purchase-decisions.js';
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
    expiresAt: p.expiresAt?.toISOString() ?? null,
    closedAt: p.closedAt?.toISOString() ?? null,
    closeReason: p.closeReason,
  };
}

const common = {
  401: ErrorResponse.describe('No session (or an unknown one).'),
  403: ErrorResponse,
};

/** Purchases: start one, list mine, cancel mine; list the transfers to confirm, confirm or reject one. */
const purchaseRoutes: FastifyPluginAsyncZod = async (app) => {
  const { provider, rules } = app.payments;

  app.post(
    '/api/learning/purchases',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: TAGS,
        operationId: 'startPurchase',
        summary: 'Start a purchase of a course or a bundle (pending until an admin confirms the transfer)',
        description:
          `${SESSION_ONLY}${CSRF_RULE}\n\n` +
          "The amount is the caller's tier price when the purchase starts. A course (buyer-visible and purchasable): " +
          'anggota → price, umum → priceNonMember or else price, mahasiswa → priceMahasiswa or else price, an ' +
          "account without a tier → price. A bundle (both courses buyer-visible), with the catalog's bundle prices " +
          "(price: the bundle's own or the two course prices added up; priceNonMember: its own or else price): umum → " +
          'priceNonMember; anggota, mahasiswa (bundles have no student price) and no tier → price. 201 with a pending ' +
          'purchase, a unique transfer reference, its expiry and the bank-transfer instructions; while one is pending ' +
          'for the same item, 200 with that one (its amount and reference unchanged). An admin confirms the transfer ' +
          '(`POST /api/learning/purchases/{id}/confirm`); the buyer is then enrolled (a bundle: in both courses). ' +
          'Nothing lets a buyer mark their own purchase paid. A purchase waits ' +
          `${app.config.PURCHASE_PENDING_HOURS} hours for its payment (PURCHASE_PENDING_HOURS), then expires; a buyer may ` +
          `have ${rules.maxPending} waiting at once (PURCHASE_PENDING_MAX), and one whose payment was never confirmed ` +
          `${FIRST_PAYMENT_MAX_PENDING}. Nobody pays twice for a course: a course ` +
          'the caller is enrolled in, has paid for, or has a bundle purchase waiting that holds it is refused, and so is a ' +
          'bundle holding a course the caller has or is paying for (409 naming the course: buy the other one on its own).',
        security: [{ session: [] }],
        body: PurchaseBody,
        response: {
          200: StartedPurchaseResponse.describe('The purchase already pending for this item.'),
          201: StartedPurchaseResponse.describe('A new pending purchase.'),
          400: ValidationErrorResponse.or(ErrorResponse),
          ...common,
          404: ErrorResponse.describe('No such course or bundle, or not buyer-visible.'),
          409: ErrorResponse.describe(
            "Nothing to buy: not for sale, ended (its endDate has passed; a bundle: one of its courses, named), free at the caller's tier, already enrolled (a bundle: in both), already paid, " +
              'a course of it already had or being paid for, or as many purchases waiting as one may have.',
          ),
        },
      },
    },
    async (request, reply) => {
      const caller = sessionCaller(request);
      const body = request.body;
      const what = 'courseId' in body ? { courseId: body.courseId } : { bundleId: body.bundleId };
      const started = await startPurchase(app.db, app.receipts, provider, rules, caller.userId, what, app.clock());
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
        operationId: 'listMyPurchases',
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

  app.post(
    '/api/learning/purchases/:id/cancel',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: TAGS,
        operationId: 'cancelPurchase',
        summary: 'Cancel one of your purchases that waits for payment',
        description: `${SESSION_ONLY}${CSRF_RULE}\n\nOnly its buyer cancels a purchase, and only while it is pending.`,
        security: [{ session: [] }],
        params: LearningIdParams,
        response: {
          200: PurchaseResponse,
          400: ErrorResponse,
          ...common,
          404: ErrorResponse.describe('No such purchase of yours.'),
          409: ErrorResponse.describe('Not pending any more: paid, cancelled, rejected or expired.'),
        },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      return {
        success: true as const,
        purchase: purchaseBody(await cancelPurchase(app.db, caller.userId, request.params.id, app.clock())),
      };
    },
  );

  app.get(
    '/api/learning/purchases/pending',
    {
      config: { auth: sessionOnly(ADMIN_ROLES) },
      schema: {
        tags: TAGS,
        operationId: 'listPendingPurchases',
        summary: 'The transfers the caller may confirm: oldest first, a page at a time, or one by its reference',
        description:
          `${SESSION_ONLY} Admins see purchases whose every course belongs to their institution, super_admins all; ` +
          'never their own. Students and teachers: 403. Without `reference`: the purchases waiting for payment and not ' +
          'past their expiry, oldest first, `pagination.total` counting them all. With `reference`: the purchase of ' +
          'that transfer reference whatever its state (an expired one can still be confirmed when its money arrives late).',
        security: [{ session: [] }],
        querystring: PendingPurchasesQuery,
        response: { 200: PendingPurchasesResponse, 400: ValidationErrorResponse.or(ErrorResponse), ...common },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      const { page, limit, reference } = request.query;
      const { purchases, total } = await listPendingPurchases(app.db, caller, { page, limit, reference }, app.clock());
      return {
        success: true as const,
        purchases: purchases.map((p) => ({
          ...purchaseBody(p),
          buyer: { id: p.userId, name: p.buyerName, email: p.buyerEmail, membershipId: p.membershipId },
        })),
        pagination: { page, limit, total, totalPages: Math.ceil(total / limit) },
      };
    },
  );

  app.post(
    '/api/learning/purchases/:id/rejection',
    {
      config: { auth: sessionOnly(ADMIN_ROLES) },
      schema: {
        tags: TAGS,
        operationId: 'rejectPurchase',
        summary: 'Reject a purchase whose money did not come, with a reason for the buyer',
        description:
          `${SESSION_ONLY}${CSRF_RULE}\n\n` +
          'Who: as for confirming. A pending or expired purchase becomes rejected, with the reason; the buyer may start ' +
          'another. Paid, refunded, cancelled or rejected already: 409.',
        security: [{ session: [] }],
        params: LearningIdParams,
        body: RejectPurchaseBody,
        response: {
          200: PurchaseResponse,
          400: ValidationErrorResponse.or(ErrorResponse),
          ...common,
          404: ErrorResponse.describe('No such purchase.'),
          409: ErrorResponse.describe('Already paid, refunded, cancelled or rejected.'),
        },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      const purchase = await rejectPurchase(app.db, app.receipts, caller, request.params.id, request.body.reason, app.clock());
      return { success: true as const, purchase: purchaseBody(purchase) };
    },
  );

  app.post(
    '/api/learning/purchases/:id/refund',
    {
      config: { auth: sessionOnly(ADMIN_ROLES) },
      schema: {
        tags: TAGS,
        operationId: 'refundPurchase',
        summary: 'Record that a paid purchase was refunded, with who, when and why',
        description:
          `${SESSION_ONLY}${CSRF_RULE}\n\n` +
          'Who: as for confirming (never the buyer). A paid purchase becomes refunded, with the reason, the admin and the time; ' +
          'and the refund ends what was bought: the enrolment in its course (a bundle: both; a course another paid ' +
          "purchase of the buyer covers stays), and the buyer's certificates in force in those courses are revoked with " +
          'the reason "Refund: <reason>", unless `keepCertificateReason` keeps them and says why. What the learner did ' +
          "(completions, attempts) is kept. The buyer's partners get `purchase.refunded`, and `certificate.revoked` per " +
          'certificate revoked, once each. Any other state: 409.',
        security: [{ session: [] }],
        params: LearningIdParams,
        body: RefundPurchaseBody,
        response: {
          200: RefundedPurchaseResponse,
          400: ValidationErrorResponse.or(ErrorResponse),
          ...common,
          404: ErrorResponse.describe('No such purchase.'),
          409: ErrorResponse.describe('Not paid (pending, refunded already, cancelled, rejected, expired).'),
        },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      const done = await refundPurchase(app.db, app.receipts, caller, request.params.id, request.body.reason, app.clock(), {
        keepCertificateReason: request.body.keepCertificateReason ?? null,
      });
      return {
        success: true as const,
        purchase: purchaseBody(done.purchase),
        unenrolledCourseIds: done.unenrolledCourseIds,
        revokedCertificateCodes: done.revokedCertificates.map((c) => c.code),
        certificateKeptReason: done.certificateKeptReason,
      };
    },
  );

  app.post(
    '/api/learning/purchases/:id/confirm',
    {
      config: { auth: sessionOnly(ADMIN_ROLES) },
      schema: {
        tags: TAGS,
        operationId: 'confirmPurchase',
        summary: 'Confirm that a bank transfer arrived: the purchase is paid and the buyer enrolled',
        description:
          `${SESSION_ONLY}${CSRF_RULE}\n\n` +
          "Who: an admin of the institution of every course in the purchase, or a super_admin; never the purchase's " +
          'buyer (403), nor a student or teacher (403). In one transaction: status pending → paid, paidAt now, ' +
          'confirmedBy the caller, and the buyer enrolled in the course (a bundle: both courses). A pending purchase is ' +
          'confirmed, and an expired one too (money that arrives late is still a payment) unless the buyer has paid for ' +
          'the same item since; their newer purchase of it waiting for payment is then cancelled. A second ' +
          'confirmation (or a concurrent one) is 409. The metrics ' +
          '(`/api/lms-progress`) follow: a paid purchase, its amount in the 30-day revenue, its buyer, the new enrollments.',
        security: [{ session: [] }],
        params: LearningIdParams,
        response: {
          200: ConfirmedPurchaseResponse,
          400: ErrorResponse,
          ...common,
          404: ErrorResponse.describe('No such purchase.'),
          409: ErrorResponse.describe(
            'Already paid, refunded, cancelled or rejected, paid since by another purchase, or what was bought no longer exists.',
          ),
        },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      const { purchase, enrolledCourseIds } = await confirmPurchase(app.db, app.receipts, caller, request.params.id, app.clock());
      return { success: true as const, purchase: purchaseBody(purchase), enrolledCourseIds };
    },
  );

  app.post(
    '/api/learning/purchases/:id/confirmation/undo',
    {
      config: { auth: sessionOnly(ADMIN_ROLES) },
      schema: {
        tags: TAGS,
        operationId: 'undoPurchaseConfirmation',
        summary: 'Undo a confirmation made by mistake (within 15 minutes, before the buyer used the course)',
        description:
          `${SESSION_ONLY}${CSRF_RULE}\n\n` +
          "Who: whoever may confirm the purchase (an admin of its courses' institution or a super_admin; never its buyer). " +
          `Only a paid purchase confirmed less than ${CONFIRMATION_UNDO_MS / 60_000} minutes ago, and only while the buyer ` +
          'has completed no chapter, made no quiz attempt and holds no certificate in its courses; otherwise 409. In one ' +
          'transaction: status paid → pending (reference and expiry unchanged), paidAt and confirmedBy cleared, the ' +
          'enrolments the confirmation made removed, and the undo recorded (when, by whom). The metrics follow.',
        security: [{ session: [] }],
        params: LearningIdParams,
        response: {
          200: PurchaseResponse,
          400: ErrorResponse,
          ...common,
          404: ErrorResponse.describe('No such purchase.'),
          409: ErrorResponse.describe('Not a confirmed payment, confirmed more than 15 minutes ago, or the buyer has started the course.'),
        },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      const purchase = await undoConfirmation(app.db, app.receipts.deliveries, caller, request.params.id, app.clock());
      return { success: true as const, purchase: purchaseBody(purchase) };
    },
  );
};

export default purchaseRoutes;
