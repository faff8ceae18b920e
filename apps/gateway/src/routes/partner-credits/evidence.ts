import { ErrorResponse, PartnerCreditsQuery, PartnerEvidenceResponse } from '@lms/contracts';
import { PARTNER_READ_ERRORS } from '../partner-read-errors.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { admitPartner, forwardToLms, passThrough } from '../courses/index.js';

/**
 * `GET /api/partner/evidence`: a partner reads its own members' credit evidence (minutes, scores,
 * evaluation, certificate, credit with its accreditation). Checked here as the credit read is (a
 * bearer token, its issuer known, the caller IP allowed), then forwarded to the partner's LMS,
 * which verifies the token, spends its `jti` and answers with that partner's members only.
 */
const partnerEvidenceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { UPSTREAM_TIMEOUT_MS } = app.gatewayConfig;
  app.get(
    '/api/partner/evidence',
    {
      config: { errorShape: 'api' },
      onRequest: admitPartner(app, 'partner_evidence'),
      validatorCompiler: passThrough,
      schema: {
        tags: ['partners'],
        operationId: 'listPartnerEvidence',
        summary: "Your members' credit evidence (minutes, scores, evaluation, accreditation), paged",
        description:
          "Called by a partner's backend with `Authorization: Bearer <JWT>`, a course-creation token (a fresh `jti` each " +
          'call, as for `GET /api/partner/credits`). Lists, for the members holding an identity of this partner and no one ' +
          'else, named by the membershipId the partner knows them by and ordered by it, every course they are enrolled in ' +
          'with the minutes measured, the pre/post-test scores, the evaluation, the certificate in force and its credit ' +
          'per scheme with the accreditation reference. `membershipId` selects one member (not one of yours: an empty page). ' +
          `The gateway checks the issuer and the caller IP and forwards to the LMS, which must answer within ${UPSTREAM_TIMEOUT_MS} ms (504 otherwise).`,
        headers: z.object({ authorization: z.string().optional().meta({ description: 'Bearer <partner-signed JWT>' }) }),
        querystring: PartnerCreditsQuery,
        response: {
          200: PartnerEvidenceResponse,
          400: ErrorResponse.meta({ description: '`page` (1-100000), `limit` (1-100) or `membershipId` out of bounds, from the LMS' }),
          ...PARTNER_READ_ERRORS,
        },
      },
    },
    forwardToLms(app, 'Partner evidence reading'),
  );
};

export default partnerEvidenceRoutes;
