import { ErrorResponse, PartnerTeachersQuery, PartnerTeachersResponse } from '@lms/contracts';
import { PARTNER_READ_ERRORS } from '../partner-read-errors.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { admitPartner, forwardToLms, passThrough } from '../courses/index.js';

/**
 * `GET /api/partner/teachers`: a partner reads the institutions bound to it and their active
 * teachers, the `institutionId` and `teacherId` course creation takes. Checked here as course
 * creation is (a bearer token, its issuer known, the caller IP allowed), then forwarded to the
 * partner's LMS, which verifies the token, spends its `jti` and answers for that partner only.
 */
const partnerTeacherRoutes: FastifyPluginAsyncZod = async (app) => {
  const { UPSTREAM_TIMEOUT_MS } = app.gatewayConfig;
  app.get(
    '/api/partner/teachers',
    {
      config: { errorShape: 'api' },
      onRequest: admitPartner(app, 'partner_teachers'),
      validatorCompiler: passThrough,
      schema: {
        tags: ['partners'],
        operationId: 'listPartnerTeachers',
        summary: 'Your institutions and their teachers (the ids course creation needs)',
        description:
          "Called by a partner's backend with `Authorization: Bearer <JWT>`, a course-creation token (as for " +
          '`POST /api/courses`: a fresh `jti` each call, no `email` nor `membershipId`). Lists the institutions the ' +
          'operator bound to this partner and their active teachers (`id`, `name`, `email`, `institutionId`): the ' +
          '`institutionId` and `teacherId` that `POST /api/courses` and a course document accept from this partner, and ' +
          "nothing of another partner's institutions. `institutionId` selects one (not yours: an empty answer); teachers " +
          'are paged (`limit` 1-100, default 50), ordered by institution, name and id. The gateway checks the issuer and ' +
          `the caller IP and forwards to the LMS, which must answer within ${UPSTREAM_TIMEOUT_MS} ms (504 otherwise).`,
        headers: z.object({ authorization: z.string().optional().meta({ description: 'Bearer <partner-signed JWT>' }) }),
        querystring: PartnerTeachersQuery,
        response: {
          200: PartnerTeachersResponse,
          400: ErrorResponse.meta({ description: '`institutionId`, `page` (1-100000) or `limit` (1-100) out of bounds, from the LMS' }),
          ...PARTNER_READ_ERRORS,
        },
      },
    },
    forwardToLms(app, 'Partner teacher listing'),
  );
};

export default partnerTeacherRoutes;
