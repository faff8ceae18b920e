import { CertificateListResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { listCertificates } from '../../domain/learning/certificates.js';
import { ErrorResponse } from '@lms/contracts';
import { sessionOnly } from './session-only.js';
import { commonErrors, sessionLearner } from './learner.js';

/** The caller's certificates. */
const certificateRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/learning/certificates',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: ['Learning'],
        summary: "The caller's certificates, newest first",
        description:
          'For any signed-in person (session cookie); an API key gets 403, no credentials 401. Each has a ' +
          'verification code that anyone can check at `/certificates/{code}` (a public page).',
        security: [{ session: [] }],
        response: { 200: CertificateListResponse, 403: ErrorResponse.describe('An API key'), ...commonErrors },
      },
    },
    async (request) => {
      const list = await listCertificates(app.db, sessionLearner(request));
      const base = app.config.PUBLIC_URL.replace(/\/$/, '');
      return {
        success: true as const,
        certificates: list.map((c) => ({
          code: c.code,
          courseId: c.courseId,
          courseName: c.courseName,
          kum: c.kum,
          issuedAt: c.issuedAt.toISOString(),
          verificationUrl: `${base}/certificates/${c.code}`,
        })),
      };
    },
  );
};

export default certificateRoutes;
