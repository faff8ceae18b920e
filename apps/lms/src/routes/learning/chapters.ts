import { ChapterIdParams, ChapterResponse, CompletionResponse, ErrorResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { completeChapter, openChapter } from '../../domain/learning/chapters.js';
import { sessionOnly } from './session-only.js';
import { commonErrors, CSRF, sessionLearner, WHO } from './learner.js';

const LOCKED =
  'A chapter locked by the unlock rule (see the catalog) is 403, and the error names what opens it: the chapter ' +
  'or quiz to finish first.';

/** Reading a chapter and marking it complete. */
const chapterRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/learning/chapters/:id',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: ['Learning'],
        operationId: 'getChapter',
        summary: 'A chapter with its content, when the caller is enrolled and the chapter is unlocked',
        description: `${WHO} ${LOCKED}`,
        security: [{ session: [] }],
        params: ChapterIdParams,
        response: {
          200: ChapterResponse,
          400: ErrorResponse,
          403: ErrorResponse.describe('An API key, not enrolled, or the chapter is locked (the error says by what)'),
          404: ErrorResponse.describe('No such chapter'),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const chapter = await openChapter(app.db, sessionLearner(request), request.params.id);
      return { success: true as const, chapter };
    },
  );

  app.post(
    '/api/learning/chapters/:id/completion',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: ['Learning'],
        operationId: 'completeChapter',
        summary: 'Mark a chapter complete (201; again: 200, nothing changes)',
        description:
          `${WHO}${CSRF} ${LOCKED} Completing the last chapter of a course without a final exam (or whose final ` +
          'exam is passed) issues the certificate, once.',
        security: [{ session: [] }],
        params: ChapterIdParams,
        response: {
          200: CompletionResponse,
          201: CompletionResponse,
          400: ErrorResponse,
          403: ErrorResponse.describe('An API key, not enrolled, the chapter is locked, or the CSRF check failed'),
          404: ErrorResponse.describe('No such chapter'),
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const done = await completeChapter(app.db, sessionLearner(request), request.params.id, app.clock());
      return reply
        .code(done.created ? 201 : 200)
        .send({ success: true as const, chapter: done.chapter, certificateCode: done.certificateCode });
    },
  );
};

export default chapterRoutes;
