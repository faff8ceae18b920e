import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';
import { apiKeyFor, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// Authentication rule 5 of the spec: every API-key call counts against the key's window,
// /api/lms-progress included (it shares the catalog's window of 100 a minute).
t.test("/api/lms-progress answers 429 once the key's window is spent", async (t) => {
  const time = manualClock();
  const { app, db } = await buildTestApp(t, { deps: { clock: time.clock } });
  const teacher = await makeUser(db.db, { role: 'teacher' });
  const key = await apiKeyFor(db.db, teacher.id);
  const progress = (headers: Record<string, string>) => app.inject({ url: '/api/lms-progress', headers });

  time.at(10);
  for (let i = 0; i < 99; i += 1) {
    const res = await progress({ 'x-api-key': key });
    if (res.statusCode !== 200) t.fail(`request ${i + 1} got ${res.statusCode}`);
  }
  const hundredth = await progress({ 'x-api-key': key });
  t.equal(hundredth.statusCode, 200);
  t.equal(hundredth.headers.ratelimit, '"default";r=0;t=60', 'the answer says the window is spent');
  const over = await progress({ 'x-api-key': key });
  t.equal(over.statusCode, 429);
  t.same(over.json(), { success: false, error: 'Rate limit exceeded' });
  t.equal(over.headers['retry-after'], '60');
  t.equal((await app.inject({ url: '/api/courses', headers: { 'x-api-key': key } })).statusCode, 429, 'one window with the catalog');

  const cookie = await sessionCookieFor(app, teacher.id);
  t.equal((await progress({ cookie })).statusCode, 200, 'sessions are not rate limited');
  time.at(71);
  t.equal((await progress({ 'x-api-key': key })).statusCode, 200, 'allowed again once the oldest call left the window');

  const doc = (await app.inject('/docs/json')).json();
  const op = doc.paths['/api/lms-progress'].get;
  t.ok(op.responses['429'], 'the 429 is documented');
  t.notMatch(op.description, /Not rate limited/);
  t.match(op.description, /counts against that key's sliding window/);
  t.match(doc.info.description, /progress \(`\/api\/lms-progress`\) endpoints are limited/);
});
