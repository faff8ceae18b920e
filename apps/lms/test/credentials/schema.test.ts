import { readFileSync } from 'node:fs';
import Ajv2019 from 'ajv/dist/2019.js';
import addFormats from 'ajv-formats';
import t from 'tap';
import { download, earnCertificate, listeningWorld, parts } from './world.js';

// The credential as issued validates against 1EdTech's Open Badges 3.0 AchievementCredential JSON
// Schema, vendored with its source in test/fixtures/open-badges/README.md (draft 2019-09).
const schema = JSON.parse(
  readFileSync(new URL('../fixtures/open-badges/ob_v3p0_achievementcredential_schema.json', import.meta.url), 'utf8'),
);

t.test('the downloaded credential validates against the OB 3.0 JSON Schema', async (t) => {
  t.equal(schema.$schema, 'https://json-schema.org/draft/2019-09/schema#');
  const ajv = new Ajv2019.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  const w = await listeningWorld(t);
  const code = await earnCertificate(w, w.learner.cookie);
  const { payload } = parts((await download(w, w.learner.cookie, code)).body);
  // The JWT claims (iss, jti, sub, nbf, iat) sit beside the credential's own properties.
  const credential = Object.fromEntries(Object.entries(payload).filter(([k]) => !['iss', 'jti', 'sub', 'nbf', 'iat', 'exp'].includes(k)));
  t.ok(validate(credential), JSON.stringify(validate.errors, null, 2));
  t.ok(validate(payload), 'the JWT payload as a whole too (the schema allows more properties)');

  const broken = structuredClone(credential) as { credentialSubject: { identifier: { identityType: string }[] } };
  broken.credentialSubject.identifier[0]!.identityType = 'e-mail';
  t.notOk(validate(broken), 'the schema is really checking (a wrong identityType fails)');
});
