import { ChapterIdParams, ChapterResponse, CompletionResponse, ErrorResponse, HeartbeatBody, HeartbeatResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { beatChapter, completeChapter, openChapter } from '../../domain/learning/chapters.js';
import { sessionCaller, sessionOnly } from './session-only.js';
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
          409: ErrorResponse.describe(
            'The course\'s credit requires more active time on this chapter first: the error says how long ("3 min 20 s more")',
          ),
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const caller = sessionCaller(request);
      const done = await completeChapter(app.db, app.receipts, caller.userId, request.params.id, app.clock(), caller.sessionTokenHash);
      return reply
        .code(done.created ? 201 : 200)
        .send({ success: true as const, chapter: done.chapter, certificateCode: done.certificateCode });
    },
  );

  app.post(
    '/api/learning/chapters/:id/heartbeat',
    {
      // A beat is a few bytes; every 30 s from an open chapter page, so it shares the person's session budget.
      bodyLimit: 1024,
      config: { auth: sessionOnly(), sessionLimited: true },
      schema: {
        tags: ['Learning'],
        operationId: 'chapterHeartbeat',
        summary: "The chapter page is open and visible: the server credits the time since the learner's previous beat",
        description:
          `${WHO}${CSRF} ${LOCKED} The chapter page sends one every 30 s while it is visible. The server credits the ` +
          'time since the previous beat on the chapter, at most 60 s, and nothing when that was under 10 s ago (the ' +
          'beat is counted); the first beat credits nothing. No client figure is read. Counted against the ' +
          "person's session rate limit (SESSION_RATE_LIMIT_PER_MINUTE).",
        security: [{ session: [] }],
        params: ChapterIdParams,
        body: HeartbeatBody,
        response: {
          200: HeartbeatResponse,
          400: ErrorResponse.describe('A body other than `{"visible": true}`'),
          403: ErrorResponse.describe('An API key, not enrolled, the chapter is locked, or the CSRF check failed'),
          404: ErrorResponse.describe('No such chapter'),
          413: ErrorResponse.describe('A body over 1 KiB'),
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const caller = sessionCaller(request);
      const time = await beatChapter(app.db, caller.userId, request.params.id, app.clock(), caller.sessionTokenHash);
      return { success: true as const, time };
    },
  );
};

export default chapterRoutes;
