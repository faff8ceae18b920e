import { courses } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { bySession, sampleDocument } from '../helpers/authoring.js';
import { makeCourseCreator } from '../helpers/course-creation.js';
import { browserOf, fieldValue } from '../pages/studio/helpers.js';

// The studio's settings form shows and saves a course's credit scheme and certificate validity.

t.test("the studio's settings form: credit scheme and certificate validity", async (t) => {
  const { app, db } = await buildTestApp(t);
  const partner = await makeCourseCreator(db.db, 'partner.example');
  const as = await bySession(app, partner.teacherId);
  const created = await as(
    'POST',
    '/api/course-documents',
    sampleDocument({ institutionId: partner.institutionId, teacherId: partner.teacherId }),
  );
  const courseId = created.body.courseId as number;
  const b = await browserOf(app, partner.teacherId);
  const url = `/dashboard/studio/courses/${courseId}/settings`;
  const page = await b.get(url);
  t.equal(page.status, 200);
  t.equal(fieldValue(page.body, 'creditScheme'), 'KUM');
  t.equal(fieldValue(page.body, 'certificateValidMonths'), '');
  t.match(page.body, 'Credit scheme (KUM, SKP, ...)');
  // Every field as the page has it, with the two changed.
  const form: Record<string, string> = {};
  for (const m of page.body.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) form[m[1]!] = m[2]!;
  for (const m of page.body.matchAll(/<textarea[^>]*name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g)) form[m[1]!] = m[2]!;
  for (const m of page.body.matchAll(/<select[^>]*name="([^"]+)"[\s\S]*?<option value="([^"]*)" selected/g)) form[m[1]!] = m[2]!;
  const bad = await b.post(url, { ...form, creditScheme: 'S K P', certificateValidMonths: '601' });
  t.equal(bad.status, 422);
  t.match(bad.body, /id="f-creditScheme-error"/);
  t.match(bad.body, /id="f-certificateValidMonths-error"/);
  const saved = await b.post(url, { ...form, creditScheme: 'skp', certificateValidMonths: '24' });
  t.equal(saved.status, 303, saved.body.slice(0, 600));
  const [row] = await db.db.select().from(courses).where(eq(courses.id, courseId));
  t.match(row, { creditScheme: 'SKP', certificateValidMonths: 24 });
  const again = await b.get(url);
  t.equal(fieldValue(again.body, 'creditScheme'), 'SKP');
  t.equal(fieldValue(again.body, 'certificateValidMonths'), '24');
});

t.test("the settings form has no nilaiKum: a teacher's crafted one is not read", async (t) => {
  const { app, db } = await buildTestApp(t);
  const partner = await makeCourseCreator(db.db, 'partner.example');
  const as = await bySession(app, partner.teacherId);
  const created = await as(
    'POST',
    '/api/course-documents',
    sampleDocument({ institutionId: partner.institutionId, teacherId: partner.teacherId }),
  );
  const courseId = created.body.courseId as number;
  const b = await browserOf(app, partner.teacherId);
  const url = `/dashboard/studio/courses/${courseId}/settings`;
  const page = await b.get(url);
  const form: Record<string, string> = {};
  for (const m of page.body.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) form[m[1]!] = m[2]!;
  for (const m of page.body.matchAll(/<textarea[^>]*name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g)) form[m[1]!] = m[2]!;
  for (const m of page.body.matchAll(/<select[^>]*name="([^"]+)"[\s\S]*?<option value="([^"]*)" selected/g)) form[m[1]!] = m[2]!;
  t.equal(form.nilaiKum, undefined, 'the form has no nilaiKum box: accreditations set it');
  t.match(page.body, /id="accreditations"/, 'the accreditations are shown instead');
  const crafted = await b.post(url, { ...form, nilaiKum: '999999.99', name: 'Etika Profesi (baru)' });
  t.equal(crafted.status, 303, 'a crafted nilaiKum field is not read: the rest saves');
  const [row] = await db.db.select().from(courses).where(eq(courses.id, courseId));
  t.equal(row!.nilaiKum, null, 'no credit written');
  t.equal(row!.name, 'Etika Profesi (baru)');
});
