import { CreateCourseBody, CreateCourseResponse, ErrorResponse, ValidationErrorResponse } from '@lms/contracts';
import { UNVERIFIED_TOKEN_ERRORS } from '@lms/partner-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { decidePartnerAccess } from '../../domain/partner-access.js';
import { GatewayError } from '../../plugins/error-handler.js';
import { type AccessRoute, accessDecision } from '../../plugins/metrics.js';
import { fromTheLms, requestUpstream, type UpstreamAnswer, UpstreamTimeout } from '../../upstream.js';

/** Response headers of the LMS that the partner should see. */
const PASSED_BACK_HEADERS = ['content-type', 'idempotency-replayed', 'retry-after', 'etag', 'ratelimit-policy', 'ratelimit'];

/**
 * The onRequest check of a partner call: a bearer token whose issuer is known and whose caller IP
 * is allowed, exactly as for SSO; the LMS it is for is kept on the request. Judged before the
 * body is read. Every credential problem is a 401 (with the gateway table's texts); only the
 * caller IP is a 403.
 */
export function admitPartner(app: FastifyInstance, route: AccessRoute) {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    const token = header?.match(/^Bearer +(\S+)$/i)?.[1];
    if (!token) {
      app.gatewayMetrics.partnerAccess(route, 'bad_token');
      throw new GatewayError(401, header ? UNVERIFIED_TOKEN_ERRORS.invalid_format : UNVERIFIED_TOKEN_ERRORS.missing_token);
    }
    const access = decidePartnerAccess(app.partners, token, request.ip);
    app.gatewayMetrics.partnerAccess(route, accessDecision(access));
    if (!access.ok) throw new GatewayError(access.statusCode === 403 ? 403 : 401, access.error);
    request.partnerLmsUrl = access.partner.lmsUrl;
  };
}

/**
 * Forwards an admitted partner call to its LMS, same method, path and query, the client's own
 * body text, with the gateway's credential; relays the LMS's answer (JSON only) and the headers
 * the partner should see. 502 when the LMS cannot be reached or answers without JSON (a balancer's
 * own 502/503 page is "could not be reached"), 504 after UPSTREAM_TIMEOUT_MS (or a balancer's own
 * 504), 503 when this gateway has no GATEWAY_SECRET. The LMS is LMS_UPSTREAM_URL when set (the LMS
 * as this gateway reaches it, a balancer), else the partner's public lmsUrl.
 */
export function forwardToLms(app: FastifyInstance, what: string) {
  const { GATEWAY_SECRET, UPSTREAM_TIMEOUT_MS, LMS_UPSTREAM_URL } = app.gatewayConfig;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!GATEWAY_SECRET) throw new GatewayError(503, `${what} is not configured on this gateway`);
    const headers: Record<string, string> = {
      // biome-ignore lint/style/noNonNullAssertion: admitPartner refused requests without an Authorization header.
      authorization: request.headers.authorization!,
      'x-gateway-secret': GATEWAY_SECRET,
      'x-request-id': request.id,
      'x-forwarded-for': request.ip,
    };
    if (request.rawJsonBody !== undefined) headers['content-type'] = 'application/json';
    const idempotencyKey = request.headers['idempotency-key'];
    if (typeof idempotencyKey === 'string') headers['idempotency-key'] = idempotencyKey;
    // The authoring writes' version check (the LMS judges it).
    const ifMatch = request.headers['if-match'];
    if (typeof ifMatch === 'string') headers['if-match'] = ifMatch;

    const lms = LMS_UPSTREAM_URL ?? request.partnerLmsUrl;
    let upstream: UpstreamAnswer;
    try {
      upstream = await app.gatewayMetrics.timeUpstream(
        requestUpstream(`${lms}${request.url}`, {
          method: request.method,
          headers,
          // The client's own text: the parsed body was only validated, never re-serialized.
          body: request.rawJsonBody,
          timeoutMs: UPSTREAM_TIMEOUT_MS,
        }).then(fromTheLms),
      );
    } catch (err) {
      const timedOut = err instanceof UpstreamTimeout;
      request.log.warn({ err, lms }, timedOut ? 'LMS timed out' : 'LMS unreachable');
      if (timedOut) {
        throw new GatewayError(
          504,
          err.byProxy ? 'The LMS did not answer in time' : `The LMS did not answer within ${UPSTREAM_TIMEOUT_MS} ms`,
        );
      }
      throw new GatewayError(502, 'The LMS could not be reached');
    }

    // Relayed as is: the LMS's answer is already in the documented shapes. Only JSON is relayed.
    try {
      JSON.parse(upstream.body);
    } catch {
      request.log.warn({ status: upstream.status, lms }, 'LMS answered without JSON');
      throw new GatewayError(502, 'The LMS gave an invalid answer');
    }
    for (const name of PASSED_BACK_HEADERS) {
      const value = upstream.headers[name];
      if (typeof value === 'string' && value) reply.header(name, value);
    }
    if (!reply.hasHeader('content-type')) reply.type('application/json; charset=utf-8');
    // A JSON string with a JSON content type is sent by Fastify as is (not serialized again).
    return reply.code(upstream.status).send(upstream.body as never);
  };
}

