import { PartnerCreditsResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { partnerMemberCredits } from '../../domain/learning/credits.js';
import { partnerReadSchema, spendPartnerRead } from './read.js';
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
      schema: partnerReadSchema({
        operationId: 'listPartnerCredits',
        summary: "A partner's members' credit records, paged",
        description: PARTNER_CREDITS_DESCRIPTION,
        ok: PartnerCreditsResponse,
      }),
    },
    async (request) => {
      const zone = app.config.PAGES_TIME_ZONE;
      const { result, pagination } = await spendPartnerRead(app.db, request, (tx, issuer, page) =>
        partnerMemberCredits(tx, issuer, page, app.clock(), zone),
      );
      return {
        success: true as const,
        timeZone: zone,
        members: result.members.map((m) => ({
          membershipId: m.membershipId,
          name: m.name,
          records: m.records.map(recordJson),
          yearTotals: m.yearTotals,
        })),
        pagination: pagination(result.total),
      };
    },
  );
};

export default partnerCreditRoutes;
