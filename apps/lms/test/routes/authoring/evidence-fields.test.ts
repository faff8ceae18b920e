import { sql } from 'drizzle-orm';
import t, { type Test } from 'tap';
import { evaluationItems } from '../../../src/domain/evidence/evaluation.js';
import { bySession, sampleDocument, teacherWithSampleCourse } from '../../helpers/authoring.js';
import { apiKeyFor, makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { browserOf, fieldValue } from '../../pages/studio/helpers.js';

// A course's postTestMinScore (0-100 or null) and evaluationItems (1-20 Likert items, or null: the
// scheme's) through PATCH /api/courses/{id}, the course document and the studio's settings form
// (docs/authoring.md, "Pre-test, post-test and evaluation").

const ITEMS = [
  { key: 'materi', id: 'Materi relevan dengan pekerjaan', en: 'The material is relevant to my work' },
  { key: 'narasumber', id: 'Narasumber menguasai materi', en: 'The speaker knows the subject' },
];

async function setUp(t: Test) {
  const made = await teacherWithSampleCourse(t);
  const { db, courseId } = made;
  const stored = async () =>
    (await db.db.execute(sql`select post_test_min_score as "min", evaluation_items as items, version from courses where id = ${courseId}`))
      .rows[0] as { min: number | null; items: unknown; version: number };
  return { ...made, stored };
}

t.test('PATCH /api/courses/{id}: written, read back, bounded', async (t) => {
  const { app, db, institutionId, teacher, as, courseId, stored } = await setUp(t);
  const patched = await as('PATCH', `/api/courses/${courseId}`, { postTestMinScore: 80, evaluationItems: ITEMS });
  t.equal(patched.status, 200, JSON.stringify(patched.body).slice(0, 300));
  t.match(patched.body.course, { postTestMinScore: 80, evaluationItems: ITEMS });
  t.same(await stored(), { min: 80, items: ITEMS, version: 2 }, 'stored, and a new version of the course');
  t.same((await evaluationItems(db.db, courseId, new Date())) ?? [], ITEMS, "the evaluation form asks the course's own items");
  const history = await db.db.execute(sql`select changes from authoring_events where course_id = ${courseId} order by id desc limit 1`);
  t.match(JSON.stringify(history.rows[0]), /course\.postTestMinScore.*course\.evaluationItems/, 'in the history');

  const many = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, id: `Butir ${i}`, en: `Item ${i}` }));
  for (const [label, body, field] of [
    ['101', '{"postTestMinScore":101}', 'postTestMinScore'],
    ['-1', '{"postTestMinScore":-1}', 'postTestMinScore'],
    ['1.5', '{"postTestMinScore":1.5}', 'postTestMinScore'],
    ['"NaN"', '{"postTestMinScore":"NaN"}', 'postTestMinScore'],
    ['1e309', '{"postTestMinScore":1e309}', 'postTestMinScore'],
    ['no items', '{"evaluationItems":[]}', 'evaluationItems'],
    ['21 items', JSON.stringify({ evaluationItems: many(21) }), 'evaluationItems'],
    ['500 items', JSON.stringify({ evaluationItems: many(500) }), 'evaluationItems'],
    ['10k characters', JSON.stringify({ evaluationItems: [{ key: 'a', id: 'x'.repeat(10_000), en: 'y' }] }), 'evaluationItems.0.id'],
    ['an empty statement', JSON.stringify({ evaluationItems: [{ key: 'a', id: ' ', en: 'y' }] }), 'evaluationItems.0.id'],
    ['a bad key', JSON.stringify({ evaluationItems: [{ key: 'Materi!', id: 'x', en: 'y' }] }), 'evaluationItems.0.key'],
    ['a repeated key', JSON.stringify({ evaluationItems: [ITEMS[0], ITEMS[0]] }), 'evaluationItems.1.key'],
    ['an unknown field', JSON.stringify({ evaluationItems: [{ ...ITEMS[0], score: 5 }] }), 'evaluationItems.0'],
    ['not a list', '{"evaluationItems":"materi"}', 'evaluationItems'],
  ] as const) {
    const res = await as('PATCH', `/api/courses/${courseId}`, body);
    t.equal(res.status, 400, `${label}: refused`);
    t.match(res.body, { success: false, error: new RegExp(field.replace(/\./g, '\\.')) }, `${label}: names ${field}`);
  }
  t.same(await stored(), { min: 80, items: ITEMS, version: 2 }, 'nothing written by a refused body');

  const cleared = await as('PATCH', `/api/courses/${courseId}`, { postTestMinScore: null, evaluationItems: null });
  t.match(cleared.body.course, { postTestMinScore: null, evaluationItems: null }, "null: back to the scheme's");

  // Attackers: another institution's teacher, a member, the owner's API key.
  const outsider = await makeUser(db.db, { role: 'teacher', institutionId: await makeInstitution(db.db, 'Lain') });
  const foreign = await (await bySession(app, outsider.id))('PATCH', `/api/courses/${courseId}`, { postTestMinScore: 0 });
  t.equal(foreign.status, 404, "another institution's teacher: no such draft");
  const member = await makeUser(db.db, { role: 'student', institutionId });
  t.equal((await (await bySession(app, member.id))('PATCH', `/api/courses/${courseId}`, { postTestMinScore: 0 })).status, 403);
  const byKey = await app.inject({
    method: 'PATCH',
    url: `/api/courses/${courseId}`,
    headers: { 'x-api-key': await apiKeyFor(db.db, teacher.id), 'content-type': 'application/json' },
    payload: JSON.stringify({ postTestMinScore: 0 }),
  });
  t.equal(byKey.statusCode, 403, 'an API key does not author');
  t.match(await stored(), { min: null, items: null }, 'no attacker wrote');
});

