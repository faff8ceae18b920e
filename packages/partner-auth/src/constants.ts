/** The audience every partner token must carry, exactly. */
export const SSO_AUDIENCE = 'terang.ai';
/** The only signing algorithm accepted. */
export const SSO_ALGORITHM = 'RS256';
/** Longest allowed token lifetime: exp - iat. */
export const MAX_TOKEN_LIFETIME_SECONDS = 300;
/** A token longer than this is refused before it is decoded or any key is looked up. */
export const MAX_TOKEN_BYTES = 8 * 1024;
/**
 * Clock skew allowed between the partner's clock and ours, in seconds: a token is still
 * accepted up to 29 s after its `exp` (refused at exp + 30 s) and its `iat` may be up to 30 s
 * ahead of our clock.
 */
export const CLOCK_TOLERANCE_SECONDS = 30;

/** The member tiers a token's `sub` may name, and the LMS tier each one maps to. */
export const TIER_BY_SUBJECT = { member: 'anggota', umum: 'umum', mahasiswa: 'mahasiswa' } as const;
export type PartnerSubject = keyof typeof TIER_BY_SUBJECT;
export type LmsTier = (typeof TIER_BY_SUBJECT)[PartnerSubject];
export const PARTNER_SUBJECTS = Object.keys(TIER_BY_SUBJECT) as PartnerSubject[];

/** Maximum lengths (characters) of the header fields and claims, from the spec. */
export const MAX_LENGTHS = {
  alg: 5,
  typ: 3,
  kid: 128,
  iss: 253,
  aud: 9,
  sub: 100,
  email: 254,
  name: 255,
  membershipId: 255,
  jti: 64,
} as const;

/** `iat` and `exp` are Unix seconds of at most 10 digits. */
export const MAX_NUMERIC_DATE = 9_999_999_999;
