import { creditSchemes } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { cliFor } from '../helpers/cli.js';
import { testDatabaseUrl } from '../helpers/database.js';

// `lms-admin scheme list|set`: the shipped schemes listed, a new one added, a shipped one changed,
// and every bound refused with a usage error (exit 2) naming it.

t.test('scheme list and set', async (t) => {
  const db = await createTestDb(testDatabaseUrl);
  t.teardown(() => db.destroy());
  const cli = cliFor(db);
  const list = await cli('scheme', 'list');
  t.equal(list.code, 0, list.err);
  t.match(list.out, /CODE\s+UNIT\s+MIN\/UNIT/);
  t.match(list.out, /SKP-KEMENKES\s+JPL\s+45\s+down\s+50\s+yes\s+70\s+yes\s+80\s+80/);

  const added = await cli(
    'scheme',
    'set',
    'skp-ppni',
    '--body',
    'Persatuan Perawat Nasional Indonesia',
    '--unit',
    'SKP',
    '--max-per-course',
    '25',
    '--minutes-per-unit',
    '50',
  );
  t.equal(added.code, 0, added.err);
  t.equal(added.out, 'Scheme SKP-PPNI added: 25 SKP at most per course, 50 minutes a SKP (down).');
  const changed = await cli('scheme', 'set', 'SKP-KEMENKES', '--minutes-share', '90', '--minutes-per-unit', 'none');
  t.equal(changed.code, 0, changed.err);
  const [row] = await db.db.select().from(creditSchemes).where(eq(creditSchemes.code, 'SKP-KEMENKES'));
  t.match(row, { minMinutesShare: 90, minutesPerUnit: null, builtIn: true, maxPerCourse: 50 }, 'only what was given changes');

  for (const [args, why] of [
    [['set', 'NEW', '--unit', 'X', '--max-per-course', '5'], /needs --body/],
    [['set', 'SKP', '--max-per-course', '1000.01'], /maxPerCourse/],
    [['set', 'SKP', '--max-per-course', '0'], /maxPerCourse/],
    [['set', 'SKP', '--minutes-per-unit', '601'], /minutesPerUnit/],
    [['set', 'SKP', '--rounding', 'up'], /rounding/],
    [['set', 'SKP', '--post-test-min', '101'], /postTestMinScore/],
    [['set', 'SKP', '--minutes-share', '0'], /minMinutesShare/],
    [['set', 'SKP', '--body', 'x'.repeat(201)], /body/],
    [['set', 'SKP', '--unit', 'x'.repeat(21)], /unit/],
    [['set', 'BAD CODE', '--body', 'b', '--unit', 'u', '--max-per-course', '1'], /code/],
    [
      ['set', 'SKP', '--evaluation-items', JSON.stringify(Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, id: 'a', en: 'b' })))],
      /1-20 items/,
    ],
    [['set', 'SKP', '--evaluation-items', '[{"key":"Bad Key","id":"a","en":"b"}]'], /key/],
    [['set', 'SKP', '--pre-test', 'maybe'], /yes or no/],
  ] as const) {
    const res = await cli('scheme', ...args);
    t.equal(res.code, 2, `${args.join(' ')}: ${res.err}`);
    t.match(res.err, why);
  }
  const [skp] = await db.db.select().from(creditSchemes).where(eq(creditSchemes.code, 'SKP'));
  t.match(skp, { maxPerCourse: 50, unit: 'SKP' }, 'nothing refused was stored');
});
