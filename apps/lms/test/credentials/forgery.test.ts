import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';
import t from 'tap';
import { runCli } from '../../src/cli/run.js';
import { issuerId } from '../../src/domain/credentials/credential.js';
import { verifyCredential } from '../../src/domain/credentials/verify.js';
import { testConfig } from '../../src/testing.js';
import { otherSite } from './forger.js';
import { download, earnCertificate, listeningWorld, parts } from './world.js';

// CI runs this file once (not again in the PostgreSQL pass): forgeries made on another site and refused by the verifier (signatures, URLs); issuing a credential and serving the JWKS from the database run on both backends in verify.test.ts and keys.test.ts.

// Issue 40, High 3: forgeries of our credentials, made on another site (a real server on a local
// port with its own key and JWKS), checked by `lms-admin credential verify` as a relying party
// runs it. The verifier expects this LMS as the issuer (PUBLIC_URL) unless told another with
// --issuer; it prints no control characters; a credential's id and a kid URL must be on the
// issuer's origin.

const w = await listeningWorld(t);
const now = () => w.time.clock();
const ourIssuer = issuerId(w.base);
const code = await earnCertificate(w, w.learner.cookie);
const genuine = (await download(w, w.learner.cookie, code)).body;
const ourKid = String(parts(genuine).header.kid);
const ours = parts(genuine).payload as Record<string, unknown> & {
  name: string;
  id: string;
  issuer: Record<string, unknown>;
  credentialSubject: { achievement: Record<string, unknown> };
};
const dir = t.testdir({});

/** `lms-admin credential verify FILE [...]` on this LMS's configuration: exit code and output. */
async function verifyCommand(jwt: string, ...options: string[]) {
  const file = join(dir, `credential-${Math.random().toString(36).slice(2)}.jwt`);
  writeFileSync(file, jwt);
  const out: string[] = [];
  const err: string[] = [];
  const exit = await runCli(['credential', 'verify', file, ...options], {
    io: { out: (l) => out.push(l), err: (l) => err.push(l), progress: () => {}, isTty: false },
    config: testConfig({ PUBLIC_URL: w.base }),
    cwd: dir,
    now,
  });
  return { exit, out: out.join('\n'), err: err.join('\n') };
}

/** Control characters a terminal would act on (a line feed only between the report's own lines). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

/** A credential as another site makes it: ours, with that site's issuer, status list and the given changes. */
function lookAlike(site: { base: string }, iss: string, changes: Record<string, unknown> = {}) {
  return {
    ...structuredClone(ours),
    iss,
    issuer: { ...ours.issuer, id: iss },
    credentialStatus: {
      id: `${site.base}/credentials/status/1#7`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: '7',
      statusListCredential: `${site.base}/credentials/status/1`,
    },
    ...changes,
  };
}

t.test("the issue's forgery: a carriage return and a fake issuer line in iss, our kid on another site, our URL as id", async (t) => {
  const site = await otherSite(t, now);
  // What the report would have drawn: the forger's issuer, then (after \r) our issuer and key over it.
  const iss = `${site.base}/credentials/issuer\r  issuer      ${ourIssuer} (key ${ourKid})`;
  site.kids = [ourKid];
  site.listIssuer = iss;
  const forged = await site.sign(lookAlike(site, iss, { jti: ours.id }), ourKid);

  const report = await verifyCommand(forged);
  t.equal(report.exit, 1, 'not valid');
  t.match(
    report.out,
    /^INVALID: issued by "http:\/\/127\.0\.0\.1:\d+\/credentials\/issuer\\u\{d\} {2}issuer {6}http/,
    'the claimed issuer, quoted',
  );
  t.match(report.out, `not by the expected issuer ${ourIssuer}`);
  t.notMatch(report.out, CONTROL, 'no control character reaches the terminal');
  t.notMatch(report.out, /^\s*issuer\s/m, 'no line of the report names an issuer');
  t.notMatch(report.out, /(^|\n)(VALID|REVOKED|EXPIRED):/, 'nothing says valid');
  t.same(site.requests, [], "nothing was fetched from the forger's site");
  t.match(await verifyCredential(forged, { issuer: ourIssuer, now: now() }), { status: 'invalid', reason: /not by the expected issuer/ });
});

t.test('a look-alike from another site (our course name, 20 KUM, its own URLs) is not ours', async (t) => {
  const site = await otherSite(t, now);
  const iss = `${site.base}/credentials/issuer`;
  site.kids = ['key-1'];
  const id = `${site.base}/certificates/${code}`;
  const credential = lookAlike(site, iss, {
    id,
    jti: id,
    credentialSubject: { ...ours.credentialSubject, achievement: { ...ours.credentialSubject.achievement, creditsAvailable: 20 } },
  });
  const jwt = await site.sign(credential, 'key-1');

  const report = await verifyCommand(jwt);
  t.equal(report.exit, 1, 'not valid for this LMS');
  t.match(report.out, `INVALID: issued by "${iss}", not by the expected issuer ${ourIssuer}`);
  t.notMatch(report.out, /^VALID/m);
  t.same(site.requests, [], 'the other site was not even asked');

  // A relying party that means that other issuer says so, and gets its answer: genuine for it.
  const theirs = await verifyCommand(jwt, '--issuer', iss);
  t.equal(theirs.exit, 0, theirs.out);
  t.match(theirs.out, `VALID: ${ours.name}\n  credential  ${id}\n  issuer      ${iss} (key key-1)`);
});

