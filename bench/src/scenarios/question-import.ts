import { type AuthoringContext, importQuestions } from '@lms/lms/authoring';
import { runInCreationTransaction } from '@lms/lms/idempotency';
import { createSession, findSession } from '@lms/lms/sessions';
import { users } from '@lms/db';
import { sql } from 'drizzle-orm';
import { runLoop } from '../load.js';
import { log } from '../options.js';
import type { PairSide } from '../runner.js';
import type { ScenarioContext } from './context.js';

const QUESTIONS = 50;
const COURSES = 500;

/** A GIFT text of `n` questions: single choice, true/false, short answer, with titles, feedback and a category. */
function giftText(n: number): string {
  const kinds = [
    (i: number) => `::s${i}:: Siapa penanda tangan laporan audit nomor ${i}? {=Akuntan publik#ya ~Direksi ~Komisaris ~Pemegang saham}`,
    (i: number) => `::t${i}:: Laba periode ${i} bisa negatif. {T}`,
    (i: number) => `::j${i}:: Singkatan PSAK (soal ${i})? {=Pernyataan Standar Akuntansi Keuangan####Lihat bab 1.}`,
  ];
  return ['$CATEGORY: $course$/bench', ...Array.from({ length: n }, (_, i) => kinds[i % 3](i))].join('\n\n');
}

/**
 * Row 13q: POST /api/courses/{id}/question-imports, a GIFT text of 50 questions into a course's
 * bank (one transaction), against its SQL: importQuestions() called directly, in a transaction as
 * the route runs it, after the same session lookup. Each request goes to the next of 500 courses
 * (a bank holds 2,000 questions: 40 imports each); the banks are emptied afterwards.
 */
export async function questionImportScenario(ctx: ScenarioContext) {
  const { run, lms, filled } = ctx;
  const db = filled.handle.db;
  const email = 'bench-importer@bench.test';
  await db.insert(users).values({ email, name: 'Bench Importer', role: 'super_admin' }).onConflictDoNothing();
  const [author] = await db.select({ id: users.id }).from(users).where(sql`${users.email} = ${email}`);
  const session = await createSession(db, author.id, new Date(), 86_400_000);
  const actx = (): AuthoringContext => ({
    author: { kind: 'session', userId: author.id, role: 'super_admin' },
    now: new Date(),
    requestId: null,
  });
  const courseIds = (await db.execute<{ id: number }>(sql`select id from courses order by id limit ${COURSES}`)).rows.map((r) =>
    Number(r.id),
  );
  const text = giftText(QUESTIONS);
  const body = { format: 'gift' as const, text, quizId: null, tags: ['bench'] };
  log(`13q: a GIFT text of ${QUESTIONS} questions, ${(text.length / 1024).toFixed(0)} KB, into ${courseIds.length} courses' banks`);
  let next = 0;
  const course = () => courseIds[next++ % courseIds.length];
  const direct: PairSide = {
    key: 'its SQL: importQuestions() called directly',
    ready: async () => null,
    side: () => ({
      run: (seconds) =>
        runLoop(
          async () => {
            await findSession(db, session.tokenHash, new Date());
            await runInCreationTransaction(db, async (tx) => {
              await importQuestions(tx, actx(), course(), body);
              return { statusCode: 201, body: null };
            });
          },
          1,
          seconds,
        ),
    }),
  };
  try {
    await run.comparePaired(
      {
        id: '13q',
        scenario: `POST /api/courses/{id}/question-imports, GIFT, ${QUESTIONS} questions into the bank (1 connection)`,
        baselineName: 'its SQL: importQuestions() called directly',
        kind: 'throughput',
        target: { minRatio: 0.6 },
      },
      run.httpSide('question import', {
        url: lms.url,
        path: `/api/courses/${courseIds[0]}/question-imports`,
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `${lms.cookieName}=${session.token}`, 'x-requested-with': 'bench' },
        body: JSON.stringify(body),
        connections: 1,
        expect: 201,
        perRequest: () => ({ path: `/api/courses/${course()}/question-imports`, body: JSON.stringify(body) }),
      }),
      direct,
    );
  } finally {
    await db.execute(sql`delete from bank_questions where 'bench' = any(tags)`);
  }
}
