import { z } from 'zod';
import { GatewayErrorResponse } from './errors.js';

/** `GET {gateway_url}/sso/verify?token=<JWT>`: the query. */
export const SsoVerifyQuery = z.object({
  token: z
    .string()
    .optional()
    .meta({
      description:
        'The partner-signed SSO JWT in compact form (at most 8192 characters). The gateway reads only its `iss`; ' +
        'the LMS verifies the signature and the other claims.',
    }),
});
export type SsoVerifyQuery = z.infer<typeof SsoVerifyQuery>;

/**
 * The 302 of `/sso/verify`: no body, a `Location` pointing at the partner's LMS. The headers are
 * OpenAPI response headers (read by @fastify/swagger from the schema's `headers`).
 */
export const SsoVerifyRedirect = z.null().meta({
  description:
    'The issuer is registered and the caller IP is in its allowlist: redirect to the LMS. The partner backend must not ' +
    "follow it; it sends this `Location` to the user's browser in its own 302.",
  headers: {
    Location: {
      type: 'string',
      format: 'uri',
      description:
        "`{lmsUrl}/sso/verify?token=<url-encoded token>&proof=<gateway proof>`, lmsUrl being the partner's registered " +
        'LMS host. The proof (`<exp>.<HMAC>`, valid 120 s, bound to this token) shows the LMS that the token came ' +
        'through the gateway; the LMS refuses a sign-in without it. Nothing for the partner to do but forward the URL as is.',
    },
    'Cache-Control': { type: 'string', const: 'no-store', description: 'Never cached: the URL carries a token' },
  },
});

const gatewayError = (description: string) => ({
  description,
  content: { 'application/json': { schema: GatewayErrorResponse } },
});

/** Every answer of `/sso/verify`, by status, with the exact error texts of the spec's gateway table. */
export const SsoVerifyResponses = {
  302: SsoVerifyRedirect,
  400: gatewayError(
    '`token is required` (no or empty `token`), `invalid token format` (not three base64url segments with JSON ' +
      'header and payload, or over 8192 characters), `missing issuer (iss) claim` (no `iss`, or not a non-empty string)',
  ),
  401: gatewayError('`unknown issuer: <iss>`: no partner is registered with this issuer'),
  403: gatewayError(
    '`IP <ip> is not whitelisted for issuer <iss>`: the caller (the TCP peer, or the client named by a trusted proxy) ' +
      "is not in the partner's allowlist. An IPv4-mapped IPv6 caller is shown and matched as IPv4.",
  ),
  503: gatewayError('`SSO is not configured on this gateway (GATEWAY_SECRET is not set)`: the gateway cannot prove the sign-in to the LMS'),
} as const;
