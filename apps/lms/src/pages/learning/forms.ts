import { CourseIdParams, LearningIdParams, MAX_ID, RefundPurchaseBody, RejectPurchaseBody, text } from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CODE_REQUIRED, decideEnrollmentRequest, enrol, WRONG_CODE } from '../../domain/learning/enrollment.js';
import {
  cancelPurchase,
  findPurchase,
  type PurchaseItem,
  startPurchase,
  TooManyPendingPurchasesError,
} from '../../domain/learning/purchases.js';
import { confirmPurchase, refundPurchase, rejectPurchase, undoConfirmation } from '../../domain/learning/purchase-decisions.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import { pageSession } from '../session.js';
import { type BundleFlash, bundlePageLink } from '../bundles/index.js';
import type { EnrolFlash } from './enrol-section.js';
import { decidesTransfers } from './transfers.js';
import { formOptions, formScope, seeOther, unlessDecided } from '../page-route.js';

const EnrolForm = z.object({ code: text().max(200).optional() });
const EmptyForm = z.object({}).passthrough().nullish();
/** Loose: a missing or blank reason is said on the page (`reason-required`), not a 400. */
const RejectForm = z.object({ reason: z.unknown().optional() }).passthrough().nullish();

/**
 * The forms of enrolment and purchases on the pages: plain HTML forms (no JavaScript) that post
 * here and come back with 303 to the page they were on, with the outcome in the query string
 * (`?enrol=`, `?purchase=`, `?decided=`, `?confirmed=`) for the page to say in the person's language.
 * A decision on a transfer comes back to /dashboard/transfers; a cancelled purchase to the page of
 * what it was for.
 *
 * Cross-site requests: a form cannot send the `x-requested-with` header the CSRF plugin asks of
 * the JSON routes, so these routes take its form rule (`csrf: 'form'`): the browser's `Origin` (or
 * `Sec-Fetch-Site: same-origin`) must show the form is one of ours; otherwise 403. The work itself is the JSON routes' domain code, with the same rules.
 */
