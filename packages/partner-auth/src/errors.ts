/**
 * Why a partner token was refused. `code` is the redirect's `error` for SSO (docs/architecture.md,
 * "Sign-in errors"): `invalid_token` for anything wrong with the token itself, `sso_failed` for a
 * valid token that lacks what a sign-in needs (`missing_email`, `missing_membership_id`). `reason`
 * is the text shown to the caller: the spec's wording, or jose's own message where the spec
 * quotes it.
 */
export class PartnerTokenError extends Error {
  override name = 'PartnerTokenError';
  constructor(
    readonly code: 'invalid_token' | 'sso_failed',
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

/** The reason texts (the spec's, and docs/architecture.md, "Sign-in errors"), in one place so tests and pages agree. */
export const Reasons = {
  malformed: 'Failed to base64url decode the payload',
  tooLarge: (maxBytes: number) => `Token exceeds the maximum size of ${maxBytes} bytes.`,
  missingIssuer: 'Missing issuer (iss) claim.',
  unsupportedIssuer: (iss: string) => `Unsupported SSO issuer: ${iss}`,
  noKeyConfigured: (iss: string) => `No public key or JWKS URL configured for SSO issuer: ${iss}.`,
  badSignature: 'signature verification failed',
  expired: '"exp" claim timestamp check failed',
  audience: 'unexpected "aud" claim value',
  lifetime: 'Token lifetime exceeds the allowed 5-minute window.',
  algorithm: '"alg" (Algorithm) Header Parameter value not allowed',
  type: 'unexpected "typ" JWT header value',
  missingKid: 'Missing key id (kid) in the token header.',
  crit: 'The "crit" header parameter is not supported.',
  unknownKid: (kid: string, iss: string) => `No key with kid "${kid}" for SSO issuer: ${iss}.`,
  jwksUnavailable: (iss: string, why: string) => `The JWKS of SSO issuer ${iss} could not be fetched: ${why}.`,
  subject: (allowed: readonly string[]) => `The "sub" claim must be one of: ${allowed.join(', ')}.`,
  missingEmail: 'missing_email',
  missingMembershipId: 'missing_membership_id',
  /** A bearer (course-creation) token's `sub` names the partner's calling system: any non-empty string. */
  bearerSubject: 'The "sub" claim must name the calling system (1 to 100 characters).',
  /** Token kinds (docs/architecture.md, "Token purposes"): a sign-in token is not a course-creation credential. */
  ssoTokenAsBearer:
    'This is a sign-in (SSO) token: it carries "email" or "membershipId". Course creation needs a bearer token without them.',
  /** The callback's refusals, `invalid_token` (docs/architecture.md, "SSO only through the gateway"). */
  notThroughGateway: (detail: string) => `The sign-in did not come through the gateway: ${detail}.`,
  gatewayNotConfigured: 'SSO is refused: GATEWAY_SECRET is not configured on this LMS.',
} as const;
