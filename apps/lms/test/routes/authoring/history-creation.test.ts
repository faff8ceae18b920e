import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { bySession, sampleDocument } from '../../helpers/authoring.js';
import { creationHeaders, makeCourseCreator } from '../../helpers/course-creation.js';
import { browserOf } from '../../pages/studio/helpers.js';

// Issue 40, Medium 10: a course's history began with its first update; the partner's
// `POST /api/courses` that created it, and the token it used, were recorded nowhere. However a
// course is made (a partner's creation, an import, the studio's new-course form), its creation is
// the first event of its history, naming who made it.

const jtiOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti as string;

t.test("a course's history starts with its creation, however it was made", async (t) => {
  const { app, db } = await buildTestApp(t);
  const partner = await makeCourseCreator(db.db, 'history.example');
  const owner = { institutionId: partner.institutionId, teacherId: partner.teacherId };
  const teacher = await bySession(app, partner.teacherId);
  /** The course's history, oldest first. */
  const history = async (courseId: number) => {
    const res = await teacher('GET', `/api/courses/${courseId}/history`);
    t.equal(res.status, 200);
    return [...res.body.events].reverse();
  };

  // A partner's POST /api/courses, through the gateway, from its system `lms-integration`.
  const token = partner.token(undefined, { sub: 'lms-integration' });
  const res = await app.inject({
    method: 'POST',
    url: '/api/courses',
    headers: { ...creationHeaders(token), 'x-request-id': 'create-req-1' },
    payload: JSON.stringify({ ...partner.body('Dibuat mitra'), description: 'x'.repeat(500), price: '150000' }),
  });
  t.equal(res.statusCode, 201, res.body);
  const courseId = res.json().course.id as number;
  t.equal((await teacher('PATCH', `/api/courses/${courseId}`, { instructor: 'Dr. Sari' })).status, 200);
  const events = await history(courseId);
  t.same(
    events.map((e) => e.action),
    ['course.create', 'course.update'],
    'the creation first, then the update',
  );
  const [created] = events;
  t.match(created, {
    credential: 'partner-token',
    targetId: null,
    requestId: 'create-req-1',
    actor: { userId: null, partnerIssuer: 'history.example', partnerSubject: 'lms-integration', tokenId: jtiOf(token) },
  });
  t.match(created.changes, [
    { path: '', to: { name: 'Dibuat mitra', institutionId: owner.institutionId, teacherId: owner.teacherId, price: '150000' } },
  ]);
  t.same(
    created.changes[0].to.description,
    { length: 500, sha256: created.changes[0].to.description.sha256 },
    'a long text by its length and hash',
  );

  // An import by session.
  const imported = await teacher('POST', '/api/course-documents', sampleDocument(owner, { name: 'Diimpor' }));
  t.equal(imported.status, 201);
  const importEvents = await history(imported.body.courseId);
  t.match(importEvents[0], { action: 'course.import', credential: 'session', actor: { userId: partner.teacherId } });
  t.equal(importEvents.length, 1);

  // The studio's new-course form.
  const studio = await browserOf(app, partner.teacherId);
  const made = await studio.post('/dashboard/studio/new', { name: 'Dari studio' });
  t.equal(made.status, 303);
  const studioCourse = Number(/\/courses\/(\d+)/.exec(made.location ?? '')?.[1]);
  t.equal((await studio.post(`/dashboard/studio/courses/${studioCourse}/modules`, { name: 'Modul 1' })).status, 303);
  const studioEvents = await history(studioCourse);
  t.same(
    studioEvents.map((e) => e.action),
    ['course.create', 'module.create'],
  );
  t.match(studioEvents[0], { credential: 'session', actor: { userId: partner.teacherId }, changes: [{ to: { name: 'Dari studio' } }] });
});

t.test('a creation that is refused records nothing; a replayed one records nothing more', async (t) => {
  const { app, db } = await buildTestApp(t);
  const partner = await makeCourseCreator(db.db, 'history-refused.example');
  const count = async () => Number((await db.db.execute('select count(*)::int as n from authoring_events')).rows[0]!.n);
  const refused = await app.inject({
    method: 'POST',
    url: '/api/courses',
    headers: creationHeaders(partner.token()),
    payload: JSON.stringify({ ...partner.body('Ditolak'), teacherId: 'no-such-teacher' }),
  });
  t.equal(refused.statusCode, 403);
  t.equal(await count(), 0, 'a refused creation: no event');
  const body = JSON.stringify(partner.body('Sekali'));
  const first = await app.inject({ method: 'POST', url: '/api/courses', headers: creationHeaders(partner.token(), 'once'), payload: body });
  const again = await app.inject({ method: 'POST', url: '/api/courses', headers: creationHeaders(partner.token(), 'once'), payload: body });
  t.equal(first.statusCode, 201);
  t.equal(again.headers['idempotency-replayed'], 'true');
  t.equal(await count(), 1, 'one creation, one event');
});
