import { createHash, timingSafeEqual } from 'node:crypto';
import { PartnerTokenError, type VerifiedBearerToken, verifyPartnerToken } from '@lms/partner-auth';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError, UnavailableError, UnauthorizedError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified bearer token of the partner calling through the gateway. */
    partnerToken?: VerifiedBearerToken;
  }
}

function sameSecret(given: string, expected: string): boolean {
  // Hash both so the comparison is constant-time whatever the lengths.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * The `partner-token` credential kind (plugins/auth.ts): a partner's bearer JWT forwarded by the
 * gateway. The gateway has already checked the issuer and the caller IP; here the gateway's own
 * credential is checked first, then the bearer JWT (same header and claim rules as SSO, a
 * course-creation token, never a sign-in token). The token's `jti` is spent by the route, in the
 * transaction that uses it.
 */
export async function authenticatePartnerToken(app: FastifyInstance, request: FastifyRequest): Promise<void> {
  const secret = app.config.GATEWAY_SECRET;
  if (!secret) throw new UnavailableError('Course creation is not enabled on this LMS');
  const given = request.headers['x-gateway-secret'];
  if (typeof given !== 'string' || !sameSecret(given, secret)) {
    throw new ForbiddenError('Course creation is accepted only through the gateway');
  }
  const token = request.headers.authorization?.match(/^Bearer +(\S+)$/i)?.[1];
  if (!token) throw new UnauthorizedError('Authorization: Bearer <token> is required');
  try {
    request.partnerToken = await verifyPartnerToken(token, { purpose: 'bearer', registry: app.partnerKeys, now: app.clock });
  } catch (err) {
    if (err instanceof PartnerTokenError) throw new UnauthorizedError(err.reason);
    throw err;
  }
}
