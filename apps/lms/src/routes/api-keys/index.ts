import {
  API_KEY_SHOWN_ONCE_WARNING,
  ApiKeyIdParams,
  ApiKeyListResponse,
  type ApiKeySummary as ApiKeySummaryBody,
  CreateApiKeyBody,
  CreatedApiKeyResponse,
  ErrorResponse,
  RevokedApiKeyResponse,
} from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type ApiKeySummary, createApiKey, listApiKeys, revokeApiKey } from '../../domain/api-keys.js';
import { ForbiddenError, NotFoundError } from '../../errors.js';

const WHO =
  'For teachers signed in with a session (the `Kunci API` section of the dashboard). Admins and ' +
  'students get 403; so does a call made with an API key (a key cannot mint or revoke keys). ' +
  'Without credentials: 401.';
const CSRF =
  ' Being cookie-authenticated and state-changing, the request must carry the `x-requested-with` ' +
  "header (any value) and, if it sends `Origin`, come from this service's own origin; otherwise 403.";
const errors = {
  401: ErrorResponse,
  403: ErrorResponse,
  429: ErrorResponse.describe('Too many failed credentials from the client IP (see the introduction), with Retry-After.'),
};

/** The caller must be a teacher with a session; the route config already required the teacher role. */
function sessionTeacher(request: FastifyRequest): string {
  // biome-ignore lint/style/noNonNullAssertion: the route requires authentication, which sets caller.
  const caller = request.caller!;
  if (caller.kind !== 'session') throw new ForbiddenError('API keys are managed from a signed-in session, not with an API key');
  return caller.userId;
}

function toBody(key: ApiKeySummary): ApiKeySummaryBody {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

/** A teacher's API keys ("Kunci API"): list, create (shown once), revoke. */
const apiKeyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/api-keys',
    {
      config: { auth: ['teacher'] },
      schema: {
        tags: ['API keys'],
        operationId: 'listApiKeys',
        summary: "List the caller's API keys, newest first, revoked ones included",
        description: WHO,
        security: [{ session: [] }],
        response: { 200: ApiKeyListResponse, ...errors },
      },
    },
    async (request) => {
      const keys = await listApiKeys(app.db, sessionTeacher(request));
      return { success: true as const, apiKeys: keys.map(toBody) };
    },
  );

  app.post(
    '/api/api-keys',
    {
      config: { auth: ['teacher'] },
      schema: {
        tags: ['API keys'],
        operationId: 'createApiKey',
        summary: 'Create an API key; the key is in this response only',
        description: `${WHO}${CSRF} Only a SHA-256 hash of the key is stored.`,
        security: [{ session: [] }],
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKeyResponse, 400: ErrorResponse, ...errors },
      },
    },
    async (request, reply) => {
      const created = await createApiKey(app.db, sessionTeacher(request), request.body.name);
      return reply.code(201).send({
        success: true as const,
        apiKey: { ...toBody(created), key: created.key },
        warning: API_KEY_SHOWN_ONCE_WARNING,
      });
    },
  );

  app.delete(
    '/api/api-keys/:id',
    {
      config: { auth: ['teacher'] },
      schema: {
        tags: ['API keys'],
        operationId: 'revokeApiKey',
        summary: 'Revoke one of your API keys',
        description:
          `${WHO}${CSRF} 404 when the key is not yours, does not exist or is already revoked. ` +
          'The key stops working at once on the instance that answers, and within the API-key ' +
          'cache lifetime (5 seconds) on every other instance.',
        security: [{ session: [] }],
        params: ApiKeyIdParams,
        response: { 200: RevokedApiKeyResponse, 400: ErrorResponse, 404: ErrorResponse, ...errors },
      },
    },
    async (request) => {
      const revoked = await revokeApiKey(app.db, sessionTeacher(request), request.params.id, app.clock());
      if (!revoked) throw new NotFoundError('API key not found');
      app.forgetApiKey(revoked.keyHash);
      return { success: true as const, apiKey: toBody(revoked) };
    },
  );
};

export default apiKeyRoutes;
