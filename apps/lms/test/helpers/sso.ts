import { createHmac, KeyObject, randomUUID, sign as rsaSign, constants as cryptoConstants } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Db, partnerInstitutions, partnerKeys, partners } from '@lms/db';
import { GATEWAY_PROOF_PARAM, signGatewayProof } from '@lms/partner-auth';
import type { PartnerKey } from '@lms/partner-auth/testing';
import type { Test } from 'tap';
import type { LmsApp } from '../../src/app.js';

// Partner keys come from the one token minter of @lms/partner-auth/testing.
export { makePartnerKey, type PartnerKey, withKid } from '@lms/partner-auth/testing';

/** Registers a partner; PEM keys become partner_keys rows; `institutionIds` are bound to it (as `partner bind`). */
export async function registerPartner(
  db: Db,
  fields: { issuer: string; jwksUrl?: string | null; pemKeys?: PartnerKey[]; isActive?: boolean; institutionIds?: number[] },
): Promise<number> {
  const [row] = await db
    .insert(partners)
    .values({ issuer: fields.issuer, name: fields.issuer, jwksUrl: fields.jwksUrl ?? null, isActive: fields.isActive ?? true })
    .returning({ id: partners.id });
  for (const key of fields.pemKeys ?? []) {
    await db.insert(partnerKeys).values({ partnerId: row!.id, kid: key.kid, publicKeyPem: key.publicPem });
  }
  for (const institutionId of fields.institutionIds ?? []) {
    await db.insert(partnerInstitutions).values({ partnerId: row!.id, institutionId });
  }
  return row!.id;
}

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

export type Signer = 'RS256' | 'RS512' | 'PS256' | 'none' | { hs256Secret: string };

/**
 * A compact JWS built by hand, so a test can put anything in the header and payload (wrong
 * types, extra headers) and sign with any algorithm, whatever the header claims.
 */
export function signRaw(header: Record<string, unknown>, payload: unknown, key: PartnerKey, signer: Signer = 'RS256'): string {
  const input = `${b64(header)}.${b64(payload)}`;
  const data = Buffer.from(input);
  let signature: Buffer;
  if (signer === 'none') signature = Buffer.alloc(0);
  else if (typeof signer === 'object') signature = createHmac('sha256', signer.hs256Secret).update(data).digest();
  else {
    const privateKey = KeyObject.from(key.privateKey as unknown as Parameters<typeof KeyObject.from>[0]);
    if (signer === 'RS256') signature = rsaSign('sha256', data, privateKey);
    else if (signer === 'RS512') signature = rsaSign('sha512', data, privateKey);
    else signature = rsaSign('sha256', data, { key: privateKey, padding: cryptoConstants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  }
  return `${input}.${signature.toString('base64url')}`;
}

/** Valid SSO claims at `nowSeconds`, with overrides (a value of undefined removes the claim). */
export function ssoClaims(issuer: string, nowSeconds: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const id = randomUUID();
  const claims: Record<string, unknown> = {
    iss: issuer,
    aud: 'terang.ai',
    sub: 'member',
    email: `member-${id}@example.test`,
    name: 'Siti Member',
    membershipId: `M-${id}`,
    iat: nowSeconds,
    exp: nowSeconds + 300,
    jti: id,
    ...overrides,
  };
  for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
  return claims;
}

/** A valid SSO token (RS256, typ JWT, the key's kid), with claim and header overrides. */
export function ssoToken(
  key: PartnerKey,
  issuer: string,
  nowSeconds: number,
  overrides: Record<string, unknown> = {},
  headerOverrides: Record<string, unknown> = {},
): string {
  const header: Record<string, unknown> = { alg: 'RS256', typ: 'JWT', kid: key.kid, ...headerOverrides };
  for (const [k, v] of Object.entries(header)) if (v === undefined) delete header[k];
  return signRaw(header, ssoClaims(issuer, nowSeconds, overrides), key);
}

export interface CallbackResult {
  status: number;
  location: string | undefined;
  /** `error` and `reason` of a /sign-in redirect. */
  error: string | null;
  reason: string | null;
  /** The session cookie set, if any. */
  sessionCookie: string | undefined;
}

export interface CallbackOptions {
  /**
   * The gateway's proof sent with the token. Default: a valid one, as the gateway would make it
   * with the app's GATEWAY_SECRET at the app's clock (none when the app has no secret). `null`
   * sends none; a string is sent as it is (a forged or expired proof).
   */
  proof?: string | null;
}

/** The proof the gateway would give `token` at the app's current time (its clock and GATEWAY_SECRET). */
export function gatewayProof(app: LmsApp, token: string, secret = app.config.GATEWAY_SECRET!): string {
  return signGatewayProof(secret, token, Math.floor(app.clock().getTime() / 1000));
}

/** The callback URL the LMS's 307 leads to: the token and, by default, a valid gateway proof. */
export function callbackUrl(app: LmsApp, token: string | undefined, options: CallbackOptions = {}): string {
  if (token === undefined) return '/api/auth/sso/callback';
  const query = new URLSearchParams({ token });
  const proof = options.proof === undefined ? (app.config.GATEWAY_SECRET && token ? gatewayProof(app, token) : null) : options.proof;
  if (proof !== null) query.set(GATEWAY_PROOF_PARAM, proof);
  return `/api/auth/sso/callback?${query}`;
}

/** Calls the SSO callback as the browser would after the LMS's 307 (with the gateway's proof unless told otherwise). */
export async function callback(app: LmsApp, token: string | undefined, options: CallbackOptions = {}): Promise<CallbackResult> {
  const res = await app.inject({ method: 'GET', url: callbackUrl(app, token, options) });
  const location = res.headers.location as string | undefined;
  const query = location?.startsWith('/sign-in') ? new URL(location, 'http://lms.test').searchParams : null;
  const cookie = res.cookies.find((c) => c.name === app.sessionCookieName && c.value !== '');
  return {
    status: res.statusCode,
    location,
    error: query?.get('error') ?? null,
    reason: query?.get('reason') ?? null,
    sessionCookie: cookie ? `${cookie.name}=${cookie.value}` : undefined,
  };
}

/** A real HTTP server on the loopback (port 0), closed with the test; counts the requests it got. */
export async function localServer(
  t: Test,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; hits: () => number; server: Server }> {
  let hits = 0;
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req, res) => {
    hits += 1;
    handler(req, res);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${port}`, hits: () => hits, server };
}

/** A partner's JWKS endpoint: serves whatever keys `keys()` lists at the moment. */
export async function jwksServer(t: Test, keys: () => PartnerKey[]) {
  const srv = await localServer(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: keys().map((k) => k.publicJwk) }));
  });
  return { ...srv, jwksUrl: `${srv.url}/.well-known/jwks.json` };
}
