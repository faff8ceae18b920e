import { CreateCourseBody } from '@lms/contracts';
import { courses, idempotencyKeys, usedTokenIds } from '@lms/db';
import { and, count, eq, sql } from 'drizzle-orm';
import t from 'tap';
import { CREATION_LOCK_WAIT_MS, hashRequestBody } from '../../src/domain/idempotency.js';
import { buildTestApp } from '../helpers/app.js';
import { creationHeaders, makeCourseCreator, TEST_GATEWAY_SECRET } from '../helpers/course-creation.js';
import { holdTransaction, waitForLockWait } from '../helpers/lock-holder.js';

// Partner course creation inside the LMS (the gateway's part is in e2e): the claim of an
// Idempotency-Key, the token's jti, the course and the kept answer are one transaction.
// PGlite, or PostgreSQL with TEST_DATABASE_URL (the cases with a second connection need it).

const { app, db } = await buildTestApp(t, { config: { GATEWAY_SECRET: TEST_GATEWAY_SECRET } });
const creator = await makeCourseCreator(app.db, 'creator.test');

const post = (token: string, body: unknown, idempotencyKey?: string) =>
  app.inject({ method: 'POST', url: '/api/courses', headers: creationHeaders(token, idempotencyKey), payload: JSON.stringify(body) });
const coursesNamed = async (name: string) => (await app.db.select({ n: count() }).from(courses).where(eq(courses.name, name)))[0]!.n;
const keyRow = async (key: string) =>
  (
    await app.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.issuer, creator.issuer), eq(idempotencyKeys.key, key)))
  )[0];
/** The hash the LMS keeps for a body: of the body as validated (with its defaults). */
const hashOf = (body: unknown) => hashRequestBody(CreateCourseBody.parse(body));
const jtiOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti as string;
const jtiSpent = async (token: string) =>
  (
    await app.db
      .select()
      .from(usedTokenIds)
      .where(eq(usedTokenIds.jti, jtiOf(token)))
  ).length === 1;

t.test('a creation with a key: the answer is kept and replayed, one course, the jti spent once', async (t) => {
  const token = creator.token();
  const first = await post(token, creator.body('Kept'), 'k-kept');
  t.equal(first.statusCode, 201, first.body);
  t.equal(first.headers['idempotency-replayed'], undefined);
  t.ok(await jtiSpent(token));
  const sameToken = await post(token, creator.body('Kept'), 'k-kept');
  t.equal(sameToken.statusCode, 401, 'the same token again: refused, even with the key (a retry needs a fresh token)');
  t.same(sameToken.json(), { success: false, error: 'Token has already been used.' }, 'nothing of the kept answer');
  const fresh = creator.token();
  const again = await post(fresh, creator.body('Kept'), 'k-kept');
  t.equal(again.statusCode, 201, 'a fresh token with the key: the kept answer');
  t.equal(again.headers['idempotency-replayed'], 'true');
  t.same(again.json(), first.json());
  t.ok(await jtiSpent(fresh), 'the replay spent the fresh token');
  t.equal((await keyRow('k-kept'))?.statusCode, 201);
  t.equal(await coursesNamed('Kept'), 1);
});

t.test('20 concurrent requests with one key: one course, every answer names it', async (t) => {
  const answers = await Promise.all(Array.from({ length: 20 }, () => post(creator.token(), creator.body('Burst'), 'k-burst')));
  t.same(
    answers.map((r) => r.statusCode),
    Array(20).fill(201),
  );
  t.equal(new Set(answers.map((r) => r.json().course.id)).size, 1);
  t.equal(answers.filter((r) => r.headers['idempotency-replayed'] === 'true').length, 19);
  t.equal(await coursesNamed('Burst'), 1);
});

t.test(
  'the same key with another body is a 422; a 403 (a teacher the partner may not name) spends the jti and frees the key; a refused token frees it too',
  async (t) => {
    // The same key with another body: 422 (the key keeps its first answer).
    const t1 = creator.token();
    t.equal((await post(t1, creator.body('Kept body'), 'k-422')).statusCode, 201);
    const otherBody = await post(creator.token(), creator.body('Another body'), 'k-422');
    t.equal(otherBody.statusCode, 422);
    t.match(otherBody.json(), { success: false, error: /different request body/ });

    // A 403 is not kept: the operator may bind the institution and the partner retry with the key.
    const unknownTeacher = { ...creator.body('Nobody teaches'), teacherId: 'no-such-user' };
    const token = creator.token();
    const refused = await post(token, unknownTeacher, 'k-403');
    t.equal(refused.statusCode, 403);
    t.equal(await keyRow('k-403'), undefined, 'not kept');
    t.ok(await jtiSpent(token), 'a token is used once, whatever the answer');

    // Without a key the same rule: the answer commits with the spent jti.
    const plain = creator.token();
    t.equal((await post(plain, unknownTeacher)).statusCode, 403);
    t.ok(await jtiSpent(plain));

    // A spent token is a 401, which frees the key: the partner retries with a fresh token.
    const spent = creator.token();
    t.equal((await post(spent, creator.body('Other'))).statusCode, 201);
    const replayed = await post(spent, creator.body('Freed'), 'k-freed');
    t.equal(replayed.statusCode, 401);
    t.match(replayed.json(), { success: false, error: /already been used/ });
    t.equal(await keyRow('k-freed'), undefined, 'no claim left behind');
    const retry = await post(creator.token(), creator.body('Freed'), 'k-freed');
    t.equal(retry.statusCode, 201);
    t.equal(retry.headers['idempotency-replayed'], undefined);
    t.equal(await coursesNamed('Freed'), 1);
  },
);

