import { SsoVerifyQuery, SsoVerifyResponses } from '@lms/contracts';
import { GATEWAY_PROOF_PARAM, signGatewayProof } from '@lms/partner-auth';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { decidePartnerAccess } from '../../domain/partner-access.js';
import { GatewayError } from '../../plugins/error-handler.js';
import { accessDecision } from '../../plugins/metrics.js';

/**
 * `GET /sso/verify?token=`: the first hop of partner SSO. No signature check here (the LMS does
 * it): read `iss` from the unverified token, find the partner, check that the caller may act for
 * it, and send the browser-to-be to that partner's LMS with the gateway's proof that the token
 * came through here (the LMS signs in with nothing else). The caller is `request.ip`: the TCP
 * peer, or the client named in X-Forwarded-For only when the peer is one of our TRUST_PROXY ranges.
 */
const ssoRoutes: FastifyPluginAsyncZod = async (app) => {
  const { GATEWAY_SECRET } = app.gatewayConfig;

  app.get(
    '/sso/verify',
    {
      config: { errorShape: 'sso' },
      // A repeated or otherwise odd `token` is the spec's "invalid token format", not a generic
      // validation error: the handler sees the raw value and readUnverifiedToken judges it.
      attachValidation: true,
      // The URL and the answer carry a bearer token: no cache may keep either, errors included.
      onRequest: async (_request, reply) => {
        reply.header('cache-control', 'no-store');
      },
      schema: {
        tags: ['sso'],
        operationId: 'verifySsoToken',
        summary: 'Partner SSO entry: check the issuer and the caller IP, redirect to the LMS',
        description:
          "Called by the partner's backend (never the browser: the caller IP is checked) with redirects disabled. " +
          "The token's signature is not checked here; the LMS verifies it after the redirect. The redirect carries, " +
          "next to the token, the gateway's proof that the token came through here (`" +
          GATEWAY_PROOF_PARAM +
          '`: an HMAC ' +
          'bound to the token, valid 120 s): the partner forwards the `Location` as it is. ' +
          'Errors are JSON `{error}` with the exact texts below.',
        querystring: SsoVerifyQuery,
        response: SsoVerifyResponses,
      },
    },
    async (request, reply) => {
      const access = decidePartnerAccess(app.partners, (request.query as Record<string, unknown>).token, request.ip);
      app.gatewayMetrics.partnerAccess('sso_verify', accessDecision(access));
      if (!access.ok) {
        if (access.statusCode === 403) request.log.info({ ip: request.ip }, access.error);
        throw new GatewayError(access.statusCode, access.error);
      }
      // Without the shared secret no proof can be made, and the LMS would refuse the sign-in.
      if (!GATEWAY_SECRET) throw new GatewayError(503, 'SSO is not configured on this gateway (GATEWAY_SECRET is not set)');
      const token = (request.query as Record<string, string>).token;
      const proof = signGatewayProof(GATEWAY_SECRET, token, Math.floor(app.gatewayClock().getTime() / 1000));
      // Written as they are: a token decidePartnerAccess accepted is three base64url segments and
      // two dots (readUnverifiedToken), and a proof is digits, a dot and base64url, none of which
      // a URL escapes. encodeURIComponent would copy the ~700 characters for nothing (1 µs).
      return reply.redirect(`${access.partner.lmsUrl}/sso/verify?token=${token}&${GATEWAY_PROOF_PARAM}=${proof}`, 302);
    },
  );
};

export default ssoRoutes;