const learningForms: FastifyPluginAsyncZod = async (app) => {
  // A 403 page shows its error's message (../index.ts): in the person's language, not the
  // domain's English.
  formScope(app, 4096);
  const courseIdOf = (request: FastifyRequest) => {
    const id = (request.params as { id: number }).id;
    if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) throw new NotFoundError('Course not found');
    return id;
  };
  /**
   * The buy forms' one step: the person's pending purchase of the item, started or found again
   * (startPurchase). False when there is nothing to pay (enrolled, paid, free: a ConflictError);
   * an item not for sale (not buyer-visible, or none) is a NotFoundError, so the 404 page.
   */
  /** Starts the purchase: 'started', 'capped' (too many waiting: said on the page), or 'nothing' (any other conflict). */
  const buy = async (userId: string, what: PurchaseItem): Promise<'started' | 'capped' | 'nothing'> => {
    try {
      await startPurchase(app.db, app.receipts, app.payments.provider, app.payments.rules, userId, what, app.clock());
      return 'started';
    } catch (err) {
      if (err instanceof TooManyPendingPurchasesError) return 'capped';
      if (!(err instanceof ConflictError)) throw err;
      return 'nothing';
    }
  };
  const formSchema = (summary: string, body: z.ZodType, params: z.ZodType = LearningIdParams) => formOptions({ summary, params, body });

  app.post(
    '/courses/:id/enrol',
    formSchema('Enrol form of the course page', EnrolForm.nullish(), CourseIdParams),
    async (request, reply) => {
      const session = await pageSession(app, request);
      const courseId = courseIdOf(request);
      const page = `/dashboard/courses/${courseId}`;
      let flash: EnrolFlash;
      try {
        const code = (request.body as z.infer<typeof EnrolForm> | null)?.code ?? undefined;
        const outcome = await enrol(
          app.db,
          app.receipts,
          session.caller.userId,
          courseId,
          code,
          app.enrolmentCodeAttempts(request),
          app.clock(),
        );
        flash = outcome.kind === 'enrolled' ? 'enrolled' : outcome.kind === 'requested' ? 'requested' : 'payment-required';
      } catch (err) {
        if (!(err instanceof BadRequestError)) throw err;
        flash = err.message === WRONG_CODE ? 'wrong-code' : err.message === CODE_REQUIRED ? 'code-required' : 'wrong-code';
      }
      return seeOther(reply, `${page}?enrol=${flash}#enrol`);
    },
  );

  app.post('/courses/:id/purchase', formSchema('Buy form of the course page', EmptyForm, CourseIdParams), async (request, reply) => {
    const session = await pageSession(app, request);
    const courseId = courseIdOf(request);
    const outcome = await buy(session.caller.userId, { courseId });
    const flash: EnrolFlash = outcome === 'started' ? 'purchase-started' : outcome === 'capped' ? 'too-many-pending' : 'nothing-to-buy';
    return seeOther(reply, `/dashboard/courses/${courseId}?enrol=${flash}#enrol`);
  });

  app.post('/bundles/:id/purchase', formSchema('Buy form of the bundles page', EmptyForm), async (request, reply) => {
    const session = await pageSession(app, request);
    const bundleId = (request.params as { id: number }).id;
    const outcome = await buy(session.caller.userId, { bundleId });
    const flash: BundleFlash = outcome === 'capped' ? 'too-many-pending' : outcome;
    return seeOther(reply, await bundlePageLink(app.db, bundleId, flash));
  });

  for (const [action, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    app.post(`/enrollment-requests/:id/${action}`, formSchema(`${action} form of the dashboard`, EmptyForm), async (request, reply) => {
      const session = await pageSession(app, request);
      const id = (request.params as { id: number }).id;
      const outcome = await unlessDecided(
        () => decideEnrollmentRequest(app.db, app.receipts, session.caller, id, decision, app.clock()),
        decision,
      );
      return seeOther(reply, `/dashboard?decided=${outcome}#requests`);
    });
  }

  /** The JSON routes' roles (admins and super_admins); the domain checks the institution. */
  const decider = async (request: FastifyRequest) => {
    const session = await pageSession(app, request);
    if (!decidesTransfers(session)) throw new ForbiddenError('Only an admin decides on payments');
    return session.caller;
  };

  app.post('/purchases/:id/confirm', formSchema('Confirm-transfer form of the transfers list', EmptyForm), async (request, reply) => {
    const caller = await decider(request);
    const id = (request.params as { id: number }).id;
    try {
      await confirmPurchase(app.db, app.receipts, caller, id, app.clock());
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      return seeOther(reply, '/dashboard/transfers?confirmed=already');
    }
    // The list then offers to undo it (15 minutes; ../../domain/learning/purchases.ts, undoConfirmation).
    return seeOther(reply, `/dashboard/transfers?confirmed=done&undo=${id}`);
  });

  app.post('/purchases/:id/undo', formSchema('Undo form of a confirmed transfer', EmptyForm), async (request, reply) => {
    const caller = await decider(request);
    const id = (request.params as { id: number }).id;
    const outcome = await unlessDecided(
      () => undoConfirmation(app.db, app.receipts.deliveries, caller, id, app.clock()),
      'undone',
      'undo-refused',
    );
    return seeOther(reply, `/dashboard/transfers?confirmed=${outcome}`);
  });

  // Reject (the money did not come): a reason the buyer reads; a purchase already decided says so
  // instead of failing.
  const decideWithReason = (path: string, summary: string, decide: typeof rejectPurchase, done: 'rejected') =>
    app.post(path, formSchema(summary, RejectForm), async (request, reply) => {
      const caller = await decider(request);
      const id = (request.params as { id: number }).id;
      const given = (request.body as { reason?: unknown } | null)?.reason;
      const reason = RejectPurchaseBody.shape.reason.safeParse(given);
      if (!reason.success) return seeOther(reply, '/dashboard/transfers?confirmed=reason-required');
      const outcome = await unlessDecided(() => decide(app.db, app.receipts, caller, id, reason.data, app.clock()), done);
      return seeOther(reply, `/dashboard/transfers?confirmed=${outcome}`);
    });
  decideWithReason('/purchases/:id/reject', 'Reject-transfer form of the transfers list', rejectPurchase, 'rejected');

  // Refund: the reason, and the certificates earned through the purchase revoked unless the admin
  // ticks "keep" and says why (both said on the list when missing; nothing is changed then).
  app.post('/purchases/:id/refund', formSchema('Refund form of the transfers list', RejectForm), async (request, reply) => {
    const caller = await decider(request);
    const id = (request.params as { id: number }).id;
    const form = (request.body ?? {}) as { reason?: unknown; keepCertificate?: unknown; keepReason?: unknown };
    const reason = RefundPurchaseBody.shape.reason.safeParse(form.reason);
    if (!reason.success) return seeOther(reply, '/dashboard/transfers?confirmed=refund-reason-required');
    const keeping = form.keepCertificate !== undefined;
    const keptReason = RefundPurchaseBody.shape.keepCertificateReason.unwrap().safeParse(form.keepReason);
    if (keeping && !keptReason.success) return seeOther(reply, '/dashboard/transfers?confirmed=keep-reason-required');
    const keepCertificateReason = keeping && keptReason.success ? keptReason.data : null;
    const outcome = await unlessDecided(
      () => refundPurchase(app.db, app.receipts, caller, id, reason.data, app.clock(), { keepCertificateReason }),
      'refunded',
    );
    return seeOther(reply, `/dashboard/transfers?confirmed=${outcome}`);
  });

  app.post('/purchases/:id/cancel', formSchema('Cancel form of the transfer instructions', EmptyForm), async (request, reply) => {
    const session = await pageSession(app, request);
    const id = (request.params as { id: number }).id;
    // Only its buyer: another person's purchase is a 404 page (cancelPurchase).
    const purchase = await cancelPurchase(app.db, session.caller.userId, id, app.clock()).catch(async (err: unknown) => {
      if (!(err instanceof ConflictError)) throw err;
      return null;
    });
    const item = purchase ?? (await findPurchase(app.db, id));
    if (item?.bundleId != null) return seeOther(reply, await bundlePageLink(app.db, item.bundleId, 'cancelled'));
    if (item?.courseId != null) return seeOther(reply, `/dashboard/courses/${item.courseId}?enrol=purchase-cancelled#enrol`);
    return seeOther(reply, '/dashboard');
  });
};

export default learningForms;