t.test('another issuer may not give its credential one of our URLs as its id', async (t) => {
  const site = await otherSite(t, now);
  const iss = `${site.base}/credentials/issuer`;
  site.kids = ['key-1'];
  const jwt = await site.sign(lookAlike(site, iss, { jti: ours.id }), 'key-1');
  t.match(ours.id, `${w.base}/certificates/${code}`, 'the id is our certificate page');

  const report = await verifyCommand(jwt, '--issuer', iss);
  t.equal(report.exit, 1);
  t.match(report.out, `INVALID: the credential id "${ours.id}" is not a URL on the issuer's origin ${site.base}`);
  t.match(await verifyCredential(jwt, { issuer: iss, now: now() }), { status: 'invalid', reason: /credential id/ });
});

t.test('a kid naming a JWKS on another site is refused, and that site is never asked', async (t) => {
  const site = await otherSite(t, now);
  const elsewhere = await otherSite(t, now);
  const iss = `${site.base}/credentials/issuer`;
  // The issuer's own JWKS lists that kid too: looked up as a plain string, it would verify.
  const kid = `${elsewhere.base}/.well-known/jwks.json#${ourKid}`;
  site.kids = [kid];
  const id = `${site.base}/certificates/${code}`;
  const jwt = await site.sign(lookAlike(site, iss, { id, jti: id }), kid);

  const outcome = await verifyCredential(jwt, { issuer: iss, now: now() });
  t.match(outcome, { status: 'invalid', reason: `credential: the key "${kid}" is not on the issuer's origin ${site.base}` });
  t.same(elsewhere.requests, [], 'the other site was not asked for keys');
});

t.test('a published key of another issuer (its iss) or not the key its thumbprint names is refused', async (t) => {
  const site = await otherSite(t, now);
  const iss = `${site.base}/credentials/issuer`;
  const id = `${site.base}/certificates/${code}`;
  site.kids = ['key-1'];
  site.jwkExtra = { iss: `${w.base}/credentials/issuer` };
  const jwt = await site.sign(lookAlike(site, iss, { id, jti: id }), 'key-1');
  t.match(await verifyCredential(jwt, { issuer: iss, now: now() }), { status: 'invalid', reason: /belongs to another issuer/ });
  site.jwkExtra = { iss };
  t.match(await verifyCredential(jwt, { issuer: iss, now: now() }), { status: 'valid' }, 'its own iss: fine');

  // Our key's thumbprint in a kid on the issuer's origin, over the forger's key.
  const jwks = (await (await fetch(`${w.base}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
  const ourKey = jwks.keys.find((k) => k.kid === ourKid) as JWK;
  const thumbprint = await calculateJwkThumbprint({ kty: 'RSA', n: ourKey.n as string, e: ourKey.e as string }, 'sha256');
  const kid = `${site.base}/credentials/keys/urn:ietf:params:oauth:jwk-thumbprint:sha-256:${thumbprint}`;
  site.kids = [kid];
  const borrowed = await site.sign(lookAlike(site, iss, { id, jti: id }), kid);
  t.match(await verifyCredential(borrowed, { issuer: iss, now: now() }), {
    status: 'invalid',
    reason: /is not the key its thumbprint names/,
  });
});

t.test('text from a genuine credential is printed with its control characters escaped', async (t) => {
  const site = await otherSite(t, now);
  const iss = `${site.base}/credentials/issuer`;
  site.kids = ['key-1'];
  const id = `${site.base}/certificates/${code}`;
  const name = `Etika\r  issuer      ${ourIssuer}\u001b[2K\u202eLMS\u0085`;
  const jwt = await site.sign(lookAlike(site, iss, { id, jti: id, name }), 'key-1');
  const report = await verifyCommand(jwt, '--issuer', iss);
  t.equal(report.exit, 0, report.out);
  t.notMatch(report.out, CONTROL);
  t.match(report.out, `VALID: Etika\\u{d}  issuer      ${ourIssuer}\\u{1b}[2K\\u{202e}LMS\\u{85}\n`);
  t.equal(report.out.split('\n').length, 3, 'three lines: the name, the credential, the issuer');
});

t.test('--issuer must be an issuer id as a credential writes it', async (t) => {
  for (const bad of [
    'lms.example.org',
    'ftp://lms.example.org/credentials/issuer',
    'https://lms.example.org/a b',
    'https://LMS.example.org/x',
  ]) {
    const report = await verifyCommand(genuine, '--issuer', bad);
    t.equal(report.exit, 2, `--issuer ${bad}: a usage error`);
    t.match(report.err, /--issuer must be an absolute http\(s\) URL/);
  }
  const ok = await verifyCommand(genuine);
  t.equal(ok.exit, 0, 'our own credential, by default against this LMS');
  t.match(ok.out, `VALID: ${ours.name}`);
  t.equal((await verifyCommand(genuine, '--issuer', 'https://lms.example.org/credentials/issuer')).exit, 1, 'not that issuer');
});
