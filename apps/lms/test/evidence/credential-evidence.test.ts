import { readFileSync } from 'node:fs';
import { certificates } from '@lms/db';
import Ajv2019 from 'ajv/dist/2019.js';
import addFormats from 'ajv-formats';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { verifyCredential } from '../../src/domain/credentials/verify.js';
import { download, earnCertificate, listeningWorld, parts } from '../credentials/world.js';
import { sampleEvidence } from './fixtures.js';

// A certificate issued on evidence carries it in its Open Badges 3.0 credential: `evidence` (the
// accreditation reference, minutes, units), the subject's `result` (pre-test, post-test, minutes)
// pointing at the achievement's `resultDescription`; it still validates against the OB 3.0 JSON
// Schema and verifies with the published keys over HTTP.

const schema = JSON.parse(
  readFileSync(new URL('../fixtures/open-badges/ob_v3p0_achievementcredential_schema.json', import.meta.url), 'utf8'),
);
const ajv = new Ajv2019.default({ allErrors: true, strict: false });
addFormats.default(ajv);
const validate = ajv.compile(schema);

t.test('evidence and results in the credential: schema-valid and verified', async (t) => {
  const w = await listeningWorld(t);
  const code = await earnCertificate(w, w.learner.cookie);
  await w.db.update(certificates).set({ evidence: sampleEvidence }).where(eq(certificates.code, code));
  const jwt = (await download(w, w.learner.cookie, code)).body;
  const { payload } = parts(jwt);
  const credential = Object.fromEntries(Object.entries(payload).filter(([k]) => !['iss', 'jti', 'sub', 'nbf', 'iat', 'exp'].includes(k)));
  t.ok(validate(credential), JSON.stringify(validate.errors, null, 2));

  const evidence = payload.evidence as { type: string[]; name: string; narrative: string; description: string }[];
  t.equal(evidence.length, 2, 'one per accreditation and one for the time');
  t.same(evidence[0]!.type, ['Evidence']);
  t.match(evidence[0]!.name, /KEMKES\/SKP\/2026\/0042/);
  t.match(evidence[0]!.narrative, /2 SKP/);
  t.match(evidence[0]!.narrative, /130 active minutes of 120 expected/);
  t.match(evidence[0]!.narrative, /pre-test 40, post-test 85\.5/);

  const subject = payload.credentialSubject as {
    result: { type: string[]; resultDescription: string; value: string }[];
    achievement: { id: string; resultDescription: { id: string; name: string; resultType: string }[] };
  };
  const described = new Map(subject.achievement.resultDescription.map((d) => [d.id, d]));
  t.same(
    subject.result.map((r) => [described.get(r.resultDescription)?.name, r.value]),
    [
      ['Pre-test score', '40'],
      ['Post-test score', '85.5'],
      ['Active minutes on the course', '130'],
    ],
    'every result names a description in the achievement',
  );
  t.ok(subject.result.every((r) => r.type[0] === 'Result'));

  t.match(await verifyCredential(jwt, { issuer: `${w.base}/credentials/issuer`, now: w.time.clock() }), { status: 'valid' });

  const broken = structuredClone(credential) as { evidence: { type: string[] }[] };
  broken.evidence[0]!.type = ['Proof'];
  t.notOk(validate(broken), 'the schema checks the evidence (a wrong type fails)');
});

t.test('a certificate without evidence, or without scores, writes no empty parts', async (t) => {
  const w = await listeningWorld(t);
  const code = await earnCertificate(w, w.learner.cookie);
  // A certificate from before evidence existed (certificates.evidence null).
  await w.db.update(certificates).set({ evidence: null }).where(eq(certificates.code, code));
  const plain = parts((await download(w, w.learner.cookie, code)).body).payload;
  t.notOk('evidence' in plain);
  t.notOk('result' in (plain.credentialSubject as object));
  await w.db
    .update(certificates)
    .set({ evidence: { ...sampleEvidence, preTestScore: null, postTestScore: null, accreditations: [] } })
    .where(eq(certificates.code, code));
  const { payload } = parts((await download(w, w.learner.cookie, code)).body);
  const credential = Object.fromEntries(Object.entries(payload).filter(([k]) => !['iss', 'jti', 'sub', 'nbf', 'iat', 'exp'].includes(k)));
  t.ok(validate(credential), JSON.stringify(validate.errors, null, 2));
  t.equal((payload.evidence as unknown[]).length, 1, 'only the time');
  t.same(
    (payload.credentialSubject as { result: { value: string }[] }).result.map((r) => r.value),
    ['130'],
  );
});
