import { CourseDocument } from '@lms/contracts';
import { users } from '@lms/db';
import { type AuthoringContext, exportCourse, importNewCourse, updateChapter } from '@lms/lms/authoring';
import { runInCreationTransaction } from '@lms/lms/idempotency';
import { createSession, findSession } from '@lms/lms/sessions';
import { sql } from 'drizzle-orm';
import type { Child } from '../apps-under-test.js';
import type { FilledDb } from '../fill.js';
import { type HttpLoad, runHttp, runLoop } from '../load.js';
import { CONNECTIONS, log } from '../options.js';
import { type PairSide, probe } from '../runner.js';
import type { ScenarioContext } from './context.js';

/** The bench's author: a super_admin (authors any course), with a session as a browser has it. */
async function benchAuthor(db: FilledDb['handle']['db'], lms: Child) {
  const email = 'bench-author@bench.test';
  await db.insert(users).values({ email, name: 'Bench Author', role: 'super_admin' }).onConflictDoNothing();
  const [author] = await db.select({ id: users.id }).from(users).where(sql`${users.email} = ${email}`);
  const session = await createSession(db, author.id, new Date(), 86_400_000);
  const ctx = (): AuthoringContext => ({
    author: { kind: 'session', userId: author.id, role: 'super_admin' },
    now: new Date(),
    requestId: null,
  });
  return { cookie: `${lms.cookieName}=${session.token}`, tokenHash: session.tokenHash, ctx };
}

/** A load side that calls a function in a closed loop of `workers` (a domain function called directly). */
const directSide = (key: string, op: () => Promise<void>, workers: number): PairSide => ({
  key,
  ready: async () => {
    await op();
    return null;
  },
  side: () => ({ run: (seconds) => runLoop(op, workers, seconds) }),
});

const IMPORTED_NAME = 'Kursus impor (bench)';

/**
 * Rows 13: authoring (13s: the studio's chapter form against the same save through the API). A course imported from the bench's 10 x 10 course document, and one chapter
 * edit, each against its SQL: the same domain function called directly, in a transaction as the
 * route runs it, after the same session lookup, on a pool of the LMS's size. A write cannot be
 * recorded and replayed as the reads are (6q-12q): the statements of an import name the ids its
 * inserts generated, and an edit replayed with the same text changes nothing. Then the shared
 * catalog list while chapters are edited (each edit makes the instance compute its shared answers again).
 */