t.test('a claim left without an answer by an earlier version is taken over once it is 30 s old', async (t) => {
  const body = creator.body('Legacy claim');
  const requestHash = hashOf(body);
  await app.db.insert(idempotencyKeys).values({ issuer: creator.issuer, key: 'k-young', requestHash, createdAt: new Date() });
  const young = await post(creator.token(), body, 'k-young');
  t.equal(young.statusCode, 409, 'a recent claim may still be running');
  t.equal(young.headers['retry-after'], '2');
  await app.db
    .insert(idempotencyKeys)
    .values({ issuer: creator.issuer, key: 'k-old', requestHash, createdAt: new Date(Date.now() - 31_000) });
  const old = await post(creator.token(), body, 'k-old');
  t.equal(old.statusCode, 201, old.body);
  t.equal((await keyRow('k-old'))?.statusCode, 201);
});

// The cases below need a second connection that holds a lock while the LMS works.
if (db.url) {
  t.test(`a retry while the first request holds its key waits ${CREATION_LOCK_WAIT_MS} ms, then 409 with Retry-After`, async (t) => {
    const body = creator.body('Held');
    // Another transaction claimed the key and has not committed (an instance still working on it).
    const first = await holdTransaction(app.db, [
      sql`insert into idempotency_keys (issuer, key, request_hash) values (${creator.issuer}, 'k-held', ${hashOf(body)})`,
    ]);
    const token = creator.token();
    const waiting = await post(token, body, 'k-held');
    t.equal(waiting.statusCode, 409);
    t.equal(waiting.headers['retry-after'], '2');
    t.match(waiting.json(), { success: false, error: /still being processed/ });
    t.notOk(await jtiSpent(token), 'nothing of the waiting request was kept');
    // The first one dies (its transaction rolls back): the key is free, the retry does the work.
    await first.rollback();
    const retry = await post(token, body, 'k-held');
    t.equal(retry.statusCode, 201, retry.body);
    t.equal(await coursesNamed('Held'), 1);
  });

  t.test('a retry blocked behind the first one replays its answer when it commits', async (t) => {
    const body = creator.body('Behind');
    // The answer another instance is about to commit (a real one's shape, with a message of its own).
    const recorded = (await post(creator.token(), creator.body('Behind, elsewhere'))).json();
    const answer = JSON.stringify({ ...recorded, message: 'first' });
    const first = await holdTransaction(app.db, [
      sql`insert into idempotency_keys (issuer, key, request_hash, status_code, response_body)
          values (${creator.issuer}, 'k-behind', ${hashOf(body)}, 201, ${answer}::jsonb)`,
    ]);
    let settled = false;
    const retry = post(creator.token(), body, 'k-behind').finally(() => (settled = true));
    await waitForLockWait(app.db, 'idempotency_keys');
    t.notOk(settled, 'the retry waits for the first request');
    await first.commit();
    const res = await retry;
    t.equal(res.statusCode, 201);
    t.equal(res.headers['idempotency-replayed'], 'true');
    t.same(res.json(), { ...recorded, message: 'first' }, 'the answer the first request recorded');
    t.equal(await coursesNamed('Behind'), 0, 'no second course');
  });

  t.test('a table lock outlasting the lock wait: the request fails and leaves nothing, not even its jti', async (t) => {
    const body = creator.body('Locked out');
    const operator = await holdTransaction(app.db, [sql`lock table courses in access exclusive mode`]);
    const token = creator.token();
    const [keyed, plain] = await Promise.all([post(token, body, 'k-locked'), post(creator.token(), creator.body('Locked plain'))]);
    await operator.rollback();
    // 5xx, never a hang (the error handler's mapping of database timeouts decides 500 or 503).
    t.ok(keyed.statusCode >= 500, `with a key: ${keyed.statusCode}`);
    t.ok(plain.statusCode >= 500, `without: ${plain.statusCode}`);
    t.equal(keyed.json().success, false);
    t.equal(await keyRow('k-locked'), undefined, 'the key is free');
    t.notOk(await jtiSpent(token), 'the jti was not spent without its course');
    const retry = await post(token, body, 'k-locked');
    t.equal(retry.statusCode, 201, 'the same token and key work once the table is free');
    t.equal(await coursesNamed('Locked out'), 1);
    t.equal(await coursesNamed('Locked plain'), 0);
  });
}
