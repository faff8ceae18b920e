import { createHash } from 'node:crypto';
import {
  type CertificateEvidence,
  type certificates,
  type courses,
  type Db,
  type institutions,
  type RawSelect,
  typedRows,
  type users,
} from '@lms/db';
import { sql } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { CERTIFICATE_CODE } from '../learning/certificates.js';
import type { JWK } from 'jose';
import { evidenceOf, resultDescriptionsOf, resultsOf } from './evidence.js';
import { ISSUER_ALG, type IssuerKey, issuerPublicKeys } from './keys.js';
import { encodeList, STATUS_LIST_SIZE, statusEntryOf, statusListBits } from './status-list.js';

// Open Badges 3.0 (https://www.imsglobal.org/spec/ob/v3p0/, 1EdTech openbadges-specification at
// 1af145f) on the W3C Verifiable Credentials Data Model 2.0. Choices (README, "Verifiable credentials"):
// - the subject is an IdentityObject: sha256 of the e-mail + the certificate's own salt
//   (identityType 'emailAddress'); an account without an e-mail (none today: users.email is
//   required) would be identified by its LMS user id the same way, identityType 'systemId';
// - credentialSubject.id is an opaque urn:uuid derived from the code and the salt (the VC-JWT
//   section requires `sub` = credentialSubject.id; it says nothing about the person);
// - the KUM points are Achievement.creditsAvailable, the scheme (KUM, SKP...) is Achievement.tag;
// - the course's institution is Achievement.creator, a Profile served at /credentials/institutions/{id}.

export const VC_CONTEXT_V2 = 'https://www.w3.org/ns/credentials/v2';
/** The OB 3.0 context the spec's serialization section names (context-3.0.3). */
export const OB_CONTEXT = 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json';
export const OB_SCHEMA = 'https://purl.imsglobal.org/spec/ob/v3p0/schema/json/ob_v3p0_achievementcredential_schema.json';
export const CREDENTIAL_TYPES = ['VerifiableCredential', 'OpenBadgeCredential'] as const;

export interface IssuerSettings {
  publicUrl: string;
  issuerName: string;
}

const baseOf = (publicUrl: string) => publicUrl.replace(/\/$/, '');

export const issuerId = (publicUrl: string) => `${baseOf(publicUrl)}/credentials/issuer`;
export const statusListUrl = (publicUrl: string, n: number) => `${baseOf(publicUrl)}/credentials/status/${n}`;
export const institutionProfileId = (publicUrl: string, id: number) => `${baseOf(publicUrl)}/credentials/institutions/${id}`;

/** RFC 9278: the JWK Thumbprint URI (SHA-256) prefix. */
export const THUMBPRINT_URN = 'urn:ietf:params:oauth:jwk-thumbprint:sha-256:';

/**
 * The `kid` of a credential key: a URL that dereferences to the key (OB 3.0 section 8.2: "A URI
 * that can be dereferenced to an object of type JWK"), ending in the key's RFC 9278 thumbprint URI
 * as VC-JOSE-COSE recommends; the JWKS lists the key under it too (OB implementation guide, "Key
 * provenance": the kid must be in the issuer's set). `thumbprint` is the RFC 7638 thumbprint, the
 * kid credentials were signed with before (still published, so they verify).
 */
export const credentialKeyId = (publicUrl: string, thumbprint: string) =>
  `${baseOf(publicUrl)}/credentials/keys/${THUMBPRINT_URN}${thumbprint}`;

/**
 * The credential keys as published, each twice: under its kid URL and under its bare thumbprint
 * (the kid of credentials issued before issue 40), with `iss` = the issuer (the implementation
 * guide's member for "which issuer this key belongs to").
 */
export async function publishedCredentialKeys(db: Db, publicUrl: string): Promise<JWK[]> {
  const iss = issuerId(publicUrl);
  return (await issuerPublicKeys(db)).flatMap((jwk) => [
    { ...jwk, kid: credentialKeyId(publicUrl, String(jwk.kid)), iss },
    { ...jwk, iss },
  ]);
}

/** The issuer's OB 3.0 Profile, at its own id. */
export function issuerProfile(settings: IssuerSettings) {
  return { id: issuerId(settings.publicUrl), type: ['Profile'], name: settings.issuerName, url: baseOf(settings.publicUrl) };
}

/** A date as the credential writes it: whole seconds (nbf/exp are whole seconds and must equal validFrom/validUntil). */
export const credentialDate = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * A certificate's credential source as findCredentialSource's statement reads it (raw: four
 * tables and two subqueries in one lookup). `statusEntry`: where its revocation bit is (status-list.ts).
 */