export async function authoringScenarios(ctx: ScenarioContext) {
  const { run, lms, filled, rotateKey } = ctx;
  const db = filled.handle.db;
  const detailCourseId = filled.detailCourseId;
  const author = await benchAuthor(db, lms);
  const write = { 'content-type': 'application/json', cookie: author.cookie, 'x-requested-with': 'bench' };
  const { document } = await exportCourse(db, author.ctx(), detailCourseId);
  const importDoc = { ...document, course: { ...document.course, name: IMPORTED_NAME, eventCode: null } };
  const importBody = JSON.stringify(importDoc);
  const parsed = CourseDocument.parse(importDoc);
  const chapters = document.modules.flatMap((m) => m.chapters);
  log(`13: the document of course ${detailCourseId}: ${chapters.length} chapters, ${(importBody.length / 1024).toFixed(0)} KB`);
  /** The route's statements around the domain's: the session, then the work in the route's transaction. */
  const asTheRouteDoes = async (work: Parameters<typeof runInCreationTransaction>[1]) => {
    await findSession(db, author.tokenHash, new Date());
    await runInCreationTransaction(db, work);
  };
  try {
    await run.comparePaired(
      {
        id: '13i',
        scenario: `POST /api/course-documents, the ${document.modules.length}x${document.modules[0]?.chapters.length ?? 0} course document (1 connection)`,
        baselineName: 'its SQL: importNewCourse() called directly',
        kind: 'throughput',
        target: { minRatio: 0.6 },
      },
      run.httpSide('import', {
        url: lms.url,
        path: '/api/course-documents',
        method: 'POST',
        headers: write,
        body: importBody,
        connections: 1,
        expect: 201,
      }),
      directSide(
        'its SQL: importNewCourse() called directly',
        () =>
          asTheRouteDoes(async (tx) => {
            await importNewCourse(tx, author.ctx(), parsed);
            return { statusCode: 201, body: null };
          }),
        1,
      ),
    );
  } finally {
    await db.execute(sql`delete from courses where name = ${IMPORTED_NAME}`);
  }

  // One chapter edit: each request writes another text into one of 10 chapters of 10 courses (10
  // connections); the author's writes to one course wait for each other (its row lock).
  const targets = (
    await db.execute<{ id: number }>(sql`
      select min(ch.id)::int as id from chapters ch join courses c on c.id = ch.course_id
      where c.id <> ${detailCourseId} group by ch.course_id order by ch.course_id limit 10`)
  ).rows.map((r) => Number(r.id));
  let edits = 0;
  const nextEdit = () => {
    edits += 1;
    return { id: targets[edits % targets.length], content: `Isi bab, suntingan ${edits}.\n\n**Bacaan** baru.` };
  };
  const EDIT_CONNECTIONS = 10;
  await run.comparePaired(
    {
      id: '13e',
      scenario: `PATCH /api/chapters/{id}, one chapter edit (${EDIT_CONNECTIONS} connections)`,
      baselineName: 'its SQL: updateChapter() called directly',
      kind: 'throughput',
      target: { minRatio: 0.6 },
    },
    run.httpSide('chapter edit', {
      url: lms.url,
      path: `/api/chapters/${targets[0]}`,
      method: 'PATCH',
      headers: write,
      body: JSON.stringify({ content: 'Isi bab, suntingan pertama.' }),
      connections: EDIT_CONNECTIONS,
      expect: 200,
      perRequest: () => {
        const edit = nextEdit();
        return { path: `/api/chapters/${edit.id}`, body: JSON.stringify({ content: edit.content }) };
      },
    }),
    directSide(
      'its SQL: updateChapter() called directly',
      () => {
        const edit = nextEdit();
        return asTheRouteDoes(async (tx) => {
          await updateChapter(tx, author.ctx(), edit.id, { content: edit.content });
          return { statusCode: 200, body: null };
        });
      },
      EDIT_CONNECTIONS,
    ),
  );

  // The same chapter save through the studio's plain HTML form (urlencoded, the form CSRF rule,
  // a 303 back to the editor) against the save through the authoring API: the studio calls the
  // same updateChapter(), so the two should cost about the same.
  const form = { 'content-type': 'application/x-www-form-urlencoded', cookie: author.cookie, 'sec-fetch-site': 'same-origin' };
  const formBody = (content: string) => new URLSearchParams({ action: 'save', name: 'Bab (bench)', content }).toString();
  await run.comparePaired(
    {
      id: '13s',
      scenario: `POST /dashboard/studio/chapters/{id}, the studio's chapter form (${EDIT_CONNECTIONS} connections)`,
      baselineName: 'PATCH /api/chapters/{id}, the same save through the authoring API',
      kind: 'throughput',
      target: { minRatio: 0.8 },
    },
    run.httpSide('studio chapter save', {
      url: lms.url,
      path: `/dashboard/studio/chapters/${targets[0]}`,
      method: 'POST',
      headers: form,
      body: formBody('Isi bab, suntingan studio.'),
      connections: EDIT_CONNECTIONS,
      expect: 303,
      perRequest: () => {
        const edit = nextEdit();
        return { path: `/dashboard/studio/chapters/${edit.id}`, body: formBody(edit.content) };
      },
    }),
    run.httpSide('api chapter save', {
      url: lms.url,
      path: `/api/chapters/${targets[0]}`,
      method: 'PATCH',
      headers: write,
      body: JSON.stringify({ name: 'Bab (bench)', content: 'Isi bab, suntingan API.' }),
      connections: EDIT_CONNECTIONS,
      expect: 200,
      perRequest: () => {
        const edit = nextEdit();
        return { path: `/api/chapters/${edit.id}`, body: JSON.stringify({ name: 'Bab (bench)', content: edit.content }) };
      },
    }),
  );

  // A stale save through the API (If-Match "0": no chapter is ever at version 0) against the same
  // save without If-Match: the refusal locks the course and reads the chapter as the save does,
  // then writes nothing, so it should cost no more than the save.
  await run.comparePaired(
    {
      id: '13v',
      scenario: `PATCH /api/chapters/{id} with a stale If-Match, refused with 409 (${EDIT_CONNECTIONS} connections)`,
      baselineName: 'PATCH /api/chapters/{id}, the same save without If-Match (last save wins)',
      kind: 'throughput',
      target: { minRatio: 0.8 },
    },
    run.httpSide('stale api chapter save', {
      url: lms.url,
      path: `/api/chapters/${targets[0]}`,
      method: 'PATCH',
      headers: { ...write, 'if-match': '"0"' },
      body: JSON.stringify({ content: 'Isi bab, suntingan basi.' }),
      connections: EDIT_CONNECTIONS,
      expect: 409,
      perRequest: () => {
        const edit = nextEdit();
        return { path: `/api/chapters/${edit.id}`, body: JSON.stringify({ content: edit.content }) };
      },
    }),
    run.httpSide('api chapter save', {
      url: lms.url,
      path: `/api/chapters/${targets[0]}`,
      method: 'PATCH',
      headers: write,
      body: JSON.stringify({ content: 'Isi bab, suntingan API.' }),
      connections: EDIT_CONNECTIONS,
      expect: 200,
      perRequest: () => {
        const edit = nextEdit();
        return { path: `/api/chapters/${edit.id}`, body: JSON.stringify({ content: edit.content }) };
      },
    }),
  );

  // The shared list (row 2's load) while one chapter is edited every 100 ms (during that side's
  // runs only): each edit makes this instance compute the list again for the next key. Report only.
  const whileEditing = async <T>(work: () => Promise<T>): Promise<T> => {
    let editing = true;
    const editor = (async () => {
      while (editing) {
        const edit = nextEdit();
        await fetch(`${lms.url}/api/chapters/${edit.id}`, {
          method: 'PATCH',
          headers: write,
          body: JSON.stringify({ content: edit.content }),
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      return await work();
    } finally {
      editing = false;
      await editor;
    }
  };
  const list: HttpLoad = { url: lms.url, path: '/api/courses?limit=12', connections: CONNECTIONS, expect: 200, perRequest: rotateKey };
  await run.comparePaired(
    {
      id: '13l',
      scenario: 'GET /api/courses?limit=12 while a chapter is edited every 100 ms',
      baselineName: 'the same, no edits',
      kind: 'throughput',
    },
    {
      key: 'list12 under edits',
      ready: () => probe(list),
      side: () => ({ run: (seconds) => whileEditing(() => runHttp(list, seconds)), child: lms }),
    },
    run.httpSide('list12 without edits', list),
  );
}
