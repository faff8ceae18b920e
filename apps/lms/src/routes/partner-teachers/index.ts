import { ErrorResponse, PARTNER_TEACHERS_LIMIT_DEFAULT, PartnerTeachersQuery, PartnerTeachersResponse } from '@lms/contracts';
import { inTransaction } from '@lms/db';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { partnerTeachers } from '../../domain/authoring/partner-teachers.js';
import { UnauthorizedError } from '../../errors.js';
import { spendPartnerToken } from '../keyed-request.js';

export const PARTNER_TEACHERS_DESCRIPTION =
  "A partner's backend, through the gateway, with `Authorization: Bearer <JWT>`: a course-creation token (as for " +
  '`POST /api/courses`: signed with its SSO key, a fresh `jti` each call, no `email` nor `membershipId`; a replayed ' +
  '`jti` is a 401). What the partner needs before it creates a course: the institutions an operator bound to THIS ' +
  'partner (`lms-admin partner bind`), and their active teachers, with the `id` to send as `teacherId`, their name ' +
  'and e-mail (to match them with your own records); exactly the institutions and teachers course creation accepts ' +
  "from this partner, and nothing of another partner's. `institutionId` selects one institution (one not bound to " +
  'this partner gives an empty answer). Teachers are ordered by institution, name and id (stable across pages), ' +
  '`limit` a page (at most 100). A call that skips the gateway is a 403; an API key or a session is not a partner.';

/** GET /api/partner/teachers: a partner reads the institutions bound to it and their active teachers (bearer JWT via the gateway). */
const partnerTeacherRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/partner/teachers',
    {
      config: { auth: { accepts: ['partner-token'] } },
      schema: {
        tags: ['partners'],
        operationId: 'listPartnerTeachers',
        summary: 'Your institutions and their teachers (the ids course creation needs)',
        description: PARTNER_TEACHERS_DESCRIPTION,
        security: [{ partnerBearer: [] }],
        headers: z.object({
          authorization: z.string().optional().meta({ description: "Bearer <the partner's course-creation JWT>" }),
        }),
        querystring: PartnerTeachersQuery,
        response: {
          200: PartnerTeachersResponse,
          400: ErrorResponse.describe('An institutionId, page or limit out of its bounds'),
          401: ErrorResponse.describe('No token, an invalid or expired one, a sign-in token, or a replayed `jti`'),
          403: ErrorResponse.describe('Not through the gateway (no or a wrong gateway credential)'),
          503: ErrorResponse.describe('Partner calls are not enabled on this LMS (no GATEWAY_SECRET), or the database is unavailable'),
        },
      },
    },
    async (request) => {
      const token = request.partnerToken;
      if (!token) throw new UnauthorizedError('Authorization: Bearer <token> is required');
      const page = request.query.page ?? 1;
      const limit = request.query.limit ?? PARTNER_TEACHERS_LIMIT_DEFAULT;
      // The token is spent with the read: a token works once, as for every partner call.
      const result = await inTransaction(app.db, async (tx) => {
        await spendPartnerToken(tx, token);
        return partnerTeachers(tx, token.issuer, { institutionId: request.query.institutionId, page, limit });
      });
      return {
        success: true as const,
        institutions: result.institutions,
        teachers: result.teachers,
        pagination: { page, limit, total: result.total, totalPages: Math.ceil(result.total / limit) },
      };
    },
  );
};

export default partnerTeacherRoutes;
