import { courses } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { bySession, sampleDocument } from '../helpers/authoring.js';
import { makeCourseCreator } from '../helpers/course-creation.js';

// A course's credit scheme and certificate validity through the authoring API: PATCH sets them
// (validated as the database constrains them), the document carries them, and a document without
// them (an older client) still imports, with the defaults.

t.test('creditScheme and certificateValidMonths', async (t) => {
  const { app, db } = await buildTestApp(t);
  const partner = await makeCourseCreator(db.db, 'partner.example');
  const owner = { institutionId: partner.institutionId, teacherId: partner.teacherId };
  const as = await bySession(app, partner.teacherId);
  const created = await as('POST', '/api/course-documents', sampleDocument(owner));
  t.equal(created.status, 201, JSON.stringify(created.body));
  t.match(created.body.document.course, { creditScheme: 'KUM', certificateValidMonths: null }, 'the defaults, for a document without them');
  const id = created.body.courseId as number;

  const patched = await as('PATCH', `/api/courses/${id}`, { creditScheme: 'SKP', certificateValidMonths: 36 });
  t.equal(patched.status, 200, JSON.stringify(patched.body));
  t.match(patched.body.course, { creditScheme: 'SKP', certificateValidMonths: 36 });
  const [row] = await db.db.select().from(courses).where(eq(courses.id, id));
  t.match(row, { creditScheme: 'SKP', certificateValidMonths: 36 });
  const history = (await as('GET', `/api/courses/${id}/history?limit=1`)).body.events[0];
  t.same(
    history.changes.map((c: { path: string; from: unknown; to: unknown }) => [c.path, c.from, c.to]).sort(),
    [
      ['course.certificateValidMonths', null, 36],
      ['course.creditScheme', 'KUM', 'SKP'],
    ],
    'recorded in the history',
  );

  for (const [body, path] of [
    [{ creditScheme: 'skp' }, 'creditScheme'],
    [{ creditScheme: '' }, 'creditScheme'],
    [{ creditScheme: 'S'.repeat(21) }, 'creditScheme'],
    [{ certificateValidMonths: 0 }, 'certificateValidMonths'],
    [{ certificateValidMonths: 601 }, 'certificateValidMonths'],
    [{ certificateValidMonths: 1.5 }, 'certificateValidMonths'],
  ] as const) {
    const res = await as('PATCH', `/api/courses/${id}`, body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(JSON.stringify(res.body), path);
  }
  t.equal((await as('PATCH', `/api/courses/${id}`, { certificateValidMonths: null })).body.course.certificateValidMonths, null);
  const exported = (await as('GET', `/api/courses/${id}/document`)).body.document;
  t.match(exported.course, { creditScheme: 'SKP', certificateValidMonths: null });
  // The exported document replaces the course as it is (round trip), keeping the fields.
  const replaced = await as('PUT', `/api/courses/${id}/document`, exported);
  t.equal(replaced.status, 200, JSON.stringify(replaced.body));
  t.match(replaced.body.document.course, { creditScheme: 'SKP' });
});