/** The LMS validates what is forwarded (with the field details): the gateway passes any JSON through rather than judge it twice. */
export const passThrough = () => (value: unknown) => ({ value });

/**
 * `POST /api/courses` with `Authorization: Bearer <partner JWT>`: checked here exactly like SSO
 * (issuer known, caller IP allowed), then forwarded to that partner's LMS with the gateway's own
 * credential. The LMS verifies the token's signature and claims and validates the body.
 */
const courseRoutes: FastifyPluginAsyncZod = async (app) => {
  const { UPSTREAM_TIMEOUT_MS } = app.gatewayConfig;

  app.post(
    '/api/courses',
    {
      config: { errorShape: 'api' },
      onRequest: admitPartner(app, 'course_creation'),
      validatorCompiler: passThrough,
      schema: {
        tags: ['courses'],
        operationId: 'createCourse',
        summary: "Create a course (draft) on the partner's LMS",
        description:
          "Called by a partner's backend with `Authorization: Bearer <JWT>`, a course-creation token signed with the " +
          "partner's SSO key: header `alg` RS256, `typ` JWT, `kid` of one of the partner's keys; claims `iss` (the " +
          "registered partner domain), `aud` exactly `terang.ai`, `sub` (the partner's name for the calling system, 1–100 " +
          'characters; not a member tier), `iat`, `exp` at most 300 s after `iat`, and a `jti` (at most 64 characters) ' +
          'never used before. It must not carry `email` or `membershipId`: a sign-in (SSO) token is refused here (401), ' +
          'as this token is refused at sign-in. The gateway checks the issuer and the caller IP, then forwards to the ' +
          'LMS, which verifies the token and creates the course as a draft. The partner may create courses only for the ' +
          'institutions the operator bound to it (`lms-admin partner bind`), and only for active teachers of that ' +
          'institution: anything else is 403 naming the institution. Optional `Idempotency-Key` header (1–255 ' +
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
            description: 'Bad JSON, or a body that breaks the contract (with `details` naming the fields)',
          }),
          401: ErrorResponse.meta({
            description:
              'No `Authorization` (`token is required`), not `Bearer <token>` or not a JWT (`invalid token format`), no ' +
              '`iss` (`missing issuer (iss) claim`), `unknown issuer: <iss>`, or the LMS refused the token (signature, ' +
              'claims, expiry, a replayed `jti`, a sign-in token), with its reason',
          }),
          403: ErrorResponse.meta({
            description:
              '`IP <ip> is not whitelisted for issuer <iss>`; or, from the LMS, an institution not bound to the partner or ' +
              'a `teacherId` that is not an active teacher of it (the message names the institution)',
          }),
          413: ErrorResponse.meta({ description: 'Body over the size limit' }),
          415: ErrorResponse.meta({ description: 'Body is not application/json' }),
          409: ErrorResponse.meta({ description: 'A request with the same Idempotency-Key is still being processed' }),
          422: ErrorResponse.meta({ description: 'An Idempotency-Key reused with another body' }),
          429: ErrorResponse.meta({
            description: "The LMS's answer: the partner is over its authoring budget per minute (with `Retry-After` and `RateLimit`)",
          }),
          502: ErrorResponse.meta({
            description:
              "The partner's LMS could not be reached (`The LMS could not be reached`: refused, reset, or a load balancer's own 502/503 page), or answered without JSON",
          }),
          503: ErrorResponse.meta({
            description:
              "Course creation is not configured on this gateway (no GATEWAY_SECRET), or the LMS's own 503 relayed with its `Retry-After` (its database is unavailable)",
          }),
          504: ErrorResponse.meta({
            description: "The partner's LMS did not answer in time (UPSTREAM_TIMEOUT_MS, or a load balancer's own 504)",
          }),
        },
      },
    },
    forwardToLms(app, 'Course creation'),
  );
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The LMS of the partner the caller acts for (set once the caller is admitted). */
    partnerLmsUrl?: string;
  }
}

export default courseRoutes;
