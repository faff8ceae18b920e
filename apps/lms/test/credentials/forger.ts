import { createServer, type IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { Test } from 'tap';

/**
 * Another site on a real local port (0: any free one), as a forger or another issuer runs it:
 * its own RSA key, published at its /.well-known/jwks.json under whatever kids it chooses (ours,
 * say), and a status list (nothing revoked) at /credentials/status/1 signed with that key.
 * `requests` counts what it was asked, so a test can show that a verifier never came.
 */
export interface OtherSite {
  base: string;
  /** Every request's path, in order. */
  requests: string[];
  /** The kids its JWKS publishes its key under (change them between verifications). */
  kids: string[];
  /** Extra members of each published JWK (e.g. `iss`). */
  jwkExtra: Record<string, unknown>;
  /** The `iss` its status list says (the forged credentials' iss, even with a carriage return in it). */
  listIssuer: string;
  /** Signs a payload with the site's key: RS256, the header's kid, typ JWT. */
  sign(payload: Record<string, unknown>, kid: string): Promise<string>;
}

/** `clock`: the site's time (its status list is signed as of then, a minute earlier). */
export async function otherSite(t: Test, clock: () => Date = () => new Date()): Promise<OtherSite> {
  const pair = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const publicJwk: JWK = await exportJWK(pair.publicKey);
  const sign = (payload: Record<string, unknown>, kid: string) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(pair.privateKey);
  const site: OtherSite = { base: '', requests: [], kids: [], jwkExtra: {}, listIssuer: '', sign };

  const statusList = async () => {
    const id = `${site.base}/credentials/status/1`;
    const validFrom = Math.floor(clock().getTime() / 1000) - 60;
    return sign(
      {
        '@context': ['https://www.w3.org/ns/credentials/v2'],
        id,
        type: ['VerifiableCredential', 'BitstringStatusListCredential'],
        issuer: site.listIssuer,
        validFrom: new Date(validFrom * 1000).toISOString().replace('.000Z', 'Z'),
        credentialSubject: {
          id: `${id}#list`,
          type: 'BitstringStatusList',
          statusPurpose: 'revocation',
          encodedList: `u${gzipSync(new Uint8Array(16_384)).toString('base64url')}`,
        },
        iss: site.listIssuer,
        jti: id,
        sub: `${id}#list`,
        nbf: validFrom,
      },
      site.kids[0] ?? 'none',
    );
  };

  const server = createServer((req: IncomingMessage, res) => {
    const path = req.url ?? '/';
    site.requests.push(path);
    void (async () => {
      if (path === '/.well-known/jwks.json') {
        const keys = site.kids.map((kid) => ({ ...publicJwk, kid, alg: 'RS256', use: 'sig', ...site.jwkExtra }));
        res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys }));
      } else if (path === '/credentials/status/1') {
        res.writeHead(200, { 'content-type': 'application/vc+jwt' }).end(await statusList());
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"success":false,"error":"Not found"}');
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  site.base = `http://127.0.0.1:${address.port}`;
  site.listIssuer = `${site.base}/credentials/issuer`;
  return site;
}
