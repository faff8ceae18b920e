import type { SsoErrorCode } from '@lms/contracts';
import { MAX_TOKEN_BYTES, Reasons } from '@lms/partner-auth';

/**
 * The `reason` label of `lms_sso_sign_ins_total`: a bounded name for why a sign-in failed. The
 * texts shown to members carry the issuer, the kid, jose's wording or the JWKS URL's error, any of
 * which an attacker can vary at will; as label values they would make a new time series per
 * request. `sso_failed` reasons are already codes (docs/architecture.md, "Sign-in errors") and are
 * kept when known.
 */
export type InvalidTokenLabel =
  | 'not_through_gateway'
  | 'gateway_not_configured'
  | 'malformed'
  | 'header'
  | 'issuer'
  | 'unknown_key'
  | 'jwks_unavailable'
  | 'signature'
  | 'expired'
  | 'audience'
  | 'lifetime'
  | 'wrong_token_kind'
  | 'claims'
  | 'replayed'
  | 'verification_error'
  | 'other';

export const SSO_FAILED_REASONS = [
  'missing_email',
  'missing_membership_id',
  'member_inactive',
  'email_in_use',
  'account_creation_failed',
  'session_creation_failed',
  'temporarily_unavailable',
] as const;

/** The reason of a replayed `jti` at the callback (routes/sso). */
export const REPLAYED_TOKEN_REASON = 'Token has already been used.';
/** The reason when verification failed for a cause that is not the token's (routes/sso). */
export const UNVERIFIABLE_TOKEN_REASON = 'The token could not be verified.';

/** The fixed text before the value a reason carries: `(v) => Reasons.unknownKid(v, v)` → `No key with kid "`. */
function prefixOf(build: (value: string) => string): string {
  const marker = '\u0000';
  return build(marker).split(marker)[0];
}

/** Exact texts first, then prefixes of the texts that carry a value, then jose's families. */
const EXACT = new Map<string, InvalidTokenLabel>([
  [Reasons.malformed, 'malformed'],
  [Reasons.tooLarge(MAX_TOKEN_BYTES), 'malformed'],
  [Reasons.gatewayNotConfigured, 'gateway_not_configured'],
  [Reasons.missingIssuer, 'issuer'],
  [Reasons.badSignature, 'signature'],
  [Reasons.expired, 'expired'],
  [Reasons.audience, 'audience'],
  [Reasons.lifetime, 'lifetime'],
  [Reasons.algorithm, 'header'],
  [Reasons.type, 'header'],
  [Reasons.crit, 'header'],
  [Reasons.missingKid, 'unknown_key'],
  [Reasons.ssoTokenAsBearer, 'wrong_token_kind'],
  [Reasons.bearerSubject, 'wrong_token_kind'],
  [REPLAYED_TOKEN_REASON, 'replayed'],
  [UNVERIFIABLE_TOKEN_REASON, 'verification_error'],
]);

const PREFIXES: Array<[string, InvalidTokenLabel]> = [
  [prefixOf(Reasons.notThroughGateway), 'not_through_gateway'],
  [prefixOf(Reasons.unsupportedIssuer), 'issuer'],
  [prefixOf(Reasons.noKeyConfigured), 'issuer'],
  [prefixOf((v) => Reasons.unknownKid(v, v)), 'unknown_key'],
  [prefixOf((v) => Reasons.jwksUnavailable(v, v)), 'jwks_unavailable'],
  // A course-creation token at sign-in: its `sub` names a system, not a member tier.
  [prefixOf((v) => Reasons.subject([v])), 'wrong_token_kind'],
];

/** A reason of `invalid_token` as a bounded label. */
export function invalidTokenLabel(reason: string): InvalidTokenLabel {
  const exact = EXACT.get(reason);
  if (exact) return exact;
  for (const [prefix, label] of PREFIXES) if (reason.startsWith(prefix)) return label;
  // jose's `iat` checks (in the future, too old) and our own "exp" after "iat".
  if (reason.startsWith('"iat" claim timestamp check failed') || reason === '"exp" claim must be after "iat"') return 'lifetime';
  if (reason.startsWith('"nbf" claim timestamp check failed')) return 'expired';
  // Claim types, lengths, missing claims, empty jti, an e-mail that is not one (verify.ts, jose).
  if (/"[A-Za-z]+" (claim|header parameter)/.test(reason) || reason.startsWith('missing required "')) return 'claims';
  return 'other';
}

/** The `reason` label for a sign-in outcome: empty for success and missing_token. */
export function ssoReasonLabel(code: SsoErrorCode, reason: string | undefined): string {
  if (code === 'missing_token' || reason === undefined) return '';
  if (code === 'invalid_token') return invalidTokenLabel(reason);
  return (SSO_FAILED_REASONS as readonly string[]).includes(reason) ? reason : 'other';
}
