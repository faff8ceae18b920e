import { ErrorResponse, LearningCourseIdParams } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  evaluationState,
  evaluationSummary,
  MAX_EVALUATION_COMMENT,
  MIN_RESPONSES_SHOWN,
  submitEvaluation,
} from '../../domain/evidence/evaluation.js';
import { sessionCaller, sessionOnly } from './session-only.js';
import { commonErrors, CSRF, sessionLearner, WHO } from './learner.js';

const Item = z.object({ key: z.string(), id: z.string(), en: z.string() });

const EvaluationFormResponse = z
  .object({ success: z.literal(true), items: z.array(Item), courseName: z.string(), done: z.boolean(), open: z.boolean() })
  .meta({ id: 'EvaluationFormResponse' });

const EvaluationSubmitResponse = z
  .object({ success: z.literal(true), certificateCode: z.string().nullable() })
  .meta({ id: 'EvaluationSubmitResponse' });

const EvaluationSummaryResponse = z
  .object({
    success: z.literal(true),
    courseId: z.number().int(),
    courseName: z.string(),
    responses: z.number().int(),
    items: z.array(Item.extend({ average: z.number().nullable(), counts: z.array(z.number().int()).length(5).nullable() })),
    comments: z.array(z.string()).nullable(),
  })
  .meta({ id: 'EvaluationSummaryResponse' });

/** Loose: the answers are checked against the course's items (a 422 names the wrong one). */
const EvaluationBody = z.object({ answers: z.unknown().optional(), comment: z.unknown().optional() }).passthrough();

/** The evaluation form (learners) and its summary (the course's managers). */
const evaluationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/learning/courses/:id/evaluation',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: ['Learning'],
        operationId: 'getEvaluationForm',
        summary: "The course's evaluation items (Likert 1-5); whether the caller has filled in the form, or may (every chapter done)",
        description: WHO,
        security: [{ session: [] }],
        params: LearningCourseIdParams,
        response: { 200: EvaluationFormResponse, 400: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, ...commonErrors },
      },
    },
    async (request) => {
      const state = await evaluationState(app.db, sessionLearner(request), request.params.id, app.clock());
      return { success: true as const, ...state };
    },
  );

  app.post(
    '/api/learning/courses/:id/evaluation',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: ['Learning'],
        operationId: 'submitEvaluation',
        summary: "Fill in the course's evaluation form, once (201)",
        description:
          `${WHO}${CSRF} Open once every chapter is completed (403 before). \`answers\`: every item's key → an integer ` +
          `1..5, nothing else; \`comment\`: optional text up to ${MAX_EVALUATION_COMMENT} characters without control ` +
          'characters (422 otherwise). A second form is 409. The answers are stored without the learner (only the day); ' +
          'the certificate is checked after it (it may have waited for the evaluation).',
        security: [{ session: [] }],
        params: LearningCourseIdParams,
        body: EvaluationBody,
        response: {
          201: EvaluationSubmitResponse,
          400: ErrorResponse,
          403: ErrorResponse.describe('An API key, not enrolled, chapters left, or the CSRF check failed'),
          404: ErrorResponse.describe('No such course'),
          409: ErrorResponse.describe('Already filled in'),
          422: ErrorResponse.describe('A missing or wrong answer, or a wrong comment'),
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const caller = sessionCaller(request);
      const done = await submitEvaluation(
        app.db,
        app.receipts,
        caller.userId,
        request.params.id,
        request.body,
        app.clock(),
        caller.sessionTokenHash,
      );
      return reply.code(201).send({ success: true as const, certificateCode: done.certificateCode });
    },
  );

  app.get(
    '/api/learning/courses/:id/evaluation/summary',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: ['Learning'],
        operationId: 'getEvaluationSummary',
        summary: "The course's evaluation summary, for its managers: averages and counts per item, comments",
        description:
          "The course's teacher, an admin of its institution or a super_admin (403 anyone else). Never says who wrote " +
          `what: no names, ids or times; the averages, counts and comments only from ${MIN_RESPONSES_SHOWN} responses on (null below).`,
        security: [{ session: [] }],
        params: LearningCourseIdParams,
        response: { 200: EvaluationSummaryResponse, 400: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, ...commonErrors },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      const summary = await evaluationSummary(app.db, caller, request.params.id, app.clock());
      return { success: true as const, ...summary };
    },
  );
};

export default evaluationRoutes;
