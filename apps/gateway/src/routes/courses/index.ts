import { CreateCourseBody, CreateCourseResponse, ErrorResponse, ValidationErrorResponse } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { decidePartnerAccess } from '../../domain/partner-access.js';
import { GatewayError } from '../../plugins/error-handler.js';
import { requestUpstream, type UpstreamAnswer, UpstreamTimeout } from '../../upstream.js';

/** Response headers of the LMS that the partner should see. */
const PASSED_BACK_HEADERS = ['content-type', 'idempotency-replayed', 'retry-after'];

/**
 * `POST /api/courses` with `Authorization: Bearer <partner JWT>`: checked here exactly like SSO
 * (issuer known, caller IP allowed), then forwarded to that partner's LMS with the gateway's own
 * credential. The LMS verifies the token's signature and claims and validates the body.
 */
const courseRoutes: FastifyPluginAsyncZod = async (app) => {
  const { GATEWAY_SECRET, UPSTREAM_TIMEOUT_MS } = app.gatewayConfig;

  app.post(
    '/api/courses',
    {
      config: { errorShape: 'api' },
      // The token and the IP are judged before the body is read.
      onRequest: async (request) => {
        const header = request.headers.authorization;
        const token = header?.match(/^Bearer +(\S+)$/i)?.[1];
        if (!header) throw new GatewayError(400, 'token is required');
        if (!token) throw new GatewayError(400, 'invalid token format');
        const access = decidePartnerAccess(app.partners, token, request.ip);
        if (!access.ok) throw new GatewayError(access.statusCode, access.error);
        request.partnerLmsUrl = access.partner.lmsUrl;
      },
      // The body schema documents the endpoint; the LMS is the one that validates it (with the
      // field details), so the gateway passes any JSON through rather than judge it twice.
      validatorCompiler: () => (value: unknown) => ({ value }),
      schema: {
        tags: ['courses'],
        summary: 'Create a course (draft) on the partner\'s LMS',
        description:
          'Called by a partner\'s backend with `Authorization: Bearer <JWT>` signed like an SSO token (RS256, `kid`, ' +
          '`iss`, `aud` terang.ai, `sub`, `iat`, `exp` at most 300 s after `iat`, a fresh `jti`; no `email` or ' +
          '`membershipId` needed). The gateway checks the issuer and the caller IP, then forwards to the LMS, which ' +
          'verifies the token and creates the course as a draft. Optional `Idempotency-Key` header (1–255 ' +
          'characters): the same key and body within 24 h returns the first response. The LMS must answer within ' +
          `${UPSTREAM_TIMEOUT_MS} ms (UPSTREAM_TIMEOUT_MS), otherwise 504.`,
        headers: z.object({
          authorization: z.string().optional().meta({ description: 'Bearer <partner-signed JWT>' }),
          'idempotency-key': z.string().optional(),
        }),
        body: CreateCourseBody,
        response: {
          201: CreateCourseResponse,
          400: ValidationErrorResponse.or(ErrorResponse).meta({
            description: 'Missing or malformed token (`token is required`, `invalid token format`, `missing issuer (iss) claim`), bad JSON, or a body that breaks the contract (with `details`)',
          }),
          401: ErrorResponse.meta({ description: '`unknown issuer: <iss>`, or the LMS refused the token' }),
          403: ErrorResponse.meta({ description: '`IP <ip> is not whitelisted for issuer <iss>`' }),
          413: ErrorResponse.meta({ description: 'Body over the size limit' }),
          415: ErrorResponse.meta({ description: 'Body is not application/json' }),
          409: ErrorResponse.meta({ description: 'A request with the same Idempotency-Key is still being processed' }),
          422: ErrorResponse.meta({ description: 'Unknown teacher or institution, or an Idempotency-Key reused with another body' }),
          502: ErrorResponse.meta({ description: 'The partner\'s LMS could not be reached' }),
          503: ErrorResponse.meta({ description: 'Course creation is not configured on this gateway (no GATEWAY_SECRET)' }),
          504: ErrorResponse.meta({ description: 'The partner\'s LMS did not answer in time' }),
        },
      },
    },
    async (request, reply) => {
      if (!GATEWAY_SECRET) throw new GatewayError(503, 'Course creation is not configured on this gateway');
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        authorization: request.headers.authorization!,
        'x-gateway-secret': GATEWAY_SECRET,
        'x-request-id': request.id,
        'x-forwarded-for': request.ip,
      };
      const idempotencyKey = request.headers['idempotency-key'];
      if (typeof idempotencyKey === 'string') headers['idempotency-key'] = idempotencyKey;

      let upstream: UpstreamAnswer;
      try {
        upstream = await requestUpstream(`${request.partnerLmsUrl}/api/courses`, {
          method: 'POST',
          headers,
          // The client's own text: the parsed body was only validated, never re-serialized.
          body: request.rawJsonBody,
          timeoutMs: UPSTREAM_TIMEOUT_MS,
        });
      } catch (err) {
        const timedOut = err instanceof UpstreamTimeout;
        request.log.warn({ err, lms: request.partnerLmsUrl }, timedOut ? 'LMS timed out' : 'LMS unreachable');
        if (timedOut) throw new GatewayError(504, `The LMS did not answer within ${UPSTREAM_TIMEOUT_MS} ms`);
        throw new GatewayError(502, 'The LMS could not be reached');
      }

      // Relayed as is: the LMS's answer is already in the documented shapes. Only JSON is relayed.
      try {
        JSON.parse(upstream.body);
      } catch {
        request.log.warn({ status: upstream.status, lms: request.partnerLmsUrl }, 'LMS answered without JSON');
        throw new GatewayError(502, 'The LMS gave an invalid answer');
      }
      for (const name of PASSED_BACK_HEADERS) {
        const value = upstream.headers[name];
        if (typeof value === 'string' && value) reply.header(name, value);
      }
      if (!reply.hasHeader('content-type')) reply.type('application/json; charset=utf-8');
      // A JSON string with a JSON content type is sent by Fastify as is (not serialized again).
      return reply.code(upstream.status as 201).send(upstream.body as never);
    },
  );
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The LMS of the partner the caller acts for (set once the caller is admitted). */
    partnerLmsUrl?: string;
  }
}

export default courseRoutes;
