import { creditSchemes } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// /dashboard/schemes: super_admin only; the shipped schemes listed in both languages; the form
// adds a scheme and changes one; a wrong value is a 422 page naming it and stores nothing; a
// cross-site form is refused.

const ORIGIN = 'http://localhost:3000';

t.test('the credit schemes page', async (t) => {
  const { app, db: testDb } = await buildTestApp(t);
  const db = testDb.db;
  const institutionId = await makeInstitution(db);
  const cookieOf = async (role: 'admin' | 'teacher' | 'student' | 'super_admin') =>
    sessionCookieFor(app, (await makeUser(db, { role, ...(role === 'super_admin' || role === 'student' ? {} : { institutionId }) })).id);
  const get = (cookie: string, lang = 'en') => app.inject({ url: '/dashboard/schemes', headers: { cookie, 'accept-language': lang } });
  const post = (cookie: string, body: Record<string, string>, origin = ORIGIN) =>
    app.inject({
      method: 'POST',
      url: '/dashboard/schemes',
      headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(body).toString(),
    });
  const fresh = {
    code: 'skp-ppni',
    body: 'Persatuan Perawat Nasional Indonesia',
    unit: 'SKP',
    maxPerCourse: '25',
    minutesPerUnit: '50',
    rounding: 'down',
  };

  for (const role of ['admin', 'teacher', 'student'] as const) {
    const cookie = await cookieOf(role);
    t.equal((await get(cookie)).statusCode, 403, `${role}: 403`);
    t.equal((await post(cookie, fresh)).statusCode, 403, `${role} saving: 403`);
  }
  t.equal((await app.inject({ url: '/dashboard/schemes' })).statusCode, 302, 'no session: to sign-in');
  t.equal(await db.$count(creditSchemes, eq(creditSchemes.code, 'SKP-PPNI')), 0);

  const sa = await cookieOf('super_admin');
  const en = await get(sa);
  t.equal(en.statusCode, 200);
  t.match(en.body, 'Credit schemes');
  t.match(en.body, /<code>SKP-KEMENKES<\/code>/);
  t.match(en.body, 'Kementerian Kesehatan RI');
  t.match((await get(sa, 'id')).body, 'Skema kredit');
  t.match((await app.inject({ url: '/dashboard', headers: { cookie: sa } })).body, 'href="/dashboard/schemes"');

  const cross = await post(sa, fresh, 'https://evil.example');
  t.equal(cross.statusCode, 403, `a cross-site form: ${cross.body.slice(0, 200)}`);
  const bad = await post(sa, { ...fresh, maxPerCourse: '5000', minMinutesShare: '0' });
  t.equal(bad.statusCode, 422);
  t.match(bad.body, /maxPerCourse must be more than 0 and at most 1000/);
  t.match(bad.body, /minMinutesShare must be a whole number 1-100/);
  t.equal(await db.$count(creditSchemes, eq(creditSchemes.code, 'SKP-PPNI')), 0, 'nothing stored');
  const saved = await post(sa, fresh);
  t.equal(saved.statusCode, 303, saved.body.slice(0, 300));
  t.match(saved.headers.location, /done=saved/);
  const [row] = await db.select().from(creditSchemes).where(eq(creditSchemes.code, 'SKP-PPNI'));
  t.match(row, { body: 'Persatuan Perawat Nasional Indonesia', unit: 'SKP', maxPerCourse: 25, minutesPerUnit: 50, builtIn: false });
  const changed = await post(sa, { ...fresh, maxPerCourse: '30', requiresEvaluation: 'on' });
  t.equal(changed.statusCode, 303);
  const [again] = await db.select().from(creditSchemes).where(eq(creditSchemes.code, 'SKP-PPNI'));
  t.match(again, { maxPerCourse: 30, requiresEvaluation: true });
});
