import { createHash, generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { courses } from '@lms/db';
import { eq } from 'drizzle-orm';
import { SignJWT } from 'jose';
import t from 'tap';
import { verifyCredential } from '../../src/domain/credentials/verify.js';
import { reissueCertificate, revokeCertificate } from '../../src/domain/learning/certificate-revocation.js';
import { runCli } from '../../src/cli/run.js';
import { testConfig } from '../../src/testing.js';
import { as } from '../learning/world.js';
import { download, earnCertificate, listeningWorld, parts } from './world.js';
import { outboxOnly } from '../../src/domain/partner-events/queue.js';

const w = await listeningWorld(t);
const now = () => w.time.clock();
const issuer = `${w.base}/credentials/issuer`;

t.test('a member finishes the course, downloads the credential, and it verifies over HTTP; then revoked', async (t) => {
  const code = await earnCertificate(w, w.learner.cookie);
  const res = await download(w, w.learner.cookie, code);
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/plain; charset=utf-8/, 'OB 3.0 "Web Resource": text/plain');
  t.equal(res.headers['content-disposition'], `attachment; filename="certificate-${code}.jwt"`);
  const jwt = res.body;
  const { header, payload } = parts(jwt);
  t.same(Object.keys(header).sort(), ['alg', 'kid', 'typ'], 'no other JOSE header');
  t.match(header, { alg: 'RS256', typ: 'JWT' });
  t.match(header.kid, new RegExp(`^${w.base}/credentials/keys/urn:ietf:params:oauth:jwk-thumbprint:sha-256:[A-Za-z0-9_-]{43}$`));
  t.match(payload, {
    '@context': ['https://www.w3.org/ns/credentials/v2', 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json'],
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    id: `${w.base}/certificates/${code}`,
    jti: `${w.base}/certificates/${code}`,
    iss: `${w.base}/credentials/issuer`,
    issuer: { id: `${w.base}/credentials/issuer`, type: ['Profile'], url: w.base },
    credentialStatus: {
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: /^\d+$/,
      statusListCredential: `${w.base}/credentials/status/1`,
    },
  });
  t.equal(payload.sub, (payload.credentialSubject as { id: string }).id, 'sub = credentialSubject.id');
  t.equal(payload.nbf, Date.parse(payload.validFrom as string) / 1000, 'nbf = validFrom');
  t.notOk(jwt.includes(w.learner.user.email), 'no e-mail in clear');
  const subject = payload.credentialSubject as { identifier: { identityHash: string; salt: string }[] };
  const salt = subject.identifier[0]!.salt;
  t.equal(
    subject.identifier[0]!.identityHash,
    `sha256$${createHash('sha256')
      .update(w.learner.user.email + salt)
      .digest('hex')}`,
    'the holder can prove the e-mail with the salt',
  );
  t.match((payload.credentialSubject as { achievement: object }).achievement, {
    id: `${w.base}/courses/${w.course.id}`,
    creditsAvailable: 4.5,
    tag: ['KUM'],
    criteria: { narrative: /every chapter of the course \(3\) and passed the final exam/ },
    creator: { type: ['Profile'], name: 'Test Institution' },
  });

  const jwks = await fetch(`${w.base}/.well-known/jwks.json`);
  t.match(jwks.headers.get('cache-control'), /max-age=60/);
  t.ok(
    ((await jwks.json()) as { keys: { kid: string; alg: string; use: string }[] }).keys.some(
      (k: { kid: string; alg: string; use: string }) => k.kid === header.kid && k.alg === 'RS256' && k.use === 'sig',
    ),
  );

  t.match(await verifyCredential(jwt, { issuer, now: now() }), { status: 'valid', kid: header.kid, id: payload.id });

  const list = await fetch(`${w.base}/credentials/status/1`);
  t.equal(list.status, 200);
  t.match(list.headers.get('cache-control'), /max-age=(60|[1-5]?\d)\b/, 'cached 60 s at most');
  t.match(list.headers.get('content-type'), /^application\/vc\+jwt/);

  const listBefore = await list.text();
  w.time.set(w.time.ms + 5_000); // signed again, its validFrom would differ
  t.equal(
    await (await fetch(`${w.base}/credentials/status/1`)).text(),
    listBefore,
    'an unchanged list is served as it was signed (a verifier costs a read, not an RSA signature)',
  );

  t.equal((await revokeCertificate(w.db, outboxOnly, code, 'Plagiarism', now())).outcome, 'revoked');
  t.not(await (await fetch(`${w.base}/credentials/status/1`)).text(), listBefore, 'a revocation changes the next answer');
  t.match(await verifyCredential(jwt, { issuer, now: now() }), { status: 'revoked' }, 'the same file now says revoked');
  const again = await download(w, w.learner.cookie, code);
  t.equal(again.statusCode, 200, 'a revoked certificate still downloads');
  t.match(await verifyCredential(again.body, { issuer, now: now() }), { status: 'revoked' });

  // The list itself, read by hand: bit statusListIndex, most significant bit first in its byte.
  const listJwt = await (await fetch(`${w.base}/credentials/status/1`)).text();
  const listCredential = parts(listJwt).payload as { type: string[]; credentialSubject: { encodedList: string; statusPurpose: string } };
  t.same(listCredential.type, ['VerifiableCredential', 'BitstringStatusListCredential']);
  t.equal(listCredential.credentialSubject.statusPurpose, 'revocation');
  t.match(listCredential.credentialSubject.encodedList, /^u[A-Za-z0-9_-]+$/, "multibase 'u' + base64url");
  const bits = gunzipSync(Buffer.from(listCredential.credentialSubject.encodedList.slice(1), 'base64url'));
  t.equal(bits.length, 16_384, '131,072 bits');
  const index = Number((payload.credentialStatus as { statusListIndex: string }).statusListIndex);
  t.equal(bits[index >> 3]! & (0x80 >> (index & 7)), 0x80 >> (index & 7), 'its bit is set');
  t.equal(
    bits.reduce((n, byte) => n + byte.toString(2).replaceAll('0', '').length, 0),
    1,
    'and no other',
  );

  // A reissue is a new certificate with its own entry: the new one valid, the old one still revoked.
  const reissued = await reissueCertificate(w.db, outboxOnly, code, now());
  if (reissued.outcome !== 'reissued') throw new Error(reissued.outcome);
  const fresh = (await download(w, w.learner.cookie, reissued.code)).body;
  t.match(await verifyCredential(fresh, { issuer, now: now() }), { status: 'valid' }, 'the reissued certificate verifies');
  t.not(parts(fresh).payload.credentialStatus, (payload as { credentialStatus: unknown }).credentialStatus);
  t.match(await verifyCredential(jwt, { issuer, now: now() }), { status: 'revoked' }, 'the replaced one stays revoked');
});

t.test('a tampered credential and a forged one (another key, the same kid) are invalid', async (t) => {
  const learner = await w.newLearner();
  const code = await earnCertificate(w, learner.cookie);
  const jwt = (await download(w, learner.cookie, code)).body;
  const [h, p, s] = jwt.split('.');
  const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
  payload.credentialSubject.achievement.creditsAvailable = 40;
  const tampered = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
  t.match(await verifyCredential(tampered, { issuer, now: now() }), { status: 'invalid', reason: /signature/ });

  const { kid } = parts(jwt).header;
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const forged = await new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: kid as string, typ: 'JWT' }).sign(other);
  t.match(await verifyCredential(forged, { issuer, now: now() }), { status: 'invalid', reason: /signature/ });

  const unknownKid = await new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: 'not-ours', typ: 'JWT' }).sign(other);
  t.match(await verifyCredential(unknownKid, { issuer, now: now() }), { status: 'invalid', reason: /kid/ });
  const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid })).toString('base64url')}.${p}.`;
  t.match(await verifyCredential(none, { issuer, now: now() }), { status: 'invalid' });
  t.match(await verifyCredential('not a jwt', { issuer, now: now() }), { status: 'invalid' });
  t.match(await verifyCredential(jwt, { issuer, now: new Date(Date.parse(payload.validFrom) - 61_000) }), {
    status: 'invalid',
    reason: /not valid before/,
  });
});

t.test('a course whose certificates expire: expired once the clock passes validUntil', async (t) => {
  await w.db.update(courses).set({ certificateValidMonths: 12 }).where(eq(courses.id, w.course.id));
  t.teardown(() => w.db.update(courses).set({ certificateValidMonths: null }).where(eq(courses.id, w.course.id)));
  const learner = await w.newLearner();
  const code = await earnCertificate(w, learner.cookie);
  const jwt = (await download(w, learner.cookie, code)).body;
  const { payload } = parts(jwt);
  t.ok(payload.validUntil, 'validUntil');
  t.equal(payload.exp, Date.parse(payload.validUntil as string) / 1000, 'exp = validUntil');
  t.match(await verifyCredential(jwt, { issuer, now: now() }), { status: 'valid' });
  const later = new Date(now().getTime() + 400 * 86_400_000);
  t.match(await verifyCredential(jwt, { issuer, now: later }), { status: 'expired' });
});

t.test('lms-admin credential verify FILE: 0 valid, 1 not valid, 2 could not check', async (t) => {
  const dir = t.testdir({});
  const learner = await w.newLearner();
  const code = await earnCertificate(w, learner.cookie);
  const file = join(dir, `certificate-${code}.jwt`);
  writeFileSync(file, (await download(w, learner.cookie, code)).body);
  const run = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const exit = await runCli(argv, {
      io: { out: (l) => out.push(l), err: (l) => err.push(l), progress: () => {}, isTty: false },
      config: testConfig({ PUBLIC_URL: w.base }),
      cwd: dir,
      now: now,
    });
    return { exit, out: out.join('\n'), err: err.join('\n') };
  };
  const ok = await run('credential', 'verify', `certificate-${code}.jwt`);
  t.equal(ok.exit, 0, ok.err);
  t.match(ok.out, /^VALID: /);
  t.match(ok.out, `${w.base}/credentials/issuer`);

  await revokeCertificate(w.db, outboxOnly, code, 'Wrong person', now());
  const revoked = await run('credential', 'verify', file);
  t.equal(revoked.exit, 1);
  t.match(revoked.out, /^REVOKED: /);

  writeFileSync(join(dir, 'bad.jwt'), 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln');
  t.equal((await run('credential', 'verify', 'bad.jwt')).exit, 1);
  t.equal((await run('credential', 'verify', 'missing.jwt')).exit, 2, 'an unreadable file');

  // The issuer's site not answering: could not check.
  const [h, p, s] = (
    await download(w, w.learner.cookie, (await as(w.app, w.learner.cookie).get('/api/learning/certificates')).json().certificates[0].code)
  ).body.split('.');
  const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
  payload.iss = 'http://127.0.0.1:1/credentials/issuer';
  const header = { ...JSON.parse(Buffer.from(h!, 'base64url').toString()), kid: 'key-1' };
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  writeFileSync(join(dir, 'offline.jwt'), `${encode(header)}.${encode(payload)}.${s}`);
  const offline = await run('credential', 'verify', 'offline.jwt', '--issuer', payload.iss);
  t.equal(offline.exit, 2, offline.out);
  t.match(offline.out, /^NOT CHECKED/);
});
