import { PartnerEvidenceResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { partnerMemberEvidence } from '../../domain/evidence/partner-evidence.js';
import { partnerReadSchema, spendPartnerRead } from './read.js';

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
      schema: partnerReadSchema({
        operationId: 'listPartnerEvidence',
        summary: "A partner's members' credit evidence, paged",
        description: PARTNER_EVIDENCE_DESCRIPTION,
        ok: PartnerEvidenceResponse,
      }),
    },
    async (request) => {
      const { result, pagination } = await spendPartnerRead(app.db, request, (tx, issuer, page) => partnerMemberEvidence(tx, issuer, page));
      return { success: true as const, members: result.members, pagination: pagination(result.total) };
    },
  );
};

export default partnerEvidenceRoutes;