t.test('the course document carries both, both ways', async (t) => {
  const { as, created, courseId, institutionId, teacher } = await setUp(t);
  t.match(created.body.document.course, { postTestMinScore: null, evaluationItems: null }, 'left out: null');
  const doc = structuredClone(created.body.document);
  doc.course.postTestMinScore = 75;
  doc.course.evaluationItems = ITEMS;
  const replaced = await as('PUT', `/api/courses/${courseId}/document`, doc);
  t.equal(replaced.status, 200, JSON.stringify(replaced.body).slice(0, 300));
  const exported = await as('GET', `/api/courses/${courseId}/document`);
  t.match(exported.body.document.course, { postTestMinScore: 75, evaluationItems: ITEMS });
  const copy = await as('POST', '/api/course-documents', exported.body.document);
  t.equal(copy.status, 201);
  t.match(copy.body.document.course, { postTestMinScore: 75, evaluationItems: ITEMS }, 'an import keeps them');
  const bad = sampleDocument({ institutionId, teacherId: teacher.id });
  Object.assign(bad.course, { postTestMinScore: 101, evaluationItems: [{ key: 'a', id: '', en: 'x' }] });
  const refused = await as('POST', '/api/course-documents', bad);
  t.equal(refused.status, 400);
  t.match(refused.body.error, /course\.postTestMinScore/);
  t.match(refused.body.error, /course\.evaluationItems\.0\.id/);
});

t.test("the studio's settings form: both fields, both languages, problems by line", async (t) => {
  const { app, teacher, courseId, stored } = await setUp(t);
  const url = `/dashboard/studio/courses/${courseId}/settings`;
  for (const [lang, group, label] of [
    ['id', 'Bukti kredit: post-test dan evaluasi', 'Butir evaluasi (skala Likert 1-5)'],
    ['en', 'Credit evidence: post-test and evaluation', 'Evaluation items (Likert scale 1-5)'],
  ] as const) {
    const page = await (await browserOf(app, teacher.id, lang)).get(url);
    t.match(page.body, group, `${lang}: the group`);
    t.match(page.body, label, `${lang}: the items' label`);
  }
  const b = await browserOf(app, teacher.id);
  const formOf = async () => {
    const page = (await b.get(url)).body;
    const form: Record<string, string> = {};
    for (const m of page.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) form[m[1]!] = m[2]!;
    for (const m of page.matchAll(/<textarea[^>]*name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g)) form[m[1]!] = m[2]!;
    for (const m of page.matchAll(/<select[^>]*name="([^"]+)"[\s\S]*?<option value="([^"]*)" selected/g)) form[m[1]!] = m[2]!;
    return form;
  };
  const lines = ITEMS.map((i) => `${i.key} | ${i.id} | ${i.en}`).join('\r\n');
  const saved = await b.post(url, { ...(await formOf()), postTestMinScore: '85', evaluationItems: lines });
  t.equal(saved.status, 303, saved.body.slice(0, 600));
  t.match(await stored(), { min: 85, items: ITEMS });
  const again = (await b.get(url)).body;
  t.equal(fieldValue(again, 'postTestMinScore'), '85');
  t.equal(fieldValue(again, 'evaluationItems'), ITEMS.map((i) => `${i.key} | ${i.id} | ${i.en}`).join('\n'), 'shown as typed');

  const many = Array.from({ length: 500 }, (_, i) => `k${i} | Butir ${i} | Item ${i}`).join('\n');
  for (const [label, fields, field, message] of [
    ['101', { postTestMinScore: '101' }, 'postTestMinScore', /100/],
    ['-1', { postTestMinScore: '-1' }, 'postTestMinScore', /0/],
    ['NaN', { postTestMinScore: 'NaN' }, 'postTestMinScore', /number/],
    [
      'a line of two parts',
      { evaluationItems: `${lines}\nmateri | only` },
      'evaluationItems',
      /Line 3: write key \| Bahasa Indonesia \| English/,
    ],
    ['10k characters', { evaluationItems: `a | ${'x'.repeat(10_000)} | y` }, 'evaluationItems', /Line 1: Use at most 300 characters/],
    ['500 items', { evaluationItems: many }, 'evaluationItems', /At most 20 items/],
    [
      'a repeated key',
      { evaluationItems: `${lines}\nmateri | lagi | again` },
      'evaluationItems',
      /Line 3: this key is already used on an earlier line/,
    ],
  ] as const) {
    const res = await b.post(url, { ...(await formOf()), ...fields });
    t.equal(res.status, 422, `${label}: refused`);
    t.match(res.body, new RegExp(`id="f-${field}-error">`), `${label}: next to the field`);
    const said = res.body.match(new RegExp(`id="f-${field}-error">([^<]*)<`))?.[1] ?? '';
    t.match(said, message, `${label}: ${said.slice(0, 80)}`);
  }
  t.match(await stored(), { min: 85, items: ITEMS }, 'nothing written by a refused form');
  const emptied = await b.post(url, { ...(await formOf()), postTestMinScore: '', evaluationItems: '' });
  t.equal(emptied.status, 303);
  t.match(await stored(), { min: null, items: null }, "emptied: the scheme's");
});
