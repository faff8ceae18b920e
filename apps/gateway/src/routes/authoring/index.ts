import { AUTHORING_ERRORS, AUTHORING_ROUTES, ErrorResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { admitPartner, forwardToLms, passThrough } from '../courses/index.js';

/**
 * The LMS's authoring routes for partners (AUTHORING_ROUTES in @lms/contracts): the same paths,
 * bodies and answers, each checked here as course creation is (issuer known, caller IP allowed)
 * and forwarded to the partner's LMS, which verifies the token, spends its `jti`, checks the
 * partner's right on the course and keeps the Idempotency-Key.
 */
const authoringRoutes: FastifyPluginAsyncZod = async (app) => {
  const { UPSTREAM_TIMEOUT_MS, AUTHORING_BODY_LIMIT_BYTES } = app.gatewayConfig;
  for (const spec of AUTHORING_ROUTES) {
    const writes = spec.method !== 'GET';
    app.route({
      method: spec.method,
      url: spec.url,
      config: { errorShape: 'api' },
      bodyLimit: writes ? AUTHORING_BODY_LIMIT_BYTES : undefined,
      onRequest: admitPartner(app, 'authoring'),
      validatorCompiler: passThrough,
      schema: {
        tags: ['authoring'],
        operationId: spec.operation,
        summary: spec.summary,
        description:
          "Called by a partner's backend with `Authorization: Bearer <JWT>`, a course-creation token (as for " +
          '`POST /api/courses`: a fresh `jti` each call, no `email` nor `membershipId`), for a course of an institution ' +
          'the operator bound to the partner (another course: 404 for a draft, 403 for a course in the catalog). ' +
          'Optional `Idempotency-Key` (1-255 visible ASCII characters): the same key and request within 24 h returns ' +
          'the first answer (`Idempotency-Replayed: true`). The gateway checks the issuer and the caller IP and ' +
          `forwards to the LMS, which must answer within ${UPSTREAM_TIMEOUT_MS} ms (504 otherwise). ${spec.description}` +
          (writes ? ` Body limit: ${AUTHORING_BODY_LIMIT_BYTES} bytes (AUTHORING_BODY_LIMIT_BYTES; 413 above it).` : ''),
        headers: z.object({
          authorization: z.string().optional().meta({ description: 'Bearer <partner-signed JWT>' }),
          'idempotency-key': z.string().optional(),
          ...(spec.versioned
            ? { 'if-match': z.string().optional().meta({ description: 'The ETag to save over (see the description)' }) }
            : {}),
        }),
        ...(spec.params ? { params: spec.params } : {}),
        ...(spec.querystring ? { querystring: spec.querystring } : {}),
        ...(spec.body ? { body: spec.body } : {}),
        response: {
          [spec.success.status]: spec.success.schema,
          ...AUTHORING_ERRORS,
          ...spec.extra,
          401: ErrorResponse.meta({
            description:
              'No `Authorization` (`token is required`), not a JWT (`invalid token format`), no `iss`, `unknown issuer: <iss>`, ' +
              'or the LMS refused the token (signature, claims, expiry, a replayed `jti`, a sign-in token)',
          }),
          403: ErrorResponse.meta({
            description:
              '`IP <ip> is not whitelisted for issuer <iss>`; or, from the LMS, a course of an institution not bound to the partner',
          }),
          502: ErrorResponse.meta({ description: "The partner's LMS could not be reached" }),
          503: ErrorResponse.meta({
            description: "Not configured on this gateway (no GATEWAY_SECRET), or the LMS's own 503 relayed with its `Retry-After`",
          }),
          504: ErrorResponse.meta({ description: "The partner's LMS did not answer in time" }),
        },
      },
      handler: forwardToLms(app, 'Authoring'),
    });
  }
};

export default authoringRoutes;
