import { certificates, courses, credits, partnerEvents, users } from '@lms/db';
import { and, asc, eq } from 'drizzle-orm';
import t from 'tap';
import { runCli } from '../../src/cli/run.js';
import { certificateFileName } from '../../src/documents/certificate-pdf.js';
import { testConfig } from '../../src/testing.js';
import { scratchDataDir } from '../helpers/cli.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { pdfQrCodes, pdfText } from '../helpers/pdf.js';
import { registerPartner } from '../helpers/sso.js';
import { addEndpointRow, giveIdentity, receiver } from '../partner-events/fixtures.js';
import { finishAllButFinal, learningWorld, takeQuiz } from './world.js';

// The certificate as a document and as a record others act on: the holder's PDF (its text and
// QR code read back with pdf.js and jsQR), the public page (valid, revoked, expired; private
// certificates show nothing of the person), the holder's privacy choice, the admins' revoke and
// reissue forms with their refusals, the CLI's reissue, and the partner events they enqueue.

const w = await learningWorld(t);
const ORIGIN = 'http://localhost:3000';
const NAME = 'Ñoman Siregar-Pétrus';
const MEMBERSHIP = 'PKB-777001';
const EMAIL = 'noman.petrus@example.test';
const BASE = w.app.config.PUBLIC_URL.replace(/\/$/, '');
const courseId = w.course.id;
const institutionId = w.course.institutionId;
const COURSE = 'Etika Profesi Akuntan: Édisi 2026';
await w.db.update(users).set({ name: NAME, membershipId: MEMBERSHIP, email: EMAIL }).where(eq(users.id, w.learner.user.id));
await w.db.update(courses).set({ name: COURSE }).where(eq(courses.id, w.course.id));

// The holder's partner hears of revocations and reissues (an endpoint on the loopback).
const hook = await receiver(t);
const partner = await registerPartner(w.db, { issuer: 'docs.example.org' });
await giveIdentity(w.db, w.learner.user.id, 'docs.example.org', 'D-0001');
await addEndpointRow(w.db, partner, hook.url);

const person = async (role: 'student' | 'teacher' | 'admin' | 'super_admin', inst: number | null = null) => {
  const user = await makeUser(w.db, { role, institutionId: inst });
  return { user, cookie: await sessionCookieFor(w.app, user.id, 30 * 86_400_000) };
};
const admin = await person('admin', institutionId);
const superAdmin = await person('super_admin');
const otherInstitution = await makeInstitution(w.db, 'Other Institution');
const foreignAdmin = await person('admin', otherInstitution);
const owner = { user: w.teacher, cookie: await sessionCookieFor(w.app, w.teacher.id, 30 * 86_400_000) };
const otherLearner = await w.newLearner();

