import { createTestDb } from '@lms/db/testing';
import { credentialIssuerKeys } from '@lms/db';
import { generateKeyPairSync } from 'node:crypto';
import t from 'tap';
import { loadConfig, MISSING_ISSUER_KEY } from '../../src/config.js';
import { verifyCredential } from '../../src/domain/credentials/verify.js';
import { buildTestApp } from '../helpers/app.js';
import { testDatabaseUrl } from '../helpers/database.js';
import { download, earnCertificate, listeningWorld, parts, rsaPem } from './world.js';

t.test('rotation: a second configured key signs new credentials with a new kid; old ones still verify', async (t) => {
  const w = await listeningWorld(t);
  const before = (await download(w, w.learner.cookie, await earnCertificate(w, w.learner.cookie))).body;
  const devKid = parts(before).header.kid as string;
  /** The RFC 7638 thumbprint a kid URL ends with (the key's primary key in credential_issuer_keys). */
  const thumbprint = (kid: unknown) => String(kid).split(':').pop();
  const devRows = await w.db.select().from(credentialIssuerKeys);
  t.equal(devRows.length, 1, 'one development key, kept in the database');
  t.ok(devRows[0]!.privateJwk, 'with its private half (development only)');

  // The operator configures a key (a restart of another instance): the same database, a new app.
  const { app } = await buildTestApp(t, {
    config: { ...w.app.config, CREDENTIAL_ISSUER_KEY: rsaPem(2048) },
    db: w.testDb,
    deps: { clock: w.time.clock },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  app.config.PUBLIC_URL = `http://127.0.0.1:${address.port}`;
  const rows = await w.db.select().from(credentialIssuerKeys);
  t.equal(rows.length, 2, 'the configured key was recorded on start');
  t.equal(rows.find((r) => r.kid !== thumbprint(devKid))?.privateJwk, null, 'without its private half');
  const jwks = (await (await fetch(`${app.config.PUBLIC_URL}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
  t.ok(
    jwks.keys.some((k: { kid: string }) => k.kid === `${app.config.PUBLIC_URL}/credentials/keys/${devKid.split('/').pop()}`),
    'the old key stays published',
  );
  t.notOk(JSON.stringify(jwks).includes('"d"'), 'no private member published');

  const learner = await w.newLearner();
  const w2 = { ...w, app };
  const after = (await download(w2, learner.cookie, await earnCertificate(w2, learner.cookie))).body;
  const newKid = parts(after).header.kid;
  t.not(newKid, devKid, 'a new kid');
  t.ok(rows.some((r) => r.kid === thumbprint(newKid)));
  t.match(await verifyCredential(after, { issuer: `${app.config.PUBLIC_URL}/credentials/issuer`, now: w.time.clock() }), {
    status: 'valid',
    kid: newKid,
  });
  t.match(
    await verifyCredential(before, { issuer: `${w.base}/credentials/issuer`, now: w.time.clock() }),
    { status: 'valid', kid: devKid },
    'the old credential still verifies',
  );
  const oldCode = String(parts(before).payload.id).split('/').pop()!;
  const again = (await download(w2, w.learner.cookie, oldCode)).body;
  t.equal(parts(again).header.kid, newKid, 'a new download of an old certificate is signed with the new key');

  // Restarting with the same key changes nothing (idempotent).
  const { app: third } = await buildTestApp(t, { config: { ...app.config }, db: w.testDb });
  await third.ready();
  t.equal((await w.db.select().from(credentialIssuerKeys)).length, 2);
});

t.test('configuration: production needs a key; small or non-RSA keys are refused with a clear message', async (t) => {
  t.throws(() => loadConfig({ NODE_ENV: 'production' }), { name: 'ConfigError', message: /CREDENTIAL_ISSUER_KEY/ });
  t.match(loadConfig({ NODE_ENV: 'production', CREDENTIAL_ISSUER_KEY: rsaPem(2048) }), { production: true });
  t.throws(() => loadConfig({ CREDENTIAL_ISSUER_KEY: rsaPem(1024) }), { message: /1024 bits; at least 2048/ });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  t.throws(() => loadConfig({ CREDENTIAL_ISSUER_KEY: ec }), { message: /an RSA key is needed/ });
  const pkcs1 = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  t.throws(() => loadConfig({ CREDENTIAL_ISSUER_KEY: pkcs1 }), { message: /not a PKCS#8 PEM/ });
  t.throws(() => loadConfig({ CREDENTIAL_ISSUER_KEY_FILE: '/no/such/key.pem' }), { message: /cannot read/ });
  const dir = t.testdir({ 'issuer.pem': rsaPem(2048) });
  t.ok(loadConfig({ NODE_ENV: 'production', CREDENTIAL_ISSUER_KEY_FILE: `${dir}/issuer.pem` }));

  // buildApp refuses too (a configuration built by hand, as tests and tools do).
  const db = await createTestDb(testDatabaseUrl);
  t.teardown(() => db.destroy());
  await t.rejects(buildTestApp(t, { db, config: { production: true } }), { message: MISSING_ISSUER_KEY });
});