type CredentialSourceRow = Pick<RawSelect<typeof certificates>, 'id' | 'code' | 'userId' | 'issuedAt' | 'expiresAt' | 'statusEntry'> & {
  email: RawSelect<typeof users>['email'] | null;
  salt: RawSelect<typeof certificates>['subjectSalt'];
  /** numeric, read as float8. */
  kum: number | null;
  courseId: RawSelect<typeof courses>['id'];
  courseName: RawSelect<typeof courses>['name'];
  courseDescription: RawSelect<typeof courses>['description'];
  scheme: RawSelect<typeof courses>['creditScheme'];
  institutionId: RawSelect<typeof institutions>['id'] | null;
  institutionName: RawSelect<typeof institutions>['name'] | null;
  chapterCount: number;
  hasFinal: boolean;
  /** What the certificate was issued on (null: issued before credit evidence). */
  evidence: CertificateEvidence | null;
};

export type CredentialRow = Omit<CredentialSourceRow, 'issuedAt' | 'expiresAt'> & { issuedAt: Date; expiresAt: Date | null };

/** The certificate behind a credential, if `holderId` holds it (any other caller: null, as if unknown). */
export async function findCredentialSource(db: Db, code: string, holderId: string): Promise<CredentialRow | null> {
  if (!CERTIFICATE_CODE.test(code)) return null;
  const [row] = await typedRows<CredentialSourceRow>(
    db,
    sql`
    select k.id, k.code, k.status_entry as "statusEntry", k.user_id as "userId", u.email, k.subject_salt as salt, k.issued_at as "issuedAt",
      k.expires_at as "expiresAt", k.kum::float8 as kum, k.evidence, c.id as "courseId", c.name as "courseName",
      c.description as "courseDescription", c.credit_scheme as scheme, i.id as "institutionId", i.name as "institutionName",
      (select count(*)::int from chapters ch where ch.course_id = c.id) as "chapterCount",
      exists (select 1 from quizzes f where f.course_id = c.id and f.scope = 'final') as "hasFinal"
    from certificates k join courses c on c.id = k.course_id join users u on u.id = k.user_id
      left join institutions i on i.id = c.institution_id
    where k.code = ${code} and k.user_id = ${holderId}`,
  );
  if (!row) return null;
  return { ...row, issuedAt: new Date(row.issuedAt), expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt) };
}

