import { ErrorResponse } from '@lms/contracts';

/**
 * The errors every partner read the gateway forwards can answer (GET /api/partner/credits,
 * /api/partner/evidence, /api/partner/teachers), beside each route's own 400: what the gateway
 * refuses itself (no token, an unknown issuer, a caller IP not allowed) and what it relays.
 */
export const PARTNER_READ_ERRORS = {
  401: ErrorResponse.meta({
    description:
      'No `Authorization`, not a JWT, no `iss`, `unknown issuer: <iss>`, or the LMS refused the token (signature, ' +
      'claims, expiry, a replayed `jti`, a sign-in token)',
  }),
  403: ErrorResponse.meta({ description: '`IP <ip> is not whitelisted for issuer <iss>`' }),
  502: ErrorResponse.meta({ description: "The partner's LMS could not be reached" }),
  503: ErrorResponse.meta({
    description: "Not configured on this gateway (no GATEWAY_SECRET), or the LMS's own 503 relayed with its `Retry-After`",
  }),
  504: ErrorResponse.meta({ description: "The partner's LMS did not answer in time" }),
};
