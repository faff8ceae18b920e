import { ErrorResponse } from '@lms/contracts';
import { institutions } from '@lms/db';
import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  buildStatusListCredential,
  credentialKeyId,
  institutionProfileId,
  issuerId,
  issuerProfile,
  THUMBPRINT_URN,
} from '../../domain/credentials/credential.js';
import { issuerPublicKeys } from '../../domain/credentials/keys.js';
import { parseListNumber } from '../../domain/credentials/status-list.js';
import { NotFoundError } from '../../errors.js';

/** How long a status list may be cached (seconds): a revocation shows to verifiers within this time. */
export const STATUS_LIST_MAX_AGE_SECONDS = 60;

const Profile = z.object({ id: z.string(), type: z.array(z.string()), name: z.string(), url: z.string().optional() });

/**
 * What third parties fetch to check our Open Badges 3.0 credentials (README, "Verifiable
 * credentials"): the issuer's profile, the institutions' profiles (an achievement's creator) and the
 * Bitstring Status Lists. Public, JSON errors (404 for anything unknown, never a 5xx for bad input).
 */
const credentialRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/credentials/issuer',
    {
      config: { public: true },
      schema: {
        tags: ['credentials'],
        operationId: 'getCredentialIssuer',
        summary: "The credential issuer's Open Badges 3.0 Profile (its id is this URL)",
        response: { 200: Profile },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return issuerProfile(app.credentialIssuer.settings);
    },
  );

  app.get(
    '/credentials/institutions/:id',
    {
      config: { public: true },
      schema: {
        tags: ['credentials'],
        operationId: 'getInstitutionProfile',
        summary: "An institution's Open Badges 3.0 Profile (the creator of its courses' achievements)",
        params: z.object({ id: z.string() }),
        response: { 200: Profile, 404: ErrorResponse },
      },
    },
    async (request, reply) => {
      const id = /^[1-9][0-9]{0,9}$/.test(request.params.id) ? Number(request.params.id) : null;
      const [row] =
        id !== null && id <= 2_147_483_647
          ? await app.db.select({ name: institutions.name }).from(institutions).where(eq(institutions.id, id))
          : [];
      if (!row || id === null) throw new NotFoundError('Institution not found');
      reply.header('cache-control', 'public, max-age=300');
      return { id: institutionProfileId(app.config.PUBLIC_URL, id), type: ['Profile'], name: row.name };
    },
  );

  app.get(
    '/credentials/keys/:kid',
    {
      config: { public: true },
      schema: {
        tags: ['credentials'],
        operationId: 'getCredentialKey',
        summary: 'A credential key, at its kid (a JWK)',
        description:
          "The URL a credential's `kid` names (`/credentials/keys/urn:ietf:params:oauth:jwk-thumbprint:sha-256:<thumbprint>`, " +
          'OB 3.0 section 8.2: a URI that dereferences to the JWK): the public key, `application/jwk+json`, with `kid` = this ' +
          'URL and `iss` = the issuer. The same key is in `/.well-known/jwks.json`. Unknown or malformed: 404.',
        params: z.object({ kid: z.string() }),
        response: { 200: z.record(z.string(), z.unknown()), 404: ErrorResponse },
      },
    },
    async (request, reply) => {
      const { kid } = request.params;
      const thumbprint = kid.startsWith(THUMBPRINT_URN) ? kid.slice(THUMBPRINT_URN.length) : '';
      const jwk = /^[A-Za-z0-9_-]{43}$/.test(thumbprint) ? (await issuerPublicKeys(app.db)).find((k) => k.kid === thumbprint) : undefined;
      if (!jwk) throw new NotFoundError('Key not found');
      const publicUrl = app.config.PUBLIC_URL;
      reply.type('application/jwk+json').header('cache-control', 'public, max-age=300');
      return { ...jwk, kid: credentialKeyId(publicUrl, thumbprint), iss: issuerId(publicUrl) };
    },
  );

  app.get(
    '/credentials/status/:n',
    {
      config: { public: true },
      schema: {
        tags: ['credentials'],
        operationId: 'getStatusList',
        summary: 'A Bitstring Status List (revocation) as a VC-JWT',
        description:
          'W3C Bitstring Status List v1.0: a BitstringStatusListCredential signed with the issuer key (compact JWS, `typ` vc+jwt, ' +
          '`application/vc+jwt`) of 131,072 bits, 1 = revoked. A credential names its list and index (`credentialStatus`); ' +
          'new certificates get a random index, so the bits say nothing of how many certificates exist. ' +
          `Cached for at most ${STATUS_LIST_MAX_AGE_SECONDS} s. An unknown or malformed list number: 404.`,
        params: z.object({ n: z.string() }),
        response: { 200: z.string(), 404: ErrorResponse },
      },
    },
    async (request, reply) => {
      const n = parseListNumber(request.params.n);
      if (n === null) throw new NotFoundError('Status list not found');
      const key = await app.credentialIssuer.key();
      const jwt = await buildStatusListCredential(app.db, n, app.credentialIssuer.settings, key, app.clock());
      if (jwt === null) throw new NotFoundError('Status list not found');
      return reply.type('application/vc+jwt').header('cache-control', `public, max-age=${STATUS_LIST_MAX_AGE_SECONDS}`).send(jwt);
    },
  );
};

export default credentialRoutes;
