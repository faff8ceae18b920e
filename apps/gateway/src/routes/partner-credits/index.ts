import { ErrorResponse, PartnerCreditsQuery, PartnerCreditsResponse } from '@lms/contracts';
import { PARTNER_READ_ERRORS } from '../partner-read-errors.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { admitPartner, forwardToLms, passThrough } from '../courses/index.js';

/**
 * `GET /api/partner/credits`: a partner reads its own members' credit records. Checked here as
 * course creation and authoring are (a bearer token, its issuer known, the caller IP allowed),
 * then forwarded to the partner's LMS, which verifies the token, spends its `jti` and answers
 * with the members holding an identity of that partner only.
 */
const partnerCreditRoutes: FastifyPluginAsyncZod = async (app) => {
  const { UPSTREAM_TIMEOUT_MS } = app.gatewayConfig;
  app.get(
    '/api/partner/credits',
    {
      config: { errorShape: 'api' },
      onRequest: admitPartner(app, 'partner_credits'),
      validatorCompiler: passThrough,
      schema: {
        tags: ['partners'],
        operationId: 'listPartnerCredits',
        summary: "Your members' credit records (KUM/SKP), paged",
        description:
          "Called by a partner's backend with `Authorization: Bearer <JWT>`, a course-creation token (as for " +
          '`POST /api/courses`: a fresh `jti` each call, no `email` nor `membershipId`). Lists the credit records of the ' +
          'members holding an identity of this partner (the accounts its sign-in tokens reach) and no one else, each ' +
          'named by the membershipId the partner knows them by, ordered by it (stable across pages), with their counted ' +
          "totals per scheme per calendar year (the LMS's time zone). `membershipId` selects one member (not one of " +
          'yours: an empty page). A revoked certificate voids its record (listed with `voided: true`, never counted); totals count accredited credit only (each record names its `accreditation`). ' +
          'The gateway checks the issuer and the caller IP and forwards to the LMS, which must answer within ' +
          `${UPSTREAM_TIMEOUT_MS} ms (504 otherwise).`,
        headers: z.object({ authorization: z.string().optional().meta({ description: 'Bearer <partner-signed JWT>' }) }),
        querystring: PartnerCreditsQuery,
        response: {
          200: PartnerCreditsResponse,
          400: ErrorResponse.meta({ description: '`page` (1-100000), `limit` (1-100) or `membershipId` out of bounds, from the LMS' }),
          ...PARTNER_READ_ERRORS,
        },
      },
    },
    forwardToLms(app, 'Partner credit reading'),
  );
};

export default partnerCreditRoutes;
