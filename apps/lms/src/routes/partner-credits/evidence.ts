import { ErrorResponse, PARTNER_CREDITS_LIMIT_DEFAULT, PartnerCreditsQuery, PartnerEvidenceResponse } from '@lms/contracts';
import { inTransaction } from '@lms/db';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { partnerMemberEvidence } from '../../domain/evidence/partner-evidence.js';
import { UnauthorizedError } from '../../errors.js';
import { spendPartnerToken } from '../keyed-request.js';

export const PARTNER_EVIDENCE_DESCRIPTION =
  "A partner's backend, through the gateway, with `Authorization: Bearer <JWT>` (a course-creation token, a fresh " +
  '`jti` each call, as for `GET /api/partner/credits`). Lists the credit evidence of the members holding an identity ' +
  'of THIS partner only, named by the membershipId the partner knows them by, ordered by it, `limit` members a page ' +
  '(at most 100): per course they are enrolled in, the active minutes the LMS measured, attendance (null until live ' +
  'sessions exist), the pre-test and best post-test scores, whether the evaluation form was filled in, the ' +
  'certificate in force and its credit per scheme with the accreditation reference. `membershipId` selects one ' +
  "member; not one of this partner's: an empty page. A call that skips the gateway is a 403.";

/** GET /api/partner/evidence: a partner reads its own members' credit evidence (bearer JWT via the gateway). */
const partnerEvidenceRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/partner/evidence',
    {
      config: { auth: { accepts: ['partner-token'] } },
      schema: {
        tags: ['partners'],
        operationId: 'listPartnerEvidence',
        summary: "A partner's members' credit evidence, paged",
        description: PARTNER_EVIDENCE_DESCRIPTION,
        security: [{ partnerBearer: [] }],
        headers: z.object({
          authorization: z.string().optional().meta({ description: "Bearer <the partner's course-creation JWT>" }),
        }),
        querystring: PartnerCreditsQuery,
        response: {
          200: PartnerEvidenceResponse,
          400: ErrorResponse.describe('A page, limit or membershipId out of its bounds'),
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
      const limit = request.query.limit ?? PARTNER_CREDITS_LIMIT_DEFAULT;
      const result = await inTransaction(app.db, async (tx) => {
        await spendPartnerToken(tx, token);
        return partnerMemberEvidence(tx, token.issuer, { page, limit, membershipId: request.query.membershipId });
      });
      return {
        success: true as const,
        members: result.members,
        pagination: { page, limit, total: result.total, totalPages: Math.ceil(result.total / limit) },
      };
    },
  );
};

export default partnerEvidenceRoutes;
