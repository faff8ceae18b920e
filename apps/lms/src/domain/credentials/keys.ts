import { createPublicKey } from 'node:crypto';
import { credentialIssuerKeys, type Db } from '@lms/db';
import { and, desc, isNotNull } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, importPKCS8, type JWK, type CryptoKey } from 'jose';

// The credential issuer key (README, "Verifiable credentials"): RS256, kid = RFC 7638 thumbprint.
// A configured key (CREDENTIAL_ISSUER_KEY or _FILE, checked by config.ts) has its public half
// recorded in credential_issuer_keys on start; without one (never in production) a development key
// is generated once and kept whole in the same table (private_jwk), so every instance shares it.
// Every recorded public key stays published at /.well-known/jwks.json (rotation).

export const ISSUER_ALG = 'RS256';

export interface IssuerKey {
  kid: string;
  privateKey: CryptoKey;
  /** The published form: kty, n, e, kid, alg, use. */
  publicJwk: JWK;
  /** A development key (generated and kept in the database), not a configured one. */
  development: boolean;
}

/** The public JWK as published: only the public members, with kid, alg and use. */
async function publishedJwk(jwk: JWK): Promise<JWK> {
  const base = { kty: jwk.kty, n: jwk.n, e: jwk.e };
  const kid = await calculateJwkThumbprint(base, 'sha256');
  return { ...base, kid, alg: ISSUER_ALG, use: 'sig' };
}

/** The configured key (a checked PKCS#8 PEM), its public half recorded (idempotent: the kid is the primary key). */
export async function configuredIssuerKey(db: Db, pem: string): Promise<IssuerKey> {
  const privateKey = await importPKCS8(pem, ISSUER_ALG);
  const publicJwk = await publishedJwk(createPublicKey(pem).export({ format: 'jwk' }) as JWK);
  // biome-ignore lint/style/noNonNullAssertion: publishedJwk always sets it.
  const kid = publicJwk.kid!;
  await db.insert(credentialIssuerKeys).values({ kid, publicJwk }).onConflictDoNothing();
  return { kid, privateKey, publicJwk, development: false };
}

/**
 * The development key: the newest one kept in the database, or a new one (RSA 2048). Two
 * instances generating at once both insert; the newest wins for everybody from then on.
 */
export async function developmentIssuerKey(db: Db): Promise<IssuerKey> {
  const newest = () =>
    db
      .select()
      .from(credentialIssuerKeys)
      .where(and(isNotNull(credentialIssuerKeys.privateJwk)))
      .orderBy(desc(credentialIssuerKeys.createdAt), desc(credentialIssuerKeys.kid))
      .limit(1);
  let [row] = await newest();
  if (!row) {
    const pair = await generateKeyPair(ISSUER_ALG, { modulusLength: 2048, extractable: true });
    const privateJwk = await exportJWK(pair.privateKey);
    const publicJwk = await publishedJwk(await exportJWK(pair.publicKey));
    // biome-ignore lint/style/noNonNullAssertion: publishedJwk always sets it.
    await db.insert(credentialIssuerKeys).values({ kid: publicJwk.kid!, publicJwk, privateJwk }).onConflictDoNothing();
    [row] = await newest();
  }
  // biome-ignore lint/style/noNonNullAssertion: inserted just above when missing.
  const r = row!;
  const privateKey = (await importJWK(r.privateJwk as JWK, ISSUER_ALG)) as CryptoKey;
  return { kid: r.kid, privateKey, publicJwk: r.publicJwk as JWK, development: true };
}

/** Every credential issuer public key ever recorded (newest first): old ones stay published after a rotation. */
export async function issuerPublicKeys(db: Db): Promise<JWK[]> {
  const rows = await db
    .select({ publicJwk: credentialIssuerKeys.publicJwk })
    .from(credentialIssuerKeys)
    .orderBy(desc(credentialIssuerKeys.createdAt), desc(credentialIssuerKeys.kid));
  return rows.map((r) => r.publicJwk as JWK);
}
