import t from 'tap';
import { buildTestApp } from '../../helpers/app.js';
import { makeCategory, makeCourse } from '../../helpers/catalog-fixtures.js';
import { apiKeyFor, makeInstitution, makeUser } from '../../helpers/fixtures.js';

// `%`, `_` and `\` are literal in every one of the six searched fields, in any letter case.
// Each field gets a value with the wildcard character on one course and a decoy that the
// character, read as a pattern, would also match.

const { app, db: testDb } = await buildTestApp(t);
const db = testDb.db;
// Route configs as requests see them (auth and the rate limiter key off them). onResponse runs
// for every request, also after a 401.
const routeConfigs = new Map<string, unknown>();
app.addHook('onResponse', async (request) => {
  routeConfigs.set(request.routeOptions.url ?? '', request.routeOptions.config);
});
const institutionId = await makeInstitution(db);
const teacher = await makeUser(db, { role: 'teacher' });
const base = { institutionId, teacherId: teacher.id };

const pctCategory = await makeCategory(db, { code: 'Pct%Code', name: 'Plain one' });
const pctCategoryDecoy = await makeCategory(db, { code: 'PctXYCode', name: 'Plain two' });
const underCategory = await makeCategory(db, { code: 'plain3', name: 'Under_Name' });
const underCategoryDecoy = await makeCategory(db, { code: 'plain4', name: 'UnderXName' });

const cases = [
  // [field label, search text, course fields that match, decoy fields that must not]
  ['name', 'TEN% Off', { name: 'Ten% off course' }, { name: 'Ten off course' }],
  ['description', 'Disc_Ount', { description: 'a disc_ount here' }, { description: 'a discXount here' }],
  ['instructor', 'dr\\WHO', { instructor: 'Dr\\Who' }, { instructor: 'DrWho' }],
  ['course code', 'k_9%', { courseCode: 'K_9%-1' }, { courseCode: 'KX9Y-1' }],
  ['category code', 'pCT%co', { categoryId: pctCategory.id }, { categoryId: pctCategoryDecoy.id }],
  ['category name', 'uNDER_n', { categoryId: underCategory.id }, { categoryId: underCategoryDecoy.id }],
] as const;

const made: { label: string; search: string; hit: string; decoy: string }[] = [];
for (const [label, search, hitFields, decoyFields] of cases) {
  const hit = await makeCourse(db, { ...base, name: `Hit ${label}`, ...hitFields });
  const decoy = await makeCourse(db, { ...base, name: `Decoy ${label}`, ...decoyFields });
  made.push({ label, search, hit: hit.name, decoy: decoy.name });
}
const key = { 'x-api-key': await apiKeyFor(db, teacher.id) };

t.test('each field: mixed case and wildcard characters match literally', async (t) => {
  for (const { label, search, hit, decoy } of made) {
    const res = await app.inject({ url: `/api/courses?search=${encodeURIComponent(search)}`, headers: key });
    t.equal(res.statusCode, 200);
    const names = res.json().courses.map((c: { name: string }) => c.name);
    t.same(names, [hit], `${label}: "${search}" finds "${hit}" and not "${decoy}"`);
    t.equal(res.json().pagination.total, 1);
  }
});

t.test('the same searches as plain patterns would have matched the decoys', async (t) => {
  // Guard for the test itself: without escaping, each search text would match its decoy.
  for (const [label, search, , decoyFields] of cases) {
    const asPattern = new RegExp(
      // LIKE semantics: `\` escapes the next character, `%` is any text, `_` any one character.
      search
        .replace(/\\/g, '')
        .replace(/[.*+?^${}()|[\]]/g, '\\$&')
        .replace(/%/g, '.*')
        .replace(/_/g, '.'),
      'i',
    );
    const decoyText = Object.values(decoyFields).join(' ');
    const categoryText = label.startsWith('category')
      ? [pctCategoryDecoy, underCategoryDecoy].map((c) => `${c.code} ${c.name}`).join(' ')
      : '';
    t.ok(asPattern.test(`${decoyText} ${categoryText}`), `${label}: the decoy is a real trap`);
  }
});

t.test('the three catalog routes require authentication and count against the API-key rate limit', async (t) => {
  for (const url of ['/api/courses', '/api/courses/1', '/api/recommended-courses']) await app.inject({ url });
  for (const route of ['/api/courses', '/api/courses/:id', '/api/recommended-courses']) {
    t.match(routeConfigs.get(route), { auth: true, rateLimited: true }, route);
  }
});
