import { CreateCourseBody, CreateCourseResponse, ErrorResponse, OPEN_ENDED_END_DATE, ValidationErrorResponse } from '@lms/contracts';
import { CLOCK_TOLERANCE_SECONDS } from '@lms/partner-auth';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createDraftCourse } from '../../domain/course-creation.js';
import { type CreationWork, CREATION_LOCK_WAIT_MS } from '../../domain/idempotency.js';
import { runKeyedRequest } from '../keyed-request.js';

/**
 * `POST /api/courses`: course creation for partners, reached only through the gateway. The
 * gateway has already checked the issuer and the caller IP; the auth plugin checks the gateway's
 * credential and the partner's bearer JWT (the `partner-token` kind, plugins/gateway-credential.ts);
 * here the body, the token's `jti` (a fresh one), then the partner's rights on the institution and
 * the teacher. The course is created as a draft.
 */
const courseCreationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/courses',
    {
      config: { auth: { accepts: ['partner-token'] }, authoringLimited: true },
      schema: {
        tags: ['courses'],
        operationId: 'createCourse',
        summary: 'Create a course as a draft (partners, through the gateway only)',
        description:
          "Reached through the gateway only: requests without the gateway's credential get 403. " +
          "`Authorization: Bearer <JWT>`, a course-creation token: RS256, `typ` JWT, a `kid` of the partner's keys; " +
          "claims `iss` (a registered partner), `aud` exactly `terang.ai`, `sub` (the partner's name for the calling " +
          'system, 1–100 characters; no member tier), `iat`, `exp` at most 300 s after ' +
          `\`iat\` (clock tolerance ${CLOCK_TOLERANCE_SECONDS} s), and a \`jti\` never used before. A token carrying ` +
          '`email` or `membershipId` is a sign-in (SSO) token and is refused (401), as a course-creation token is refused ' +
          'at sign-in. Unknown body fields are refused (400). The institution must be one an operator bound to the ' +
          'partner (`lms-admin partner bind`) and `teacherId` an active teacher of that institution; otherwise 403 naming ' +
          'the institution (an unknown institution or teacher reads the same). The course is created unpublished. The ' +
          "created record follows the spec's types, settled as the catalog list settles them: `startDate` is the " +
          `creation time when none was given, \`endDate\` \`${OPEN_ENDED_END_DATE}\` when none was given (the course runs on), \`coverPicture\` an empty ` +
          'string when none was given. ' +
          '`Idempotency-Key` (optional, 1–255 visible ASCII characters): the same key with the same body from the same ' +
          'partner within 24 h returns the first response (with `Idempotency-Replayed: true`) and creates nothing; ' +
          'the same key with another body is a 422; a concurrent retry waits for the first and then replays its answer ' +
          `(409 with \`Retry-After\` if the first still holds the key after ${CREATION_LOCK_WAIT_MS / 1000} s). Success, 400 and ` +
          "422 answers are kept; any other answer frees the key. The key, the token's `jti`, the course and the kept answer " +
          'are committed together: if the LMS fails before the commit, nothing was kept and a retry with the key does the ' +
          'work; after it, a retry gets the kept answer. A retry needs a fresh token like any request (a `jti` works once): ' +
          'the same token again is a 401, even with the key. ' +
          "The creation is the first event of the course's history (`course.create`, with the token's `sub` and `jti`). " +
          'Each partner may make AUTHORING_RATE_LIMIT_PER_MINUTE authoring requests, this one included, in any sliding ' +
          'minute (429 with `Retry-After` past it).',
        headers: z.object({
          authorization: z.string().optional(),
          'idempotency-key': z.string().optional(),
        }),
        body: CreateCourseBody,
        response: {
          201: CreateCourseResponse,
          400: ValidationErrorResponse.or(ErrorResponse),
          401: ErrorResponse.meta({ description: 'Missing, invalid, expired or replayed bearer token, or a sign-in (SSO) token' }),
          403: ErrorResponse.meta({
            description:
              'Not sent by the gateway; or an institution not bound to the partner, or a `teacherId` that is not an active ' +
              'teacher of it (the message names the institution)',
          }),
          409: ErrorResponse.meta({ description: 'The first request with this Idempotency-Key still holds it (with `Retry-After`)' }),
          429: ErrorResponse.meta({ description: "Over the partner's authoring budget per minute (with `Retry-After`)" }),
          413: ErrorResponse.meta({ description: 'Body over BODY_LIMIT_BYTES' }),
          415: ErrorResponse.meta({ description: 'Body is not application/json' }),
          422: ErrorResponse.meta({ description: 'An Idempotency-Key reused with another body' }),
          503: ErrorResponse.meta({
            description: 'GATEWAY_SECRET is not configured on this LMS, or the database is unavailable (with `Retry-After`)',
          }),
        },
      },
    },
    async (request, reply) => {
      // biome-ignore lint/style/noNonNullAssertion: the route requires a partner token, which the auth hook sets.
      const token = request.partnerToken!;
      const body = request.body;

      // The jti and the course commit together (with the claim and the answer of an
      // Idempotency-Key): a crash leaves either all of them or none.
      const ctx = {
        author: { kind: 'partner' as const, issuer: token.issuer, subject: token.subject, tokenId: token.jti },
        now: app.clock(),
        requestId: request.id,
      };
      const create: CreationWork = async (tx) => {
        const course = await createDraftCourse(tx, ctx, body);
        return { statusCode: 201, body: { success: true, message: 'Course created as a draft', course } };
      };
      // The token is spent with the course (or with the replay of a kept answer: a retry needs a fresh token too).
      const result = await runKeyedRequest(app, request, reply, { scope: token.issuer, requestBody: body, work: create, token });
      if (!result.replayed && result.statusCode === 201) {
        const { course } = result.body as z.infer<typeof CreateCourseResponse>;
        request.log.info({ courseId: course.id, issuer: token.issuer }, 'course created by partner');
      }
      return reply.code(result.statusCode as 201).send(result.body as z.infer<typeof CreateCourseResponse>);
    },
  );
};

export default courseCreationRoutes;
