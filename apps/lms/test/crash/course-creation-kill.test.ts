import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { courses, createDb, type Db, idempotencyKeys, migrate, usedTokenIds } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { testDatabaseUrl } from '../helpers/database.js';
import { count, eq, sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { type CourseCreator, creationHeaders, makeCourseCreator, TEST_GATEWAY_SECRET } from '../helpers/course-creation.js';
import { holdTransaction, waitForLockWait } from '../helpers/lock-holder.js';
import { envWith, type ServerProcess, startServer } from '../helpers/processes.js';

// `kill -9` of the LMS in the middle of an Idempotency-Key creation, then a retry with the same
// key on a new LMS process: the retry completes the work (or replays the committed answer)
// within seconds, and exactly one course exists. Real processes (the built server), killed with
// SIGKILL; a real table lock held by another connection keeps the first request in the middle.

t.setTimeout(600_000);

const jtiOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti as string;

function create(lms: ServerProcess, token: string, body: unknown, key: string) {
  return fetch(`${lms.url}/api/courses`, { method: 'POST', headers: creationHeaders(token, key), body: JSON.stringify(body) });
}

async function killHard(t: Test, lms: ServerProcess): Promise<void> {
  lms.child.kill('SIGKILL');
  t.equal(await lms.exited, 'SIGKILL', 'the LMS died of SIGKILL');
}

const coursesNamed = async (db: Db, name: string) => (await db.select({ n: count() }).from(courses).where(eq(courses.name, name)))[0]!.n;

/** A retry as the partner makes it: same key, a fresh token; how long it took, for the report. */
async function retry(lms: ServerProcess, creator: CourseCreator, name: string, key: string) {
  const started = performance.now();
  const res = await create(lms, creator.token(), creator.body(name), key);
  const ms = Math.round(performance.now() - started);
  return { res, json: (await res.json()) as { course: { id: number } }, ms };
}

// The table lock needs a second connection to a server: PostgreSQL (TEST_DATABASE_URL).
if (testDatabaseUrl) {
  t.test('PostgreSQL: killed while its insert waits for a table lock, then after its commit', async (t) => {
    const testDb = await createTestDb(testDatabaseUrl);
    t.teardown(() => testDb.destroy());
    const db = testDb.db;
    const creator = await makeCourseCreator(db, 'crash.test');
    const env = envWith({ DATABASE_URL: testDb.url!, GATEWAY_SECRET: TEST_GATEWAY_SECRET, MIGRATE_ON_START: 'false' });

    // 1. The first request is inside its transaction, its course insert waiting for the lock.
    const first = await startServer(t, env);
    const operator = await holdTransaction(db, [sql`lock table courses in access exclusive mode`]);
    const firstToken = creator.token();
    const inFlight = create(first, firstToken, creator.body('Crash while waiting'), 'crash-1').catch((err: Error) => err);
    await waitForLockWait(db, 'courses');
    await killHard(t, first);
    t.type(await inFlight, Error, 'the first request got no answer');
    await operator.rollback();

    // 2. A new LMS; the partner retries with the same key.
    const second = await startServer(t, env);
    const retried = await retry(second, creator, 'Crash while waiting', 'crash-1');
    t.comment(`retry after the kill mid-transaction: ${retried.res.status} in ${retried.ms} ms`);
    t.equal(retried.res.status, 201, JSON.stringify(retried.json));
    t.equal(retried.res.headers.get('idempotency-replayed'), null, 'the work was done by the retry');
    t.equal(await coursesNamed(db, 'Crash while waiting'), 1, 'exactly one course');
    const spent = await db
      .select()
      .from(usedTokenIds)
      .where(eq(usedTokenIds.jti, jtiOf(firstToken)));
    t.equal(spent.length, 0, "the killed request's jti was not spent");

    // 3. Killed right after its commit (as soon as the course is visible), before or while answering.
    const committedToken = creator.token();
    const answered = create(second, committedToken, creator.body('Crash after commit'), 'crash-2').catch((err: Error) => err);
    for (let i = 0; i < 800 && (await coursesNamed(db, 'Crash after commit')) === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await killHard(t, second);
    const firstAnswer = await answered;
    t.comment(`the request killed after its commit got: ${firstAnswer instanceof Error ? 'no answer' : firstAnswer.status}`);
    const [course] = await db.select({ id: courses.id }).from(courses).where(eq(courses.name, 'Crash after commit'));
    t.ok(course, 'the course was committed');
    const [kept] = await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, 'crash-2'));
    t.equal(kept?.statusCode, 201, 'with its answer, in the same commit');

    const third = await startServer(t, env);
    const replayed = await retry(third, creator, 'Crash after commit', 'crash-2');
    t.comment(`retry after the kill after commit: ${replayed.res.status} in ${replayed.ms} ms`);
    t.equal(replayed.res.status, 201);
    t.equal(replayed.res.headers.get('idempotency-replayed'), 'true');
    t.equal(replayed.json.course.id, course!.id, 'the recorded answer');
    t.equal(await coursesNamed(db, 'Crash after commit'), 1, 'exactly one course');
  });
}

t.test('embedded database: killed after a creation, the restarted LMS replays it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'lms-crash-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const dataDir = join(dir, 'pglite');
  // The fixtures go in before any LMS runs (the embedded database has one writer at a time).
  const setup = createDb({ dataDir });
  await migrate(setup);
  const creator = await makeCourseCreator(setup.db, 'crash.test');
  await setup.close();
  const env = envWith({ DATA_DIR: dataDir, GATEWAY_SECRET: TEST_GATEWAY_SECRET, SEED_DEMO_ON_EMPTY: 'false' });

  const first = await startServer(t, env);
  const created = await create(first, creator.token(), creator.body('Embedded crash'), 'crash-embedded');
  t.equal(created.status, 201);
  const { course } = (await created.json()) as { course: { id: number } };
  await killHard(t, first);

  const second = await startServer(t, env);
  const replayed = await retry(second, creator, 'Embedded crash', 'crash-embedded');
  t.equal(replayed.res.status, 201);
  t.equal(replayed.res.headers.get('idempotency-replayed'), 'true');
  t.equal(replayed.json.course.id, course.id);
  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0);

  const after = createDb({ dataDir });
  t.teardown(() => after.close());
  t.equal(await coursesNamed(after.db, 'Embedded crash'), 1, 'exactly one course');
});
