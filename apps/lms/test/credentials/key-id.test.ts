import { credentialIssuerKeys } from '@lms/db';
import { calculateJwkThumbprint, importJWK, type JWK, SignJWT } from 'jose';
import t from 'tap';
import { issuerId } from '../../src/domain/credentials/credential.js';
import { verifyCredential } from '../../src/domain/credentials/verify.js';
import { download, earnCertificate, listeningWorld, parts } from './world.js';

// Issue 40 (Lows), as a relying party's software reads what the LMS publishes:
// - OB 3.0 section 8.2.1: the `kid` is "a URI that can be dereferenced to an object of type JWK";
//   VC-JOSE-COSE recommends a URL ending in the RFC 9278 thumbprint URI;
// - the OB implementation guide ("Key provenance"): the JWKS is served as application/jwk-set+json
//   and holds the credential's kid;
// - VC-JOSE-COSE: a VC-JWT served as application/vc+jwt says typ "vc+jwt" (the status list); an
//   OpenBadgeCredential keeps typ "JWT" (OB 3.0: "If present, MUST be set to JWT").

const w = await listeningWorld(t);
const now = () => w.time.clock();
const issuer = issuerId(w.base);
const code = await earnCertificate(w, w.learner.cookie);
const jwt = (await download(w, w.learner.cookie, code)).body;
const { header } = parts(jwt);

t.test("a credential's kid is a URL that answers its key", async (t) => {
  const kid = String(header.kid);
  t.match(kid, new RegExp(`^${w.base}/credentials/keys/urn:ietf:params:oauth:jwk-thumbprint:sha-256:[A-Za-z0-9_-]{43}$`));
  t.equal(header.typ, 'JWT', 'an OpenBadgeCredential keeps typ JWT');
  const res = await fetch(kid);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/jwk\+json/);
  const jwk = (await res.json()) as JWK & { iss?: string };
  t.match(jwk, { kty: 'RSA', kid, alg: 'RS256', use: 'sig', iss: issuer });
  t.notOk('d' in jwk, 'no private member');
  t.equal(
    `urn:ietf:params:oauth:jwk-thumbprint:sha-256:${await calculateJwkThumbprint({ kty: 'RSA', n: jwk.n!, e: jwk.e! }, 'sha256')}`,
    kid.slice(kid.indexOf('urn:')),
    'the key is the one its thumbprint names',
  );
  for (const unknown of [
    'urn:ietf:params:oauth:jwk-thumbprint:sha-256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    kid.slice(kid.lastIndexOf(':') + 1),
    'urn:ietf:params:oauth:jwk-thumbprint:sha-256:..%2F..%2Fissuer',
  ]) {
    const missing = await fetch(`${w.base}/credentials/keys/${unknown}`);
    t.equal(missing.status, 404, `/credentials/keys/${unknown}`);
    t.match(await missing.json(), { success: false });
  }
});

t.test('the JWKS is application/jwk-set+json and lists the key under its kid URL and its old kid', async (t) => {
  const res = await fetch(`${w.base}/.well-known/jwks.json`);
  t.match(res.headers.get('content-type'), /^application\/jwk-set\+json/);
  const { keys } = (await res.json()) as { keys: (JWK & { iss?: string })[] };
  const kid = String(header.kid);
  const thumbprint = kid.slice(kid.lastIndexOf(':') + 1);
  t.match(
    keys.find((k) => k.kid === kid),
    { kty: 'RSA', iss: issuer },
  );
  t.match(
    keys.find((k) => k.kid === thumbprint),
    { kty: 'RSA', iss: issuer },
    'the bare thumbprint too: the kid of credentials issued before',
  );
});

t.test('the status list, served as application/vc+jwt, says typ vc+jwt', async (t) => {
  const res = await fetch(`${w.base}/credentials/status/1`);
  t.match(res.headers.get('content-type'), /^application\/vc\+jwt/);
  t.match(parts(await res.text()).header, { alg: 'RS256', typ: 'vc+jwt', kid: header.kid });
  t.match(await verifyCredential(jwt, { issuer, now: now() }), { status: 'valid', kid: header.kid });
});

t.test('a credential issued before (kid = the bare thumbprint) still verifies', async (t) => {
  const [row] = await w.db.select().from(credentialIssuerKeys);
  const privateKey = await importJWK(row!.privateJwk as JWK, 'RS256');
  const old = await new SignJWT(parts(jwt).payload).setProtectedHeader({ alg: 'RS256', kid: row!.kid, typ: 'JWT' }).sign(privateKey);
  t.match(await verifyCredential(old, { issuer, now: now() }), { status: 'valid', kid: row!.kid });
});
