import {
  EnrollBody,
  EnrolledResponse,
  type EnrollmentRequest,
  EnrollmentDecisionResponse,
  EnrollmentRequestedResponse,
  ErrorResponse,
  LearningIdParams,
  PaymentRequiredResponse,
  PendingEnrollmentRequestsResponse,
  STAFF_ROLES,
  ValidationErrorResponse,
} from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CODE_ATTEMPTS,
  CODE_WINDOW_MS,
  decideEnrollmentRequest,
  enrol,
  type EnrollmentRequestRow,
  listPendingRequests,
} from '../../domain/learning/enrollment.js';
import { CSRF_RULE, SESSION_ONLY, sessionCaller, sessionOnly } from './session-only.js';

const TAGS = ['learning: enrolment'];

export function requestBody(r: EnrollmentRequestRow): EnrollmentRequest {
  return {
    id: r.id,
    courseId: r.courseId,
    status: r.status,
    requestedAt: r.requestedAt.toISOString(),
    decidedAt: r.decidedAt?.toISOString() ?? null,
  };
}

const common = {
  401: ErrorResponse.describe('No session (or an unknown one).'),
  403: ErrorResponse,
};

const DECIDE =
  "Who decides: the course's teacher, an admin of the course's institution, or a super_admin; anyone else 403 " +
  '(a student, another teacher, an admin of another institution). The decision is written only while the request ' +
  'is pending: a second decision (or a concurrent one) is 409.';

/** Enrolment: POST /api/learning/courses/{id}/enrollment, and the approval requests' routes. */
const enrollmentRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/learning/courses/:id/enrollment',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: TAGS,
        operationId: 'enrollInCourse',
        summary: 'Enrol in a course (open, by code, or by asking for approval)',
        description:
          `${SESSION_ONLY}${CSRF_RULE}\n\n` +
          'The course must be buyer-visible (published with an event code), else 404. Already enrolled: 200 with the ' +
          'same enrollment. A course whose `endDate` has passed takes no enrolments: 409 (a paid purchase still admits). A' +
          " purchasable course whose price for the caller's tier (anggota → price, umum → " +
          'priceNonMember or else price, mahasiswa → priceMahasiswa or else price; no tier → price) is above 0 needs a ' +
          'paid purchase first: without one, 402 with the price and how to buy it; with one (of the course or of a ' +
          'bundle holding it), 201, whatever the enrolment type (the payment, confirmed by an admin, is the admission). ' +
          "Otherwise by `enrollmentType`: `open` → 201; `code` → `code` must equal the course's enrolment code " +
          '(compared in constant time): missing → 400, wrong → 400 `The enrolment code is wrong`; every code attempt ' +
          `counts, at most ${CODE_ATTEMPTS} per learner and course, and ${app.config.ENROLMENT_CODE_ATTEMPTS_PER_ADDRESS} per ` +
          `client address and course (however many accounts send them), in any sliding ${CODE_WINDOW_MS / 60_000} minutes: ` +
          'past that 429 with `Retry-After`, whatever the code; `approval` → 202 with a pending request for the ' +
          "course's teacher (again while pending: 202 with the same request).",
        security: [{ session: [] }],
        params: LearningIdParams,
        body: EnrollBody.nullish(),
        response: {
          200: EnrolledResponse.describe('Already enrolled: the existing enrollment.'),
          201: EnrolledResponse.describe('Enrolled now.'),
          202: EnrollmentRequestedResponse.describe('An `approval` course: the pending request.'),
          400: ValidationErrorResponse.or(ErrorResponse).describe('A bad body, a missing code, or a wrong code.'),
          402: PaymentRequiredResponse,
          ...common,
          404: ErrorResponse.describe('No such course, or it is not buyer-visible.'),
          409: ErrorResponse.describe('The course has ended (its endDate has passed): no more enrolments.'),
          429: ErrorResponse.describe('Too many code attempts for this course (or failed credentials from the IP); Retry-After.'),
        },
      },
    },
    async (request, reply) => {
      const caller = sessionCaller(request);
      const courseId = request.params.id;
      const outcome = await enrol(
        app.db,
        app.receipts,
        caller.userId,
        courseId,
        request.body?.code,
        app.enrolmentCodeAttempts(request),
        app.clock(),
      );
      switch (outcome.kind) {
        case 'enrolled':
          return reply.code(outcome.created ? 201 : 200).send({
            success: true as const,
            enrollment: { courseId: outcome.enrollment.courseId, enrolledAt: outcome.enrollment.enrolledAt.toISOString() },
          });
        case 'requested':
          return reply.code(202).send({ success: true as const, request: requestBody(outcome.request) });
        case 'payment-required':
          return reply.code(402).send({
            success: false as const,
            error: `This course must be bought first: ${outcome.amount} ${outcome.currency} at your tier. Start a purchase with POST /api/learning/purchases`,
            price: { amount: outcome.amount, currency: outcome.currency },
            purchase: { method: 'POST' as const, path: '/api/learning/purchases' as const, body: { courseId } },
          });
      }
    },
  );

  app.get(
    '/api/learning/enrollment-requests',
    {
      config: { auth: sessionOnly(STAFF_ROLES) },
      schema: {
        tags: TAGS,
        operationId: 'listEnrollmentRequests',
        summary: 'The pending enrolment requests the caller decides, oldest first (at most 200)',
        description: `${SESSION_ONLY} Teachers see their own courses' requests, admins their institution's, super_admins all; a student 403.`,
        security: [{ session: [] }],
        response: { 200: PendingEnrollmentRequestsResponse, ...common },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      const rows = await listPendingRequests(app.db, caller);
      return {
        success: true as const,
        requests: rows.map((r) => ({
          id: r.id,
          courseId: r.courseId,
          status: 'pending' as const,
          requestedAt: r.requestedAt.toISOString(),
          decidedAt: null,
          courseName: r.courseName,
          learner: { id: r.userId, name: r.userName, email: r.userEmail, membershipId: r.membershipId },
        })),
      };
    },
  );

  for (const [action, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    app.post(
      `/api/learning/enrollment-requests/:id/${action}`,
      {
        config: { auth: sessionOnly() },
        schema: {
          tags: TAGS,
          operationId: action === 'approve' ? 'approveEnrollmentRequest' : 'rejectEnrollmentRequest',
          summary: action === 'approve' ? 'Approve a pending enrolment request (enrols the learner)' : 'Reject a pending enrolment request',
          description:
            `${SESSION_ONLY}${CSRF_RULE}\n\n${DECIDE}` +
            (action === 'approve' ? ' Approval creates the enrollment in the same transaction.' : ' The learner may ask again later.'),
          security: [{ session: [] }],
          params: LearningIdParams,
          response: {
            200: EnrollmentDecisionResponse,
            400: ErrorResponse,
            ...common,
            404: ErrorResponse.describe('No such request.'),
            409: ErrorResponse.describe('The request was already decided.'),
          },
        },
      },
      async (request) => {
        const caller = sessionCaller(request);
        const { request: decided, enrollment } = await decideEnrollmentRequest(
          app.db,
          app.receipts,
          caller,
          request.params.id,
          decision,
          app.clock(),
        );
        return {
          success: true as const,
          request: requestBody(decided),
          enrollment: enrollment && { courseId: enrollment.courseId, enrolledAt: enrollment.enrolledAt.toISOString() },
        };
      },
    );
  }
};

export default enrollmentRoutes;
