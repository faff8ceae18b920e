import { modules } from '@lms/db';
import { count, eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { bySession, byPartner, sampleDocument } from '../../helpers/authoring.js';
import { creationHeaders, makeCourseCreator } from '../../helpers/course-creation.js';

// Authoring writes with an Idempotency-Key, as course creation's (domain/idempotency.ts): the
// claim of the key, the token's jti, the write, its history and the kept answer commit together.

t.test('a partner write with a key: once, whatever the retries and the concurrency', async (t) => {
  const { app, db } = await buildTestApp(t);
  const partner = await makeCourseCreator(db.db, 'partner.example');
  const as = byPartner(app, partner);
  const created = await as(
    'POST',
    '/api/course-documents',
    sampleDocument({ institutionId: partner.institutionId, teacherId: partner.teacherId }),
    {
      'idempotency-key': 'import-1',
    },
  );
  t.equal(created.status, 201);
  const replayed = await as(
    'POST',
    '/api/course-documents',
    sampleDocument({ institutionId: partner.institutionId, teacherId: partner.teacherId }),
    {
      'idempotency-key': 'import-1',
    },
  );
  t.equal(replayed.status, 201);
  t.equal(replayed.headers['idempotency-replayed'], 'true');
  t.equal(replayed.body.courseId, created.body.courseId, 'the same course: the first answer replayed');
  const courseId = created.body.courseId as number;
  const moduleCount = async () => (await db.db.select({ n: count() }).from(modules).where(eq(modules.courseId, courseId)))[0]!.n;

  // Twenty concurrent module creations with one key: one module; the others replay it or are told to retry.
  const before = await moduleCount();
  const burst = await Promise.all(
    Array.from({ length: 20 }, () => as('POST', `/api/courses/${courseId}/modules`, { name: 'Sekali' }, { 'idempotency-key': 'mod-1' })),
  );
  t.ok(
    burst.every((r) => r.status === 201 || r.status === 409),
    burst.map((r) => r.status).join(','),
  );
  t.equal(new Set(burst.filter((r) => r.status === 201).map((r) => r.body.module.id)).size, 1, 'every success names the same module');
  t.equal(await moduleCount(), before + 1, 'one module');
  const history = (await as('GET', `/api/courses/${courseId}/history`)).body.events.filter(
    (e: { action: string }) => e.action === 'module.create',
  );
  t.equal(history.length, 1, 'recorded once');

  // The key with another request: 422; on another route: 422 too (the key is the request's, whole).
  t.equal((await as('POST', `/api/courses/${courseId}/modules`, { name: 'Lain' }, { 'idempotency-key': 'mod-1' })).status, 422);
  t.equal((await as('PATCH', `/api/courses/${courseId}`, { name: 'Sekali' }, { 'idempotency-key': 'mod-1' })).status, 422);
  t.equal(await moduleCount(), before + 1);

  // A retry with its key needs a fresh token like any request: the used token again is a 401 (not
  // the kept answer), a fresh one gets the kept answer and is spent by it.
  const token = partner.token();
  const patch = (headers: Record<string, string>, instructor = 'X') =>
    app.inject({ method: 'PATCH', url: `/api/courses/${courseId}`, headers, payload: { instructor } });
  const first = await patch(creationHeaders(token, 'ch-1'));
  t.equal(first.statusCode, 200);
  const sameToken = await patch(creationHeaders(token, 'ch-1'));
  t.equal(sameToken.statusCode, 401, 'the used token replayed with its key');
  t.same(sameToken.json(), { success: false, error: 'Token has already been used.' }, 'nothing of the kept answer');
  const fresh = partner.token();
  const again = await patch(creationHeaders(fresh, 'ch-1'));
  t.equal(again.statusCode, 200, 'a fresh token with the key: the kept answer');
  t.equal(again.headers['idempotency-replayed'], 'true');
  t.same(again.json(), first.json());
  t.equal((await patch(creationHeaders(fresh, 'ch-2'), 'Y')).statusCode, 401, 'the replay spent the fresh token');

  // A refusal that is not about the request (a 409: learners hold it; here: a missing quiz is a 404) frees the key.
  t.equal((await as('DELETE', `/api/courses/${courseId}/final-exam`, undefined, { 'idempotency-key': 'fe' })).status, 200);
  t.equal((await as('DELETE', `/api/courses/${courseId}/final-exam`, undefined, { 'idempotency-key': 'fe-2' })).status, 404);
  t.equal(
    (await as('DELETE', `/api/courses/${courseId}/final-exam`, undefined, { 'idempotency-key': 'fe-2' })).status,
    404,
    'the 404 was not kept',
  );

  // A person's session may send a key too (a double click): scoped to the person.
  const teacher = await bySession(app, partner.teacherId);
  const one = await teacher('POST', `/api/courses/${courseId}/modules`, { name: 'Dobel' }, { 'idempotency-key': 'mod-1' });
  const two = await teacher('POST', `/api/courses/${courseId}/modules`, { name: 'Dobel' }, { 'idempotency-key': 'mod-1' });
  t.equal(one.status, 201, "the partner's key is not the person's");
  t.equal(two.headers['idempotency-replayed'], 'true');
  t.equal(two.body.module.id, one.body.module.id);
});
