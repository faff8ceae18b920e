import type { CryptoKey } from 'jose';

/** Partner signing keys shorter than this are refused: at registration, from a JWKS, from the database. */
export const MIN_RSA_KEY_BITS = 2048;

/** The modulus length of an RSA key (WebCrypto's `algorithm.modulusLength`); 0 if it is not an RSA key. */
export function rsaKeyBits(key: CryptoKey): number {
  const bits = (key.algorithm as { modulusLength?: unknown }).modulusLength;
  return typeof bits === 'number' ? bits : 0;
}

/** Why a key is too weak to verify partner tokens with, or null when it is long enough. */
export function weakKeyReason(key: CryptoKey): string | null {
  const bits = rsaKeyBits(key);
  return bits >= MIN_RSA_KEY_BITS ? null : `the RSA key has ${bits} bits; at least ${MIN_RSA_KEY_BITS} are required`;
}
