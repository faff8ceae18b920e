import { generateKeyPairSync, randomUUID, webcrypto } from 'node:crypto';
import { Writable } from 'node:stream';
import { partnerInstitutions } from '@lms/db';
import type { CryptoKey } from 'jose';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { callback, jwksServer, makePartnerKey, type PartnerKey, registerPartner, signRaw, ssoToken } from '../../helpers/sso.js';

// Partner keys under 2048 bits are not trusted: a JWKS serving one has that key logged and
// ignored, a PEM key under 2048 bits in the database likewise (the CLI refuses to store one:
// test/cli/cli.test.ts). Real 1024-bit keys, made with node:crypto (jose refuses to make them).

const GATEWAY_SECRET = 'weak-keys-gateway-secret';

/** A real 1024-bit RSA key pair in the shape of the test helpers' PartnerKey. */
async function weakPartnerKey(kid: string): Promise<PartnerKey> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const der = privateKey.export({ type: 'pkcs8', format: 'der' });
  const signing = await webcrypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['sign']);
  return {
    kid,
    privateKey: signing as unknown as CryptoKey,
    publicKey: signing as unknown as CryptoKey, // not used by the tests
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' },
  };
}

t.test('keys under 2048 bits are ignored, and say so in the log', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const { app, db } = await buildTestApp(t, { config: { GATEWAY_SECRET }, deps: { logger: { level: 'warn', stream } } });
  const nowS = () => Math.floor(Date.now() / 1000);

  const weakJwks = await weakPartnerKey('weak-jwks');
  const strongJwks = await makePartnerKey('strong-jwks');
  const jwks = await jwksServer(t, () => [weakJwks, strongJwks]);
  await registerPartner(db.db, { issuer: 'jwks.weak.example', jwksUrl: jwks.jwksUrl });

  const weakPem = await weakPartnerKey('weak-pem');
  const strongPem = await makePartnerKey('strong-pem');
  const pemPartnerId = await registerPartner(db.db, { issuer: 'pem.weak.example', pemKeys: [weakPem, strongPem] });
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  await db.db.insert(partnerInstitutions).values({ partnerId: pemPartnerId, institutionId });

  t.test('SSO with a JWKS that serves a 1024-bit key', async (t) => {
    const weak = await callback(app, ssoToken(weakJwks, 'jwks.weak.example', nowS()));
    t.equal(weak.status, 307);
    t.equal(weak.error, 'invalid_token');
    t.equal(weak.reason, 'No key with kid "weak-jwks" for SSO issuer: jwks.weak.example.', 'as if the key were not there');
    t.equal(weak.sessionCookie, undefined);
    const strong = await callback(app, ssoToken(strongJwks, 'jwks.weak.example', nowS()));
    t.equal(strong.status, 302, 'the 2048-bit key of the same set still works');
    const warning = lines.find((l) => l.kid === 'weak-jwks');
    t.match(warning, {
      level: 40,
      bits: 1024,
      jwksUrl: jwks.jwksUrl,
      msg: /skipping a JWKS key: the RSA key has 1024 bits; at least 2048 are required/,
    });
  });

  t.test('SSO and course creation with a 1024-bit PEM key from the database', async (t) => {
    const weak = await callback(app, ssoToken(weakPem, 'pem.weak.example', nowS()));
    t.equal(weak.status, 307);
    t.equal(weak.error, 'invalid_token');
    t.match(weak.reason, /No key with kid "weak-pem"/);
    t.equal((await callback(app, ssoToken(strongPem, 'pem.weak.example', nowS()))).status, 302);

    const bearer = (key: PartnerKey) =>
      signRaw(
        { alg: 'RS256', typ: 'JWT', kid: key.kid },
        { iss: 'pem.weak.example', aud: 'terang.ai', sub: 'member', iat: nowS(), exp: nowS() + 300, jti: randomUUID() },
        key,
      );
    const create = (key: PartnerKey) =>
      app.inject({
        method: 'POST',
        url: '/api/courses',
        headers: { 'x-gateway-secret': GATEWAY_SECRET, authorization: `Bearer ${bearer(key)}` },
        payload: { institutionId, teacherId: teacher.id, name: 'Kursus' },
      });
    const refused = await create(weakPem);
    t.equal(refused.statusCode, 401, 'a token of the short key is refused, not a 500');
    t.same(refused.json(), { success: false, error: 'No key with kid "weak-pem" for SSO issuer: pem.weak.example.' });
    t.equal((await create(strongPem)).statusCode, 201);
    t.match(
      lines.find((l) => l.kid === 'weak-pem'),
      { level: 40, bits: 1024, issuer: 'pem.weak.example', msg: /skipping a PEM key: the RSA key has 1024 bits/ },
    );
  });
});
