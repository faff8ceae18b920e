import { CertificateListResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { buildCredential, findCredentialSource, signCredential } from '../../domain/credentials/credential.js';
import { certificateStatus, listCertificates } from '../../domain/learning/certificates.js';
import { NotFoundError } from '../../errors.js';
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
        operationId: 'listMyCertificates',
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
      const now = app.clock();
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
          credentialUrl: `${base}${credentialPath(c.code)}`,
          status: certificateStatus(c, now),
          revokedAt: c.revokedAt?.toISOString() ?? null,
          expiresAt: c.expiresAt?.toISOString() ?? null,
        })),
      };
    },
  );

  app.get(
    '/api/learning/certificates/:code/credential',
    {
      config: { auth: sessionOnly() },
      schema: {
        tags: ['Learning'],
        operationId: 'getCertificateCredential',
        summary: "The caller's certificate as an Open Badges 3.0 credential (VC-JWT)",
        description:
          "The holder only (session cookie): another person's code, an unknown code or a malformed one is 404, an API key " +
          '403, no credentials 401. The answer is the compact JWS of an `OpenBadgeCredential` (W3C VC Data Model 2.0, ' +
          'OB 3.0 context), `text/plain` as OB 3.0 "Document Formats: Web Resource" says, as an attachment ' +
          '`certificate-<code>.jwt`. It is signed with the issuer key published at `/.well-known/jwks.json` (its `kid` is a URL of ' +
          'the key, `/credentials/keys/urn:ietf:params:oauth:jwk-thumbprint:sha-256:<thumbprint>`) and points to ' +
          'the Bitstring Status List at `/credentials/status/{n}`; a revoked certificate still downloads (its status says revoked).',
        security: [{ session: [] }],
        params: z.object({ code: z.string() }),
        response: { 200: z.string(), 403: ErrorResponse.describe('An API key'), 404: ErrorResponse, ...commonErrors },
      },
    },
    async (request, reply) => {
      const { code } = request.params;
      const source = await findCredentialSource(app.db, code, sessionLearner(request));
      if (!source) throw new NotFoundError('Certificate not found');
      const settings = app.credentialIssuer.settings;
      const key = await app.credentialIssuer.key();
      const jwt = await signCredential(buildCredential(source, settings), key, settings, app.clock());
      return reply
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="certificate-${source.code}.jwt"`)
        .send(jwt);
    },
  );
};

/** Where the holder downloads a certificate's credential. */
export const credentialPath = (code: string) => `/api/learning/certificates/${code}/credential`;

export default certificateRoutes;
