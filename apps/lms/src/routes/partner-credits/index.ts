import { ErrorResponse, PARTNER_CREDITS_LIMIT_DEFAULT, PartnerCreditsQuery, PartnerCreditsResponse } from '@lms/contracts';
import { inTransaction } from '@lms/db';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { partnerMemberCredits } from '../../domain/learning/credits.js';
import { UnauthorizedError } from '../../errors.js';
import { spendPartnerToken } from '../keyed-request.js';
import { recordJson } from '../learning/credits.js';

export const PARTNER_CREDITS_DESCRIPTION =
  "A partner's backend, through the gateway, with `Authorization: Bearer <JWT>`: a course-creation token (as for " +
  '`POST /api/courses`: signed with its SSO key, a fresh `jti` each call, no `email` nor `membershipId`; a replayed ' +
  '`jti` is a 401). Lists the credit records of the members holding an identity of THIS partner only (the accounts ' +
  'its sign-in tokens reach), each named by the membershipId the partner knows them by, ordered by it (stable ' +
  'across pages), `limit` members a page (at most 100), with their counted totals per scheme per calendar year ' +
  "(the deployment's time zone). `membershipId` selects one member; a membershipId that is not one of this " +
  "partner's members gives an empty page. Voided records (revoked certificates) are listed with `voided: true` and " +
  'never counted. A call that skips the gateway is a 403; an API key or a session is not a partner.';

/** GET /api/partner/credits: a partner reads its own members' credit records (bearer JWT via the gateway). */
const partnerCreditRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/partner/credits',
    {
      config: { auth: { accepts: ['partner-token'] } },
      schema: {
        tags: ['partners'],
        operationId: 'listPartnerCredits',
        summary: "A partner's members' credit records, paged",
        description: PARTNER_CREDITS_DESCRIPTION,
        security: [{ partnerBearer: [] }],
        headers: z.object({
          authorization: z.string().optional().meta({ description: "Bearer <the partner's course-creation JWT>" }),
        }),
        querystring: PartnerCreditsQuery,
        response: {
          200: PartnerCreditsResponse,
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
      const zone = app.config.PAGES_TIME_ZONE;
      // The token is spent with the read: a token works once, as for authoring.
      const result = await inTransaction(app.db, async (tx) => {
        await spendPartnerToken(tx, token);
        return partnerMemberCredits(tx, token.issuer, { page, limit, membershipId: request.query.membershipId }, app.clock(), zone);
      });
      return {
        success: true as const,
        timeZone: zone,
        members: result.members.map((m) => ({
          membershipId: m.membershipId,
          name: m.name,
          records: m.records.map(recordJson),
          yearTotals: m.yearTotals,
        })),
        pagination: { page, limit, total: result.total, totalPages: Math.ceil(result.total / limit) },
      };
    },
  );
};

export default partnerCreditRoutes;
