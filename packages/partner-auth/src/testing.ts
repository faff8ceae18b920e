import { randomUUID } from 'node:crypto';
import { type CryptoKey, exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from 'jose';

// The one way tests (this package's, the apps', e2e) and the bench mint partner tokens: a
// partner's RSA key and tokens signed with it as a partner backend would. Exported as
// @lms/partner-auth/testing; nothing a deployment runs imports it. Tests that need a token no
// partner library would make (wrong algorithm, odd header types) build it by hand.

/** An RSA key pair of a partner, with the kid it signs with and the public key as PEM and JWK. */
export interface PartnerKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicPem: string;
  publicJwk: JWK;
}

/** A new RS256 (2048-bit) partner key; its public half as a partner registers it (PEM) or serves it (JWKS). */
export async function makePartnerKey(kid = 'k1'): Promise<PartnerKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicPem = await exportSPKI(publicKey);
  const publicJwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
  return { kid, privateKey, publicKey, publicPem, publicJwk };
}

/** The same key material under another kid (cheap: no new key generation). */
export function withKid(key: PartnerKey, kid: string): PartnerKey {
  return { ...key, kid, publicJwk: { ...key.publicJwk, kid } };
}

/**
 * The claims every valid partner token has, issued at `nowSeconds` (default: now) for five
 * minutes: iss, aud, sub 'member', iat, exp, a fresh jti; then `overrides`, where a value of
 * undefined removes the claim. A sign-in token also needs email and membershipId.
 */
export function partnerClaims(
  issuer: string,
  overrides: Record<string, unknown> = {},
  nowSeconds = Math.floor(Date.now() / 1000),
): Record<string, unknown> {
  const claims: Record<string, unknown> = {
    iss: issuer,
    aud: 'terang.ai', // the spec's audience, written out: a token made from the code's own constant would prove less
    sub: 'member',
    iat: nowSeconds,
    exp: nowSeconds + 300,
    jti: randomUUID(),
    ...overrides,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return claims;
}

/** Signs `claims` as they are with the key (RS256, typ JWT, the key's kid; header fields can be overridden). */
export function signPartnerToken(
  key: Pick<PartnerKey, 'kid' | 'privateKey'>,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid, ...header }).sign(key.privateKey);
}
