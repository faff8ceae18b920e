import { certificates } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { pdfText } from '../helpers/pdf.js';
import { earnCertificate } from '../credentials/world.js';
import { learningWorld } from '../learning/world.js';
import { sampleEvidence } from './fixtures.js';

// The certificate PDF prints the evidence it was issued on: the accreditation number with its
// credit (JPL, SKP...), the minutes and the pre/post scores, in both languages; a certificate
// from before evidence prints none of it.

t.test('the PDF prints the accreditation number, the units, the minutes and the scores', async (t) => {
  const w = await learningWorld(t);
  const code = await earnCertificate(w, w.learner.cookie);
  const pdf = (lang: string) =>
    w.app.inject({ url: `/learn/certificates/${w.course.id}/pdf`, headers: { cookie: w.learner.cookie, 'accept-language': lang } });
  // A certificate from before evidence existed (certificates.evidence null).
  await w.db.update(certificates).set({ evidence: null }).where(eq(certificates.code, code));
  const before = (await pdfText((await pdf('en')).rawPayload)).text;
  t.notOk(before.includes('Accreditation'), 'no evidence, no accreditation line');

  await w.db
    .update(certificates)
    .set({
      evidence: {
        ...sampleEvidence,
        accreditations: [
          ...sampleEvidence.accreditations,
          { scheme: 'KEMKES', unit: 'JPL', reference: 'PLATARAN/JPL/77', value: 3, validFrom: '2026-01-01T00:00:00Z', validUntil: null },
        ],
      },
    })
    .where(eq(certificates.code, code));
  const en = await pdf('en');
  t.equal(en.statusCode, 200);
  const text = (await pdfText(en.rawPayload)).text;
  t.ok(text.includes('SKP KEMKES/SKP/2026/0042: 2 SKP'), text);
  t.ok(text.includes('KEMKES PLATARAN/JPL/77: 3 JPL'), 'every accreditation');
  t.ok(text.includes('130 minutes (120 expected)'));
  t.ok(text.includes('Pre-test 40 · Post-test 85.5'));
  t.ok(text.includes(code), 'the code is still printed');
  const id = (await pdfText((await pdf('id')).rawPayload)).text;
  t.ok(id.includes('Akreditasi'));
  t.ok(id.includes('130 menit (diharapkan 120 menit)'));
  t.ok(id.includes('Post-test 85,5'), 'numbers as Indonesian writes them');
});
