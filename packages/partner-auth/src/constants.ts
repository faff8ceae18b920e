/** The audience every partner token must carry, exactly. */
export const SSO_AUDIENCE = 'terang.ai';
/** The only signing algorithm accepted. */
export const SSO_ALGORITHM = 'RS256';
/** Longest allowed token lifetime: exp - iat. */
export const MAX_TOKEN_LIFETIME_SECONDS = 300;
