import { users } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { pdfText } from '../helpers/pdf.js';
import { learningWorld } from '../learning/world.js';
import { accredit, seedEvidence } from './fixtures.js';

// A member's yearly statement per scheme, linked from their credits page: the year's credits in
// that scheme with the accreditation number, course, date, certificate code and units, as PDF and
// CSV; only their own; other years and voided credits left out; a wrong query is a 404 page.

const w = await learningWorld(t);
const db = w.db;
const courseId = w.course.id;
const chapterId = w.chapterList[0]!.id;
const accreditationId = await accredit(db, courseId, 'SKP-IAI', 'IAI/PPL/2026/15', 3);
const me = w.learner;
await db.update(users).set({ membershipId: 'IAI-0042', name: 'Sari Akuntan' }).where(eq(users.id, me.user.id));
const code = await seedEvidence(db, {
  courseId,
  chapterId,
  userId: me.user.id,
  certificate: { issuedAt: new Date('2026-05-10T03:00:00Z'), credit: { scheme: 'SKP-IAI', accreditationId, amount: 3 } },
});
const other = await w.newLearner();
const otherCode = await seedEvidence(db, {
  courseId,
  chapterId,
  userId: other.user.id,
  certificate: { issuedAt: new Date('2026-05-11T03:00:00Z'), credit: { scheme: 'SKP-IAI', accreditationId, amount: 3 } },
});
const get = (cookie: string, url: string, lang = 'en') => w.app.inject({ url, headers: { cookie, 'accept-language': lang } });

t.test('the statement as CSV and PDF, linked from the credits page', async (t) => {
  const page = await get(me.cookie, '/learn/credits');
  t.match(page.body, 'href="/learn/credits/statement.pdf?year=2026&amp;scheme=SKP-IAI"');
  const csv = await get(me.cookie, '/learn/credits/statement.csv?year=2026&scheme=SKP-IAI');
  t.equal(csv.statusCode, 200);
  t.equal(csv.headers['content-disposition'], 'attachment; filename="credit-statement-SKP-IAI-2026.csv"');
  t.match(csv.body, `"2026-05-10","IAI/PPL/2026/15","${'Course'}`);
  t.match(csv.body, `"${code}",3\r\n`);
  t.match(csv.body, '"Total",,,,3\r\n');
  t.notMatch(csv.body, otherCode!, "nobody else's credit");
  const idCsv = await get(me.cookie, '/learn/credits/statement.csv?year=2026&scheme=SKP-IAI', 'id');
  t.match(idCsv.body, '"Jumlah";;;;3', 'the Indonesian dialect: ; separated');
  const pdf = await get(me.cookie, '/learn/credits/statement.pdf?year=2026&scheme=SKP-IAI');
  t.equal(pdf.statusCode, 200);
  const text = (await pdfText(pdf.rawPayload)).text;
  for (const s of [
    'SKP-IAI Credit Statement 2026',
    'Sari Akuntan',
    'IAI-0042',
    'IAI/PPL/2026/15',
    code!,
    'Total: 3 SKP',
    'Ikatan Akuntan Indonesia',
  ])
    t.ok(text.includes(s), s);
  const empty = (await pdfText((await get(me.cookie, '/learn/credits/statement.pdf?year=2025&scheme=SKP-IAI')).rawPayload)).text;
  t.ok(empty.includes('No credit this year.'), 'another year: none');
});

t.test('wrong queries are 404 pages; signed out goes to sign-in', async (t) => {
  for (const q of ['', '?year=2026', '?scheme=SKP', '?year=1999&scheme=SKP', '?year=2026&scheme=%3Dcmd', '?year=2026&scheme=SKP&x=1'])
    t.equal((await get(me.cookie, `/learn/credits/statement.csv${q}`)).statusCode, 404, q);
  t.equal((await w.app.inject({ url: '/learn/credits/statement.pdf?year=2026&scheme=SKP' })).statusCode, 302);
});
