import {
  BundleListResponse,
  BundleQuery,
  CourseDetailResponse,
  CourseDetailWithAnswersResponse,
  CourseIdParams,
  CourseListQuery,
  CourseListResponse,
  CONTENT_RULE,
  ErrorResponse,
  UNLOCK_RULE,
  UNPAGINATED_CAP,
} from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findBundles } from '../../domain/catalog/bundles.js';
import { findCourseDetail } from '../../domain/catalog/course-detail.js';
import { findVisibleCourses } from '../../domain/catalog/course-list.js';
import type { CatalogViewer } from '../../domain/catalog/viewer.js';
import { NotFoundError } from '../../errors.js';
import { compileResponseSerializer } from '../../lib/serializers.js';

const security: { [scheme: string]: string[] }[] = [{ apiKey: [] }, { session: [] }];

/** The error statuses every catalog route can answer, described with the one error shape; the limit is the deployment's. */
const errorResponsesFor = (perMinute: number) => ({
  400: ErrorResponse.describe('A malformed or out-of-range parameter; the message names it.'),
  401: ErrorResponse.describe('Missing, unknown, malformed or revoked API key, or no valid session.'),
  429: ErrorResponse.describe(
    `API-key rate limit (${perMinute} requests per minute per key, sliding window; RATE_LIMIT_PER_MINUTE) exceeded: ` +
      '`Rate limit exceeded`, with Retry-After; or too many failed credentials from the client IP (see the introduction), with Retry-After.',
  ),
  500: ErrorResponse.describe('Internal server error.'),
});

// The detail's two answers, compiled once: see the route.
const serializeDetail = compileResponseSerializer(CourseDetailResponse);
const serializeDetailWithAnswers = compileResponseSerializer(CourseDetailWithAnswersResponse);

function viewerOf(request: FastifyRequest): CatalogViewer {
  // biome-ignore lint/style/noNonNullAssertion: the route requires authentication, which sets caller.
  const caller = request.caller!;
  return { kind: caller.kind, userId: caller.userId, role: caller.role };
}

/** GET /api/courses, GET /api/courses/{id}, GET /api/recommended-courses. */
const catalogRoutes: FastifyPluginAsyncZod = async (app) => {
  const errorResponses = errorResponsesFor(app.config.RATE_LIMIT_PER_MINUTE);
  // One serialized answer per page, shared by every API key for CATALOG_CACHE_MS (plugins/catalog-cache.ts).
  // Sessions are never served from it (their answers carry the learner's progress or the teacher's
  // drafts). Authentication and the rate limit still run for every request.
  const sharedList = app.sharedCatalogList;

  app.get(
    '/api/courses',
    {
      config: { auth: true, rateLimited: true, sessionLimited: true },
      schema: {
        tags: ['catalog'],
        operationId: 'listCourses',
        summary: 'List courses',
        description:
          'The catalog, one page at a time. Visibility: API keys see buyer-visible courses only (published with an ' +
          "event code); a teacher's session sees the teacher's own courses, drafts included; an admin's session sees " +
          "the courses of the admin's institution, drafts included, and every other buyer-visible course; a super_admin's " +
          "session sees every course; a student's session sees buyer-visible courses with the student's own progress. " +
          'finalExam.questions is filled only for those who manage the course (its owner teacher, an admin of its ' +
          'institution, a super_admin) and is [] for everyone else. ' +
          `Without page and limit at most ${UNPAGINATED_CAP} courses are returned; pagination is always present. ` +
          `Learner fields (totalProgress, status, completionPercentage, isUnlocked, finalExam, certificate) are the ` +
          `session user's; API-key callers get not-started defaults. ${UNLOCK_RULE} ` +
          'enrollmentCode is filled only for a session of someone who manages the course (its teacher, an admin of its ' +
          'institution, a super_admin); everyone else reads "". ' +
          (app.config.CATALOG_CACHE_MS > 0
            ? `API-key callers share answers: one answer per set of parameters is computed at most every ` +
              `${app.config.CATALOG_CACHE_MS} ms (CATALOG_CACHE_MS) and given to every key, so a course change shows here within that ` +
              'time (at once on the instance that made an authoring change).'
            : ''),
        security,
        querystring: CourseListQuery,
        response: { 200: CourseListResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const viewer = viewerOf(request);
      const answer = async () => ({ success: true as const, ...(await findVisibleCourses(app.db, viewer, request.query)) });
      if (!sharedList || viewer.kind !== 'api-key') return answer();
      const q = request.query;
      const key = JSON.stringify([q.page, q.limit, q.search?.trim(), q.categoryId, q.courseId, q.sortBy]);
      // Serialized through the route's response schema once and kept as UTF-8 bytes, then sent
      // as is (Fastify sends a Buffer untouched; the content type says it is JSON).
      const body = await sharedList.get(key, async () => {
        // The route's serializer gives its answer as bytes already (compileResponseSerializer).
        const serialized = reply.serialize(await answer());
        return Buffer.isBuffer(serialized) ? serialized : Buffer.from(serialized as string);
      });
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.get(
    '/api/courses/:id',
    {
      config: { auth: true, rateLimited: true },
      schema: {
        tags: ['catalog'],
        operationId: 'getCourse',
        summary: 'Course detail',
        description:
          'One course with its modules, chapters, quizzes and questions (each in orderIndex order) and its module-level ' +
          'quizzes. A course that is not buyer-visible answers 404 except to its owner teacher and to a super_admin, ' +
          'both by session. Answer keys (correctAnswer, essayAnswer, explanation, and isCorrect on options) are sent ' +
          'only to the owner teacher or a super_admin by session (CourseDetailWithAnswers); everyone else gets ' +
          `CourseDetail, which has no answer-key field at any depth. ${CONTENT_RULE}`,
        security,
        params: CourseIdParams,
        response: {
          200: z.union([CourseDetailWithAnswersResponse, CourseDetailResponse]),
          ...errorResponses,
          400: ErrorResponse.describe('The id is not numeric.'),
          404: ErrorResponse.describe('No such course, or it is not buyer-visible and the caller is neither its owner nor a super_admin.'),
        },
      },
    },
    async (request, reply) => {
      const found = await findCourseDetail(app.db, viewerOf(request), request.params.id);
      if (!found) throw new NotFoundError('Course not found');
      // Written by the serializer of the caller's kind, chosen here rather than by the union
      // (which would test each branch against the answer): the public one declares no
      // answer-key field, so nothing the query might have returned can slip through.
      reply.serializer(found.withAnswerKeys ? serializeDetailWithAnswers : serializeDetail);
      return { success: true as const, course: found.course } as never;
    },
  );

  app.get(
    '/api/recommended-courses',
    {
      config: { auth: true, rateLimited: true, sessionLimited: true },
      schema: {
        tags: ['catalog'],
        operationId: 'listRecommendedBundles',
        summary: 'Recommended course bundles',
        description:
          'Pairs of courses sold together, in id order. totalPrice is the sum of the two course prices; price falls ' +
          "back to totalPrice and priceNonMember to price; kum adds up both courses' nilaiKum. `public=true` keeps only " +
          'bundles whose two courses are both buyer-visible; it is not implied by an API key.',
        security,
        querystring: BundleQuery,
        response: { 200: BundleListResponse, ...errorResponses },
      },
    },
    async (request) => {
      const recommendedCourses = await findBundles(app.db, viewerOf(request), request.query);
      return { success: true as const, recommendedCourses };
    },
  );
};

export default catalogRoutes;
