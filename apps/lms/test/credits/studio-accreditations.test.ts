import { sql } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { bySession, sampleDocument } from '../helpers/authoring.js';
import { makeInstitution, makeUser } from '../helpers/fixtures.js';
import { browserOf } from '../pages/studio/helpers.js';

// The studio's settings screen shows a course's accreditations read-only to every author, and lets
// an admin of its institution or a super_admin record one through the API's domain rule
// (docs/authoring.md, "Accreditations"); a teacher's crafted post is a 403 and writes nothing.

t.test('accreditations on the settings screen: read by the teacher, recorded by the admin', async (t) => {
  const { app, db } = await buildTestApp(t);
  const institutionId = await makeInstitution(db.db);
  const teacher = await makeUser(db.db, { role: 'teacher', institutionId });
  const admin = await makeUser(db.db, { role: 'admin', institutionId });
  const otherAdmin = await makeUser(db.db, { role: 'admin', institutionId: await makeInstitution(db.db, 'Lain') });
  const superAdmin = await makeUser(db.db, { role: 'super_admin' });
  const doc = sampleDocument({ institutionId, teacherId: teacher.id }, { modules: 1, chapters: 2 });
  // 200 expected minutes: at most 4 JPL in SKP-KEMENKES (45 a JPL, down).
  for (const ch of doc.modules[0]!.chapters) Object.assign(ch, { expectedMinutes: 100 });
  const created = await (await bySession(app, teacher.id))('POST', '/api/course-documents', doc);
  t.equal(created.status, 201);
  const courseId = created.body.courseId as number;
  const url = `/dashboard/studio/courses/${courseId}/settings`;
  const post = `/dashboard/studio/courses/${courseId}/accreditations`;
  const stored = async () =>
    (await db.db.execute(sql`select scheme, reference, value::float as value from course_accreditations where course_id = ${courseId}`))
      .rows;
  const good = {
    scheme: 'SKP-KEMENKES',
    reference: 'SK-123/2026',
    validFrom: '2026-01-01',
    validUntil: '',
    value: '4',
    professions: 'Perawat, Bidan',
  };

  for (const [lang, title, only, none] of [
    ['id', 'Akreditasi', 'Hanya admin institusi kursus ini', 'Belum ada akreditasi'],
    ['en', 'Accreditations', "Only an admin of this course's institution", 'No accreditation yet'],
  ] as const) {
    const page = await (await browserOf(app, teacher.id, lang)).get(url);
    t.equal(page.status, 200);
    t.match(page.body, `<h2>${title}</h2>`, `${lang}: the part`);
    t.match(page.body, only.replace("'", '&#39;'), `${lang}: who records them`);
    t.match(page.body, none, `${lang}: none yet`);
    t.notMatch(page.body, /name="nilaiKum"/, `${lang}: no nilaiKum box`);
    t.notMatch(page.body, /action="[^"]*\/accreditations"/, `${lang}: no form for a teacher`);
  }

  // The teacher crafts the admin's post: the domain's 403, nothing written.
  const byTeacher = await (await browserOf(app, teacher.id)).post(post, good);
  t.equal(byTeacher.status, 403, 'a teacher records nothing');
  t.match(byTeacher.body, /recorded by an admin of the course&#39;s institution or a super_admin/);
  const byOther = await (await browserOf(app, otherAdmin.id)).post(post, good);
  t.ok([403, 404].includes(byOther.status), `another institution's admin: ${byOther.status}`);
  t.same(await stored(), [], 'nothing recorded by either');

  const a = await browserOf(app, admin.id);
  const form = (await a.get(url)).body;
  t.match(form, /action="[^"]*\/accreditations"/, 'the admin gets the form');
  t.match(form, /<option value="SKP-KEMENKES"/, 'with the schemes to choose from');
  // Each refusal in the page's words, beside the field at fault (the API keeps its English: credits tests).
  for (const [label, fields, field, message] of [
    [
      'over the minutes',
      { value: '5' },
      'value',
      /At most 4 JPL: this course&#39;s chapters are expected to take \d+ minutes, and 1 JPL = 45 minutes/,
    ],
    ['over the maximum', { value: '51' }, 'value', /At most [\d,]+ JPL per course in the SKP-KEMENKES scheme/],
    ['not a number', { value: 'NaN' }, 'value', /Write a value above 0/],
    ['negative', { value: '-1' }, 'value', /Write a value above 0/],
    ['no date', { validFrom: '' }, 'validFrom', /Write a valid date/],
    ['until before from', { validUntil: '2025-01-01' }, 'validUntil', /The end date must be after the start date/],
    ['an unknown scheme', { scheme: 'NOPE' }, 'scheme', /There is no scheme NOPE yet/],
    ['a long reference', { reference: 'x'.repeat(10_000) }, 'reference', /Write the decree or accreditation number/],
  ] as const) {
    const res = await a.post(post, { ...good, ...fields });
    t.equal(res.status, 422, `${label}: refused`);
    t.match(res.body.match(new RegExp(`id="f-${field}-error">([^<]*)<`))?.[1] ?? '', message, `${label}: says why, beside ${field}`);
    t.notMatch(
      res.body,
      /must be an ISO date|must be after validFrom|must be more than 0|must be 1-200|Unknown credit scheme|is over/,
      `${label}: not the API's English`,
    );
    t.match(res.body, /id="accreditations"/, `${label}: on the settings screen, what was typed kept`);
  }
  const inIndonesian = await (await browserOf(app, admin.id, 'id')).post(post, { ...good, value: '5' });
  t.match(inIndonesian.body, /Paling banyak 4 JPL: bab kursus ini diperkirakan \d+ menit, dan 1 JPL = 45 menit/, 'and in Indonesian');
  t.same(await stored(), [], 'nothing recorded by a refused form');

  const recorded = await a.post(post, good);
  t.equal(recorded.status, 303, recorded.body.slice(0, 400));
  t.same(await stored(), [{ scheme: 'SKP-KEMENKES', reference: 'SK-123/2026', value: 4 }]);
  const course = await db.db.execute(sql`select nilai_kum::float as kum, credit_scheme as scheme from courses where id = ${courseId}`);
  t.same(course.rows[0], { kum: 4, scheme: 'SKP-KEMENKES' }, "the course's shown credit follows, as through the API");
  const again = await a.post(post, good);
  t.equal(again.status, 409, 'the same reference twice');
  t.match(again.body, /Accreditation SK-123\/2026 in SKP-KEMENKES is already recorded; change that one/, 'said in words');

  const seen = (await (await browserOf(app, teacher.id)).get(url)).body;
  t.match(seen, /<td data-label="Scheme">SKP-KEMENKES<\/td><td data-label="Decree \/ accreditation number">SK-123\/2026<\/td>/);
  t.match(seen, /<td data-label="State">In force<\/td>/, 'its state');
  t.match(seen, /open-ended/);
  const bySuper = await (await browserOf(app, superAdmin.id)).post(post, { ...good, reference: 'SK-2', validFrom: '2099-01-01' });
  t.equal(bySuper.status, 303, 'a super_admin records too');
  t.match((await (await browserOf(app, teacher.id, 'id')).get(url)).body, /Belum berlaku/, 'one not yet in force says so');
});