const sha256hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** An opaque, stable urn:uuid (RFC 9562 version 8) for the credential's subject. */
function subjectId(code: string, salt: string): string {
  const b = createHash('sha256').update(`credential-subject:${code}:${salt}`).digest().subarray(0, 16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x80;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function criteriaNarrative(row: CredentialRow): string {
  const chapters = `every chapter of the course (${row.chapterCount})`;
  return row.hasFinal
    ? `Completed ${chapters} and passed the final exam of "${row.courseName}".`
    : `Completed ${chapters} of "${row.courseName}".`;
}

/** The OpenBadgeCredential of a certificate (unsigned JSON, as the JSON serialization says: no nulls, no empty arrays). */
export function buildCredential(row: CredentialRow, settings: IssuerSettings) {
  const base = baseOf(settings.publicUrl);
  const { list, index } = statusEntryOf(row.statusEntry);
  const statusUrl = statusListUrl(settings.publicUrl, list);
  const email = row.email?.trim().toLowerCase();
  const identity = email
    ? { identityType: 'emailAddress', identityHash: `sha256$${sha256hex(email + row.salt)}` }
    : { identityType: 'systemId', identityHash: `sha256$${sha256hex(row.userId + row.salt)}` };
  const creditsAvailable = row.kum !== null && row.kum > 0 ? row.kum : undefined;
  const achievementId = `${base}/courses/${row.courseId}`;
  const evidence = row.evidence;
  return {
    '@context': [VC_CONTEXT_V2, OB_CONTEXT],
    id: `${base}/certificates/${row.code}`,
    type: [...CREDENTIAL_TYPES],
    name: row.courseName,
    issuer: issuerProfile(settings),
    validFrom: credentialDate(row.issuedAt),
    ...(row.expiresAt ? { validUntil: credentialDate(row.expiresAt) } : {}),
    awardedDate: credentialDate(row.issuedAt),
    credentialSubject: {
      id: subjectId(row.code, row.salt),
      type: ['AchievementSubject'],
      identifier: [{ type: 'IdentityObject', ...identity, hashed: true, salt: row.salt }],
      ...(evidence ? { result: resultsOf(evidence, achievementId) } : {}),
      achievement: {
        id: achievementId,
        type: ['Achievement'],
        achievementType: 'CertificateOfCompletion',
        name: row.courseName,
        description: row.courseDescription.trim() || `Certificate of completion of "${row.courseName}".`,
        criteria: { narrative: criteriaNarrative(row) },
        ...(creditsAvailable !== undefined ? { creditsAvailable } : {}),
        tag: [row.scheme],
        ...(evidence ? { resultDescription: resultDescriptionsOf(evidence, achievementId) } : {}),
        ...(row.institutionId !== null
          ? {
              creator: {
                id: institutionProfileId(settings.publicUrl, row.institutionId),
                type: ['Profile'],
                name: row.institutionName ?? '',
              },
            }
          : {}),
      },
    },
    ...(evidence ? { evidence: evidenceOf(evidence, `${base}/certificates/${row.code}`) } : {}),
    credentialStatus: {
      id: `${statusUrl}#${index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(index),
      statusListCredential: statusUrl,
    },
    credentialSchema: [{ id: OB_SCHEMA, type: '1EdTechJsonSchemaValidator2019' }],
  };
}

export type OpenBadgeCredential = ReturnType<typeof buildCredential>;

/**
 * Signs a credential as a VC-JWT, as OB 3.0 section 8.2 "JSON Web Token Proof Format" says
 * (ob_v3p0/integrity.md, #jwt-proof): JOSE header alg RS256, kid (credentialKeyId: a URL of the
 * key), typ and no other header; the payload IS the credential (not a `vc` claim: that is the
 * VC-DATA-MODEL 1.1 form the spec's note mentions for verifiers only), plus iss = issuer.id,
 * jti = id, sub = credentialSubject.id, nbf = validFrom, exp = validUntil when there is one, and
 * iat. typ: "JWT" for an OpenBadgeCredential (OB 3.0: "If present, MUST be set to JWT"); "vc+jwt"
 * for a status list served as application/vc+jwt (VC-JOSE-COSE: "The typ header parameter SHOULD
 * be vc+jwt").
 */
export async function signCredential(
  credential: { id: string; issuer: { id: string } | string; validFrom: string; validUntil?: string; credentialSubject?: { id?: string } },
  key: IssuerKey,
  settings: IssuerSettings,
  now: Date,
  typ: 'JWT' | 'vc+jwt' = 'JWT',
): Promise<string> {
  const iss = typeof credential.issuer === 'string' ? credential.issuer : credential.issuer.id;
  const jwt = new SignJWT(credential)
    .setProtectedHeader({ alg: ISSUER_ALG, kid: credentialKeyId(settings.publicUrl, key.kid), typ })
    .setIssuer(iss)
    .setJti(credential.id)
    .setNotBefore(seconds(new Date(credential.validFrom)))
    .setIssuedAt(seconds(now));
  if (credential.credentialSubject?.id) jwt.setSubject(credential.credentialSubject.id);
  if (credential.validUntil) jwt.setExpirationTime(seconds(new Date(credential.validUntil)));
  return jwt.sign(key.privateKey);
}

/** How long a signed status list is served again while its bits do not change. */
const SIGNED_LIST_REUSE_MS = 10 * 60_000;
/** The last signed form of each list (per issuer URL and list), with the bits it says. */
const signedLists = new Map<string, { bits: Uint8Array; kid: string; jwt: string; at: number }>();

/**
 * List n as a BitstringStatusListCredential (VC-JWT, the same key), or null when it does not exist.
 * validFrom is when it was signed; no validUntil: a verifier fetches it each time. Every request
 * reads the revoked bits (one range read of the certificates' primary key), but a list whose bits
 * and key have not changed is not signed again for up to 10 minutes: a verifier's request costs a
 * read, not an RSA signature, and a revocation shows in the very next answer.
 */
export async function buildStatusListCredential(db: Db, n: number, settings: IssuerSettings, key: IssuerKey, now: Date) {
  const bits = await statusListBits(db, n);
  if (!bits) return null;
  const cacheKey = `${settings.publicUrl}|${n}`;
  const kept = signedLists.get(cacheKey);
  const age = now.getTime() - (kept?.at ?? 0);
  if (kept && kept.kid === key.kid && age >= 0 && age < SIGNED_LIST_REUSE_MS && Buffer.compare(kept.bits, bits) === 0) return kept.jwt;
  const jwt = await signStatusList(n, bits, settings, key, now);
  signedLists.set(cacheKey, { bits, kid: key.kid, jwt, at: now.getTime() });
  return jwt;
}

function signStatusList(n: number, bits: Uint8Array, settings: IssuerSettings, key: IssuerKey, now: Date) {
  const id = statusListUrl(settings.publicUrl, n);
  const credential = {
    '@context': [VC_CONTEXT_V2],
    id,
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    issuer: issuerId(settings.publicUrl),
    validFrom: credentialDate(now),
    credentialSubject: { id: `${id}#list`, type: 'BitstringStatusList', statusPurpose: 'revocation', encodedList: encodeList(bits) },
  };
  return signCredential(credential, key, settings, now, 'vc+jwt');
}

export { STATUS_LIST_SIZE };