function get(cookie: string | null, url: string, lang = 'en', extra: Record<string, string> = {}) {
  return w.app.inject({ url, headers: { ...(cookie ? { cookie } : {}), 'accept-language': lang, ...extra } });
}
function form(
  cookie: string | null,
  url: string,
  fields: Record<string, string> = {},
  headers: Record<string, string> = { origin: ORIGIN },
) {
  return w.app.inject({
    method: 'POST',
    url,
    headers: { ...(cookie ? { cookie } : {}), 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}
const rowOf = async (code: string) => (await w.db.select().from(certificates).where(eq(certificates.code, code)))[0]!;
const eventsOf = async (type: string) =>
  w.db
    .select()
    .from(partnerEvents)
    .where(and(eq(partnerEvents.type, type), eq(partnerEvents.userId, w.learner.user.id)))
    .orderBy(asc(partnerEvents.seq));

// The learner earns the certificate.
await finishAllButFinal(w, w.learner.cookie);
const passed = await takeQuiz(w.app, w.learner.cookie, w.tree.finalQuizId, 'a');
const code = passed.json().certificateCode as string;
const pdfUrl = `/learn/certificates/${courseId}/pdf`;
const learnerPage = `/dashboard/courses/${courseId}/learners/${w.learner.user.id}`;
const revokeUrl = (c: string) => `${learnerPage}/certificates/${c}/revoke`;
const reissueUrl = (c: string) => `${learnerPage}/certificates/${c}/reissue`;

t.test('the PDF: its text (name with diacritics, course, institution, KUM, code, URL) and its QR code, in both languages', async (t) => {
  t.match(code, /^[0-9a-f]{32}$/);
  const res = await get(w.learner.cookie, pdfUrl, 'en');
  t.equal(res.statusCode, 200, 'the holder gets it');
  t.equal(res.headers['content-type'], 'application/pdf');
  t.match(res.headers['content-disposition'], /^attachment; filename="certificate-[a-z0-9-]+-[0-9a-f]{8}\.pdf"$/);
  t.equal(res.headers['cache-control'], 'no-store');
  const bytes = res.rawPayload;
  t.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-', 'starts with %PDF');
  const doc = await pdfText(bytes);
  t.equal(doc.pages, 1);
  t.ok(doc.width > doc.height, `landscape (${doc.width}×${doc.height})`);
  t.ok(Math.abs(doc.width - 841.89) < 1 && Math.abs(doc.height - 595.28) < 1, 'A4');
  const url = `${BASE}/certificates/${code}`;
  for (const expected of [NAME, COURSE, 'Test Institution', '4.5 KUM', code, url, 'CERTIFICATE', 'Valid']) {
    t.ok(doc.text.includes(expected), `the text has “${expected}”`);
  }
  t.notOk(doc.text.includes(MEMBERSHIP), 'no membership number');
  t.notOk(doc.text.includes(EMAIL), 'no e-mail');
  t.same(await pdfQrCodes(bytes), [url], 'the QR code decodes to the verification URL');

  const id = await get(w.learner.cookie, pdfUrl, 'id');
  t.equal(id.statusCode, 200);
  t.match(id.headers['content-disposition'], /filename="sertifikat-/);
  const idText = (await pdfText(id.rawPayload)).text;
  for (const expected of ['SERTIFIKAT', 'Diberikan kepada', NAME, '4,5 KUM', 'Sah', url])
    t.ok(idText.includes(expected), `id: “${expected}”`);

  const printable = await get(w.learner.cookie, `/learn/certificates/${courseId}`, 'en');
  t.match(printable.body, `href="/learn/certificates/${courseId}/pdf"`, 'the printable page links the PDF');
  t.match(printable.body, 'Download PDF');
});

t.test('the file name is safe whatever the course is called', async (t) => {
  t.equal(
    certificateFileName({ courseName: 'Etika "Profesi"\r\nX: ../../étude', code: 'ab'.repeat(16) }, 'certificate'),
    'certificate-etika-profesi-x-etude-abababab.pdf',
  );
  t.equal(certificateFileName({ courseName: '数学', code: 'cd'.repeat(16) }, 'sertifikat'), 'sertifikat-cdcdcdcd.pdf');
});

t.test("attackers: another person's PDF by course id is refused as the printable page refuses it", async (t) => {
  t.equal((await get(otherLearner.cookie, pdfUrl)).statusCode, 404, 'another member: 404 page');
  t.equal((await get(foreignAdmin.cookie, pdfUrl)).statusCode, 404, 'an admin of another institution: 404 page');
  t.equal((await get(admin.cookie, pdfUrl)).statusCode, 404, "the course institution's admin: not theirs either");
  t.equal((await get(superAdmin.cookie, pdfUrl)).statusCode, 404, 'a super_admin: not theirs');
  const anonymous = await get(null, pdfUrl);
  t.equal(anonymous.statusCode, 302, 'anonymous: to sign-in');
  t.equal(anonymous.headers.location, '/sign-in');
  const key = await apiKeyFor(w.db, owner.user.id);
  const byKey = await get(null, pdfUrl, 'en', { 'x-api-key': key });
  t.not(byKey.statusCode, 200, 'an API key opens no page');
  t.not(byKey.headers['content-type'], 'application/pdf');
  for (const bad of ['0', '-1', '2147483648', 'abc'])
    t.equal((await get(w.learner.cookie, `/learn/certificates/${bad}/pdf`)).statusCode, 404, bad);
});

t.test('the public page: valid with issuer, course, date, KUM; never the membership number or e-mail', async (t) => {
  for (const lang of ['en', 'id']) {
    const res = await get(null, `/certificates/${code}`, lang);
    t.equal(res.statusCode, 200);
    t.match(res.body, lang === 'en' ? 'This certificate is valid.' : 'Sertifikat ini sah.');
    t.match(res.body, 'Ñoman Siregar-Pétrus');
    t.match(res.body, COURSE);
    t.match(res.body, 'Test Institution');
    t.match(res.body, lang === 'en' ? '4.5 KUM' : '4,5 KUM');
    t.notMatch(res.body, MEMBERSHIP);
    t.notMatch(res.body, EMAIL);
  }
});

t.test('privacy: only the holder, by a same-origin form; a private certificate shows only that it exists and its status', async (t) => {
  const privacyUrl = `/learn/certificates/${courseId}/privacy`;
  t.equal((await rowOf(code)).isPrivate, false, 'public by default');
  const crossSite = await form(w.learner.cookie, privacyUrl, { visibility: 'private' }, {});
  t.equal(crossSite.statusCode, 403, 'no Origin nor Sec-Fetch-Site: refused');
  t.equal((await form(w.learner.cookie, privacyUrl, { visibility: 'private' }, { origin: 'https://evil.example' })).statusCode, 403);
  t.equal((await rowOf(code)).isPrivate, false, 'unchanged');
  t.equal((await form(otherLearner.cookie, privacyUrl, { visibility: 'private' })).statusCode, 404, 'another member: their own (none)');
  t.equal((await form(admin.cookie, privacyUrl, { visibility: 'private' })).statusCode, 404, 'an admin: not theirs');
  t.equal((await form(null, privacyUrl, { visibility: 'private' })).statusCode, 302, 'anonymous: to sign-in');
  t.equal((await form(w.learner.cookie, privacyUrl, { visibility: 'secret' })).statusCode, 404, 'a wrong value');
  t.equal((await rowOf(code)).isPrivate, false, 'still unchanged');

  const done = await form(w.learner.cookie, privacyUrl, { visibility: 'private' });
  t.equal(done.statusCode, 303);
  t.equal(done.headers.location, `/learn/certificates/${courseId}?privacy=saved#privacy`);
  t.equal((await rowOf(code)).isPrivate, true);
  const own = await get(w.learner.cookie, `/learn/certificates/${courseId}?privacy=saved`, 'en');
  t.match(own.body, 'Your choice is saved.');
  t.match(own.body, 'Make public');

  for (const lang of ['en', 'id']) {
    const pub = await get(null, `/certificates/${code}`, lang);
    t.equal(pub.statusCode, 200);
    t.match(pub.body, lang === 'en' ? 'A certificate with this code exists.' : 'Sertifikat dengan kode ini ada.');
    t.match(pub.body, lang === 'en' ? 'This certificate is valid.' : 'Sertifikat ini sah.');
    t.notMatch(pub.body, 'Ñoman', 'no name');
    t.notMatch(pub.body, 'Siregar');
    t.notMatch(pub.body, COURSE, 'no course');
    t.notMatch(pub.body, 'Test Institution');
    t.notMatch(pub.body, MEMBERSHIP);
    t.notMatch(pub.body, EMAIL);
  }
});

t.test('admins revoke: refusals first (nothing changes), then a reason, the public page, the PDF, the partner event', async (t) => {
  const before = await rowOf(code);
  const unchanged = async (why: string) => {
    const now = await rowOf(code);
    t.same([now.revokedAt, now.revokedReason], [null, null], `${why}: not revoked`);
  };
  const fields = { reason: 'Plagiarism found' };
  const ownerTry = await form(owner.cookie, revokeUrl(code), fields);
  t.equal(ownerTry.statusCode, 403, "the course's own teacher may not revoke (an institution's act)");
  await unchanged('owner teacher');
  t.equal((await form(foreignAdmin.cookie, revokeUrl(code), fields)).statusCode, 403, 'an admin of another institution');
  await unchanged('foreign admin');
  t.equal((await form(w.learner.cookie, revokeUrl(code), fields)).statusCode, 403, 'the holder');
  t.equal((await form(otherLearner.cookie, revokeUrl(code), fields)).statusCode, 403, 'another member');
  t.equal((await form(null, revokeUrl(code), fields)).statusCode, 302, 'anonymous: to sign-in');
  const key = await apiKeyFor(w.db, admin.user.id);
  const byKey = await form(null, revokeUrl(code), fields, { origin: ORIGIN, 'x-api-key': key });
  t.ok([302, 401, 403, 404].includes(byKey.statusCode), `an API key: refused (${byKey.statusCode})`);
  await unchanged('others');
  t.equal((await form(admin.cookie, revokeUrl(code), fields, {})).statusCode, 403, 'CSRF: no Origin, no Sec-Fetch-Site');
  t.equal((await form(admin.cookie, revokeUrl(code), fields, { origin: 'https://evil.example' })).statusCode, 403, 'CSRF: foreign Origin');
  await unchanged('cross-site');
  // Another learner's certificate named under this learner: not found.
  const theirs = `${'0'.repeat(31)}1`;
  t.equal((await form(admin.cookie, revokeUrl(theirs), fields)).statusCode, 404, 'a code that is not this learner’s');
  t.equal(
    (await form(admin.cookie, `/dashboard/courses/${courseId}/learners/${otherLearner.user.id}/certificates/${code}/revoke`, fields))
      .statusCode,
    404,
    'this code under another learner',
  );

  for (const [what, reason] of [
    ['empty', ''],
    ['blank', '   '],
    ['10,000 characters', 'x'.repeat(10_000)],
    ['NUL', 'bad\u0000reason'],
  ] as const) {
    const res = await form(admin.cookie, revokeUrl(code), { reason });
    t.equal(res.statusCode, 303, what);
    t.equal(res.headers.location, `${learnerPage}?certificate=reason-invalid#certificate`, `${what}: said on the page`);
    await unchanged(what);
  }
  const said = await get(admin.cookie, `${learnerPage}?certificate=reason-invalid`, 'en');
  t.match(said.body, 'A reason is required: 1–500 characters');
  t.same(await rowOf(code), before, 'the row is as it was');
  t.same(await eventsOf('certificate.revoked'), [], 'no event');

  // The learner page shows the form to the admin, not to the owner teacher.
  const adminView = await get(admin.cookie, learnerPage, 'en');
  t.match(adminView.body, `action="${revokeUrl(code)}"`);
  const ownerView = await get(owner.cookie, learnerPage, 'en');
  t.equal(ownerView.statusCode, 200);
  t.notMatch(ownerView.body, '/revoke"', 'no revoke form for the teacher');
  t.match(ownerView.body, 'Only an admin of the course');

  w.time.set(Date.parse('2026-03-20T03:00:00Z'));
  const revoked = await form(admin.cookie, revokeUrl(code), { reason: 'Plagiarism found' });
  t.equal(revoked.statusCode, 303);
  t.equal(revoked.headers.location, `${learnerPage}?certificate=revoked#certificate`);
  const row = await rowOf(code);
  t.same([row.revokedAt?.toISOString(), row.revokedReason], ['2026-03-20T03:00:00.000Z', 'Plagiarism found']);
  const credit = (await w.db.select().from(credits).where(eq(credits.certificateId, row.id)))[0];
  t.ok(credit?.voidedAt, 'its credit is voided');
  t.match((await get(admin.cookie, `${learnerPage}?certificate=revoked`, 'en')).body, 'The certificate is revoked.');
  t.equal(
    (await form(admin.cookie, revokeUrl(code), { reason: 'again' })).headers.location,
    `${learnerPage}?certificate=already#certificate`,
  );

  // Private, so the public page says revoked with its date, and nothing of the person or the reason.
  const privatePage = await get(null, `/certificates/${code}`, 'en');
  t.match(privatePage.body, 'This certificate was revoked on 20 March 2026.');
  t.notMatch(privatePage.body, 'Plagiarism');
  t.notMatch(privatePage.body, 'Ñoman');
  // Public again: revoked, with date and reason.
  t.equal((await form(w.learner.cookie, `/learn/certificates/${courseId}/privacy`, { visibility: 'public' })).statusCode, 303);
  for (const [lang, text] of [
    ['en', 'This certificate was revoked on 20 March 2026. Reason: Plagiarism found'],
    ['id', 'Sertifikat ini dicabut pada 20 Maret 2026. Alasan: Plagiarism found'],
  ] as const) {
    const pub = await get(null, `/certificates/${code}`, lang);
    t.match(pub.body, text, lang);
    t.notMatch(pub.body, /This certificate is valid|Sertifikat ini sah/);
    t.notMatch(pub.body, MEMBERSHIP);
    t.notMatch(pub.body, EMAIL);
  }
  const pdf = (await pdfText((await get(w.learner.cookie, pdfUrl, 'en')).rawPayload)).text;
  t.ok(pdf.includes('REVOKED on 20 March 2026'), 'the PDF says revoked');
  t.ok(pdf.includes('Revoked (20 March 2026)'), 'in its status line too');
  t.notOk(pdf.includes('Valid'), 'and nowhere valid');
  const own = await get(w.learner.cookie, `/learn/certificates/${courseId}`, 'en');
  t.match(own.body, 'This certificate was revoked on 20 March 2026.', "the holder's page says so");

  const events = await eventsOf('certificate.revoked');
  t.equal(events.length, 1, 'certificate.revoked enqueued once');
  t.match(events[0]!.data, { certificate: { code, reason: 'Plagiarism found' }, member: { membershipId: 'D-0001' } });
});

t.test('admins reissue: refusals, then a new certificate; certificate.issued enqueued; the old one stays revoked', async (t) => {
  const issuedBefore = (await eventsOf('certificate.issued')).length;
  const count = async () => (await w.db.select().from(certificates).where(eq(certificates.userId, w.learner.user.id))).length;
  t.equal(await count(), 1);
  t.equal((await form(owner.cookie, reissueUrl(code))).statusCode, 403, 'owner teacher');
  t.equal((await form(foreignAdmin.cookie, reissueUrl(code))).statusCode, 403, 'admin of another institution');
  t.equal((await form(w.learner.cookie, reissueUrl(code))).statusCode, 403, 'the holder');
  t.equal((await form(superAdmin.cookie, reissueUrl(code), {}, {})).statusCode, 403, 'CSRF missing');
  t.equal(await count(), 1, 'nothing issued');
  t.match((await get(admin.cookie, learnerPage, 'en')).body, `action="${reissueUrl(code)}"`, 'the reissue button');

  w.time.set(Date.parse('2026-03-21T03:00:00Z'));
  const done = await form(superAdmin.cookie, reissueUrl(code));
  t.equal(done.statusCode, 303);
  t.equal(done.headers.location, `${learnerPage}?certificate=reissued#certificate`);
  const all = await w.db.select().from(certificates).where(eq(certificates.userId, w.learner.user.id)).orderBy(asc(certificates.id));
  t.equal(all.length, 2);
  const [old, fresh] = all as [(typeof all)[0], (typeof all)[0]];
  t.ok(old.revokedAt, 'the old one stays revoked');
  t.same([fresh.revokedAt, fresh.reissuedFrom, fresh.kum], [null, old.id, 4.5]);
  t.equal(
    (await form(admin.cookie, reissueUrl(code))).headers.location,
    `${learnerPage}?certificate=exists#certificate`,
    'twice: one in force',
  );
  t.equal(await count(), 2);
  const issued = await eventsOf('certificate.issued');
  t.equal(issued.length, issuedBefore + 1, 'certificate.issued enqueued');
  t.match(issued.at(-1)!.data, { certificate: { code: fresh.code, kum: 4.5 } });

  // The old code's page: revoked, and no word of the new one (it would tell who holds what).
  const oldPage = await get(null, `/certificates/${code}`, 'en');
  t.match(oldPage.body, 'revoked');
  t.notMatch(oldPage.body, fresh.code);
  t.match((await get(null, `/certificates/${fresh.code}`, 'en')).body, 'This certificate is valid.');
  // The holder's page and PDF are the new one's.
  const pdf = await get(w.learner.cookie, pdfUrl, 'en');
  t.same(await pdfQrCodes(pdf.rawPayload), [`${BASE}/certificates/${fresh.code}`]);
  // The learners list: one row for the learner, with the certificate in force.
  const list = await get(admin.cookie, `/dashboard/courses/${courseId}/learners`, 'en');
  t.equal(list.body.split(`href="/certificates/${fresh.code}"`).length, 2, 'one row');
  t.notMatch(list.body, `href="/certificates/${code}"`);
  t.match(list.body, `href="${learnerPage}#certificate"`, 'the row links to where the certificate is managed');
});

t.test('expired: the public page, the PDF and the learners list say so, with the date', async (t) => {
  const learner = await w.newLearner();
  await finishAllButFinal(w, learner.cookie);
  const c = (await takeQuiz(w.app, learner.cookie, w.tree.finalQuizId, 'a')).json().certificateCode as string;
  await w.db
    .update(certificates)
    .set({ expiresAt: new Date('2026-03-15T00:00:00Z') })
    .where(eq(certificates.code, c));
  for (const [lang, text] of [
    ['en', 'This certificate expired on 15 March 2026.'],
    ['id', 'Masa berlaku sertifikat ini berakhir pada 15 Maret 2026.'],
  ] as const) {
    const pub = await get(null, `/certificates/${c}`, lang);
    t.equal(pub.statusCode, 200);
    t.match(pub.body, text);
    t.notMatch(pub.body, /This certificate is valid|Sertifikat ini sah/);
  }
  const pdf = (await pdfText((await get(learner.cookie, pdfUrl, 'en')).rawPayload)).text;
  t.ok(pdf.includes('EXPIRED on 15 March 2026'), 'the PDF says expired');
  const list = await get(admin.cookie, `/dashboard/courses/${courseId}/learners`, 'en');
  t.match(list.body, 'status-expired');
});

t.test('CLI: certificate reissue CODE next to revoke', async (t) => {
  const learner = await w.newLearner();
  await finishAllButFinal(w, learner.cookie);
  const c = (await takeQuiz(w.app, learner.cookie, w.tree.finalQuizId, 'a')).json().certificateCode as string;
  const DATA_DIR = scratchDataDir();
  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const exit = await runCli(argv, {
      io: { out: (l) => out.push(l), err: (l) => err.push(l), progress: () => {}, isTty: false },
      config: testConfig({ DATA_DIR, ...(w.dbHandle.url ? { DATABASE_URL: w.dbHandle.url } : {}) }),
      ...(w.dbHandle.url ? {} : { db: w.dbHandle }),
      now: () => w.time.clock(),
    });
    return { exit, out: out.join('\n'), err: err.join('\n') };
  };
  t.equal((await cli('certificate', 'reissue', c)).exit, 1, 'in force: revoke first');
  t.equal((await cli('certificate', 'revoke', c, '--reason', '   ')).exit, 2, 'a blank reason');
  t.equal((await cli('certificate', 'revoke', c, '--reason', 'x'.repeat(501))).exit, 2, 'an overlong reason');
  t.equal((await cli('certificate', 'revoke', c, '--reason', 'Wrong name')).exit, 0);
  const again = await cli('certificate', 'reissue', c);
  t.equal(again.exit, 0, again.err);
  t.match(again.out, /^[0-9a-f]{32}$/);
  t.not(again.out, c);
  t.match((await cli('certificate', 'reissue', c)).err, /already holds certificate/);
  t.match((await cli('certificate', 'reissue', 'f'.repeat(32))).err, /no certificate/);
  t.equal((await cli('certificate', 'reissue')).exit, 2, 'no code');
});
