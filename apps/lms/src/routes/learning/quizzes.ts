import { AttemptIdParams, ErrorResponse, QuizAttemptResponse, QuizIdParams, SubmissionBody, SubmissionResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type AttemptView, startAttempt, submitAttempt } from '../../domain/learning/quiz-attempts.js';
import { sessionOnly } from './session-only.js';
import { commonErrors, CSRF, sessionLearner, WHO } from './learner.js';

export function attemptBody(a: AttemptView) {
  return {
    success: true as const,
    attemptId: a.attemptId,
    attemptNumber: a.attemptNumber,
    startedAt: a.startedAt.toISOString(),
    expiresAt: a.expiresAt?.toISOString() ?? null,
    quiz: a.quiz,
    questions: a.questions,
  };
}

/** Quiz attempts: started on the server (the clock starts then), scored on the server. */
const quizRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/learning/quizzes/:id/attempts',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: ['Learning'],
        operationId: 'startQuizAttempt',
        summary: 'Start an attempt at a quiz: its questions and options, without any answer key',
        description:
          `${WHO}${CSRF} 201 with a new attempt; an open attempt whose time is not up is returned again (200) ` +
          'rather than spending another. Every started attempt counts toward maxAttempts plus the attempts the ' +
          "course's teacher or an admin granted this learner (409 once used up); an " +
          'attempt left open past its time closes as failed with score 0. A chapter quiz opens with its chapter, a ' +
          'module quiz with its module, the final exam when every chapter is completed and every chapter and module ' +
          'quiz passed; otherwise 403 naming what to finish first.',
        security: [{ session: [] }],
        params: QuizIdParams,
        response: {
          200: QuizAttemptResponse,
          201: QuizAttemptResponse,
          400: ErrorResponse,
          403: ErrorResponse.describe('An API key, not enrolled, the quiz is locked, or the CSRF check failed'),
          404: ErrorResponse.describe('No such quiz'),
          409: ErrorResponse.describe('No attempts left (maxAttempts plus any granted attempts used)'),
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const { created, attempt } = await startAttempt(app.db, sessionLearner(request), request.params.id, app.clock());
      return reply.code(created ? 201 : 200).send(attemptBody(attempt));
    },
  );

  app.post(
    '/api/learning/quiz-attempts/:id/submission',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: ['Learning'],
        operationId: 'submitQuizAttempt',
        summary: 'Submit the answers of an attempt: scored on the server, once',
        description:
          `${WHO.replace(' The course must have an enrollment of the caller (403 otherwise).', '')}${CSRF} ` +
          'Score 0-100, points-weighted: a question with options is right when the chosen option is the right ' +
          'one; a text question when the answer equals the key after normalising (Unicode NFC, trimmed, spaces ' +
          'collapsed, case-insensitive); an essay question without a key is not scored and does not count. ' +
          "Passed: at or above the quiz's minimumScore, or the course's minPassingScore for the final exam. " +
          'The answer says the score and whether it passed, never which answers were right nor any explanation ' +
          '(the learner may try again). An attempt is submitted once (409 for the second); after expiresAt plus ' +
          "30 seconds the answer is 409 and the attempt closes as failed with score 0. Another person's attempt " +
          'is 404. Passing the final exam with every chapter completed issues the certificate, exactly once.',
        security: [{ session: [] }],
        params: AttemptIdParams,
        body: SubmissionBody,
        response: {
          200: SubmissionResponse,
          400: ErrorResponse.describe('A malformed body'),
          403: ErrorResponse.describe('An API key, or the CSRF check failed'),
          404: ErrorResponse.describe('No such attempt of yours'),
          409: ErrorResponse.describe('Already submitted, or the time limit passed'),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const r = await submitAttempt(app.db, app.receipts, sessionLearner(request), request.params.id, request.body.answers, app.clock());
      return { success: true as const, ...r, submittedAt: r.submittedAt.toISOString() };
    },
  );
};

export default quizRoutes;
