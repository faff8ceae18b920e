import { sql } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { byPartner, bySession, sampleDocument } from '../../helpers/authoring.js';
import { makeCourseCreator } from '../../helpers/course-creation.js';
import { makeUser } from '../../helpers/fixtures.js';

// A course document carries the course's accreditations read-only (docs/authoring.md,
// "Accreditations in a document"): exported; a teacher's or partner's document that changes them
// is a 403 and writes nothing; an admin's import leaves them as they are and says so in `ignored`.

t.test("a document's accreditations: exported, never written through it", async (t) => {
  const { app, db } = await buildTestApp(t);
  const partner = await makeCourseCreator(db.db, 'partner.example');
  const { institutionId, teacherId } = partner;
  const teacher = await bySession(app, teacherId);
  const admin = await bySession(app, (await makeUser(db.db, { role: 'admin', institutionId })).id);
  const created = await teacher('POST', '/api/course-documents', sampleDocument({ institutionId, teacherId }));
  t.equal(created.status, 201);
  t.same(created.body.document.accreditations, [], 'a new course has none');
  const courseId = created.body.courseId as number;
  const recorded = await admin('POST', `/api/courses/${courseId}/accreditations`, {
    scheme: 'SKP',
    reference: 'SK-7/2026',
    validFrom: '2026-01-01',
    value: 2,
    professions: ['Perawat'],
  });
  t.equal(recorded.status, 201, JSON.stringify(recorded.body));
  const stored = async () =>
    (await db.db.execute(sql`select reference, value::float as value from course_accreditations where course_id = ${courseId}`)).rows;

  const exported = await teacher('GET', `/api/courses/${courseId}/document`);
  t.same(exported.body.document.accreditations, [
    {
      scheme: 'SKP',
      reference: 'SK-7/2026',
      validFrom: '2026-01-01T00:00:00.000Z',
      validUntil: null,
      value: 2,
      professions: ['Perawat'],
    },
  ]);
  const doc = exported.body.document;
  const same = await teacher('PUT', `/api/courses/${courseId}/document`, doc);
  t.equal(same.status, 200, 'as exported: the round trip passes');
  t.equal(same.body.ignored, undefined, 'nothing ignored');
  const dated = structuredClone(doc);
  dated.accreditations[0].validFrom = '2026-01-01';
  t.equal((await teacher('PUT', `/api/courses/${courseId}/document`, dated)).status, 200, 'the same day spelled as a date');
  const { accreditations: _left, ...without } = structuredClone(doc);
  t.equal((await teacher('PUT', `/api/courses/${courseId}/document`, without)).status, 200, 'left out: unchanged');

  const changes: [string, (d: typeof doc) => void][] = [
    ['a bigger value', (d) => (d.accreditations[0].value = 999_999.99)],
    ['another reference', (d) => (d.accreditations[0].reference = 'PALSU-1')],
    ['a second one', (d) => d.accreditations.push({ ...d.accreditations[0], reference: 'SK-8' })],
    ['none', (d) => (d.accreditations = [])],
  ];
  for (const [label, change] of changes) {
    const body = structuredClone(doc);
    change(body);
    for (const [who, as] of [
      ['the teacher', teacher],
      ['the partner', byPartner(app, partner)],
    ] as const) {
      const res = await as('PUT', `/api/courses/${courseId}/document`, body);
      t.equal(res.status, 403, `${label}, by ${who}: refused`);
      t.match(res.body, { success: false, error: /only an admin of the course's institution or a super_admin records/ });
    }
  }
  const fresh = { ...structuredClone(doc), accreditations: [{ ...doc.accreditations[0], reference: 'BARU-1' }] };
  for (const m of fresh.modules) {
    delete m.id;
    for (const ch of m.chapters) delete ch.id;
  }
  Object.assign(fresh.course, { nilaiKum: null });
  const imported = await teacher('POST', '/api/course-documents', fresh);
  t.equal(imported.status, 403, 'a new course imported with an accreditation: refused');
  t.match(imported.body.error, /changes the course's accreditations/);
  t.same(await stored(), [{ reference: 'SK-7/2026', value: 2 }], 'no attacker changed an accreditation');

  const byAdmin = structuredClone(doc);
  byAdmin.accreditations[0].value = 50;
  byAdmin.course.description = 'Diubah oleh admin';
  const adminReplace = await admin('PUT', `/api/courses/${courseId}/document`, byAdmin);
  t.equal(adminReplace.status, 200, JSON.stringify(adminReplace.body).slice(0, 300));
  t.match(adminReplace.body.ignored, [/accreditations: a document does not change them/], "the admin's answer says what it left");
  t.equal(adminReplace.body.document.course.description, 'Diubah oleh admin', 'the rest is written');
  t.equal(adminReplace.body.document.accreditations[0].value, 2, 'the accreditation as it was');
  t.same(await stored(), [{ reference: 'SK-7/2026', value: 2 }]);
});
