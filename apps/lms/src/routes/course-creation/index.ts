import { createHash, timingSafeEqual } from 'node:crypto';
import { CreateCourseBody, CreateCourseResponse, ErrorResponse, ValidationErrorResponse } from '@lms/contracts';
import { CLOCK_TOLERANCE_SECONDS, PartnerTokenError, type VerifiedPartnerToken, verifyPartnerToken } from '@lms/partner-auth';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createDraftCourse } from '../../domain/course-creation.js';
import { type CreationWork, CREATION_LOCK_WAIT_MS, hashRequestBody, runIdempotent, runInCreationTransaction } from '../../domain/idempotency.js';
import { spendTokenId } from '../../domain/partner-tokens.js';
import { AppError, BadRequestError, ForbiddenError, UnauthorizedError } from '../../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified bearer token of the partner calling through the gateway. */
    partnerToken?: VerifiedPartnerToken;
  }
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

function sameSecret(given: string, expected: string): boolean {
  // Hash both so the comparison is constant-time whatever the lengths.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * `POST /api/courses`: course creation for partners, reached only through the gateway. The
 * gateway has already checked the issuer and the caller IP; here the gateway's credential is
 * checked, then the partner's bearer JWT (same header and claim rules as SSO, a fresh `jti`;
 * no `email` or `membershipId` needed), then the body. The course is created as a draft.
 */
const courseCreationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/courses',
    {
      onRequest: async (request) => {
        const secret = app.config.GATEWAY_SECRET;
        if (!secret) throw new AppError(503, 'Course creation is not enabled on this LMS');
        const given = request.headers['x-gateway-secret'];
        if (typeof given !== 'string' || !sameSecret(given, secret)) {
          throw new ForbiddenError('Course creation is accepted only through the gateway');
        }
        const token = request.headers.authorization?.match(/^Bearer +(\S+)$/i)?.[1];
        if (!token) throw new UnauthorizedError('Authorization: Bearer <token> is required');
        try {
          request.partnerToken = await verifyPartnerToken(token, { purpose: 'bearer', registry: app.partnerKeys, now: app.clock });
        } catch (err) {
          if (err instanceof PartnerTokenError) throw new UnauthorizedError(err.reason);
          throw err;
        }
      },
      schema: {
        tags: ['courses'],
        summary: 'Create a course as a draft (partners, through the gateway only)',
        description:
          'Reached through the gateway only: requests without the gateway\'s credential get 403. ' +
          '`Authorization: Bearer <JWT>`: RS256, `typ` JWT, a `kid` of the partner\'s keys; claims `iss` (a registered ' +
          'partner), `aud` exactly `terang.ai`, `sub` (member, umum or mahasiswa), `iat`, `exp` at most 300 s after ' +
          `\`iat\` (clock tolerance ${CLOCK_TOLERANCE_SECONDS} s), and a \`jti\` never used before; \`email\` and ` +
          '`membershipId` are not needed. Unknown body fields are refused (400). The teacher must exist, be an ' +
          'active teacher and belong to the institution, which must exist (422). The course is created unpublished. ' +
          '`Idempotency-Key` (optional, 1–255 visible ASCII characters): the same key with the same body from the same ' +
          'partner within 24 h returns the first response (with `Idempotency-Replayed: true`) and creates nothing; ' +
          'the same key with another body is a 422; a concurrent retry waits for the first and then replays its answer ' +
          `(409 with \`Retry-After\` if the first still holds the key after ${CREATION_LOCK_WAIT_MS / 1000} s). Success, 400 and ` +
          '422 answers are kept; any other answer frees the key. The key, the token\'s `jti`, the course and the kept answer ' +
          'are committed together: if the LMS fails before the commit, nothing was kept and a retry with the key does the ' +
          'work; after it, a retry gets the kept answer. A retried request may carry the same token: a replayed response ' +
          'does not spend the `jti` again.',
        headers: z.object({
          authorization: z.string().optional(),
          'idempotency-key': z.string().optional(),
        }),
        body: CreateCourseBody,
        response: {
          201: CreateCourseResponse,
          400: ValidationErrorResponse.or(ErrorResponse),
          401: ErrorResponse.meta({ description: 'Missing, invalid, expired or replayed bearer token' }),
          403: ErrorResponse.meta({ description: 'Not sent by the gateway' }),
          409: ErrorResponse.meta({ description: 'The first request with this Idempotency-Key still holds it (with `Retry-After`)' }),
          413: ErrorResponse.meta({ description: 'Body over BODY_LIMIT_BYTES' }),
          415: ErrorResponse.meta({ description: 'Body is not application/json' }),
          422: ErrorResponse.meta({ description: 'Unknown institution or teacher, or an Idempotency-Key reused with another body' }),
          503: ErrorResponse.meta({ description: 'GATEWAY_SECRET is not configured on this LMS' }),
        },
      },
    },
    async (request, reply) => {
      const token = request.partnerToken!;
      const body = request.body;

      // The jti and the course commit together (with the claim and the answer of an
      // Idempotency-Key): a crash leaves either all of them or none.
      const create: CreationWork = async (tx) => {
        const keepUntil = new Date((token.expiresAt + CLOCK_TOLERANCE_SECONDS) * 1000);
        if ((await spendTokenId(tx, token.issuer, token.jti, keepUntil)).length === 0) {
          throw new UnauthorizedError('Token has already been used.');
        }
        const course = await createDraftCourse(tx, body);
        return { statusCode: 201, body: { success: true, message: 'Course created as a draft', course } };
      };

      const key = request.headers['idempotency-key'];
      if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
        throw new BadRequestError('Idempotency-Key must be 1 to 255 visible ASCII characters');
      }
      const result =
        key === undefined
          ? { ...(await runInCreationTransaction(app.db, create)), replayed: false }
          : await runIdempotent(app.db, { issuer: token.issuer, key, requestHash: hashRequestBody(body), now: app.clock() }, create);
      if (result.replayed) reply.header('idempotency-replayed', 'true');
      else if (result.statusCode === 201) {
        const { course } = result.body as z.infer<typeof CreateCourseResponse>;
        request.log.info({ courseId: course.id, issuer: token.issuer }, 'course created by partner');
      }
      return reply.code(result.statusCode as 201).send(result.body as z.infer<typeof CreateCourseResponse>);
    },
  );
};

export default courseCreationRoutes;
