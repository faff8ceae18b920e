import { creditTargets, partners } from '@lms/db';
import { createTestDb } from '@lms/db/testing';
import { asc } from 'drizzle-orm';
import t from 'tap';
import { cliFor } from '../helpers/cli.js';
import { testDatabaseUrl } from '../helpers/database.js';

// `lms-admin partner credit-target set|list|remove`, and every value it refuses.

t.test('partner credit-target', async (t) => {
  const db = await createTestDb(testDatabaseUrl);
  t.teardown(() => db.destroy());
  const cli = cliFor(db);
  await db.db.insert(partners).values({ issuer: 'iai.example.or.id', name: 'IAI' });
  const targets = () =>
    db.db
      .select({ scheme: creditTargets.scheme, period: creditTargets.period, years: creditTargets.years, amount: creditTargets.amount })
      .from(creditTargets)
      .orderBy(asc(creditTargets.period), asc(creditTargets.years));

  const perYear = await cli('partner', 'credit-target', 'set', 'IAI.example.or.id', '--scheme', 'skp', '--per-year', '30');
  t.equal(perYear.code, 0, perYear.err);
  t.equal(perYear.out, 'Credit target of iai.example.or.id: 30 SKP per calendar year.');
  const rolling = await cli(
    'partner',
    'credit-target',
    'set',
    'iai.example.or.id',
    '--scheme',
    'SKP',
    '--rolling-years',
    '3',
    '--amount',
    '120',
  );
  t.equal(rolling.code, 0, rolling.err);
  // Set again: the amount is replaced, not a second target.
  t.equal((await cli('partner', 'credit-target', 'set', 'iai.example.or.id', '--scheme', 'SKP', '--per-year', '32.5')).code, 0);
  t.same(await targets(), [
    { scheme: 'SKP', period: 'calendar_year', years: 1, amount: 32.5 },
    { scheme: 'SKP', period: 'rolling', years: 3, amount: 120 },
  ]);
  const list = await cli('partner', 'credit-target', 'list');
  t.equal(list.code, 0);
  t.match(list.out, /ISSUER\s+SCHEME\s+PERIOD\s+YEARS\s+AMOUNT/);
  t.match(list.out, /iai\.example\.or\.id\s+SKP\s+calendar_year\s+1\s+32\.5/);
  t.match(list.out, /iai\.example\.or\.id\s+SKP\s+rolling\s+3\s+120/);

  for (const [args, why] of [
    [['set', 'iai.example.or.id', '--scheme', 'SKP', '--per-year', '0'], 'amount 0'],
    [['set', 'iai.example.or.id', '--scheme', 'SKP', '--per-year', '-5'], 'a negative amount'],
    [['set', 'iai.example.or.id', '--scheme', 'SKP', '--per-year', '10000'], 'above 9999.99'],
    [['set', 'iai.example.or.id', '--scheme', 'SKP', '--per-year', '1.234'], 'three decimals'],
    [['set', 'iai.example.or.id', '--scheme', 'SKP', '--per-year', 'x'], 'not a number'],
    [['set', 'iai.example.or.id', '--scheme', 'S K P', '--per-year', '3'], 'a scheme with spaces'],
    [['set', 'iai.example.or.id', '--scheme', '1SKP', '--per-year', '3'], 'a scheme starting with a digit'],
    [['set', 'iai.example.or.id', '--scheme', `S${'K'.repeat(20)}`, '--per-year', '3'], 'a scheme of 21 characters'],
    [['set', 'iai.example.or.id', '--scheme', 'SKP', '--rolling-years', '0', '--amount', '3'], 'years 0'],
    [['set', 'iai.example.or.id', '--scheme', 'SKP', '--rolling-years', '11', '--amount', '3'], 'years 11'],
    [['set', 'iai.example.or.id', '--scheme', 'SKP', '--rolling-years', '3'], 'rolling without an amount'],
    [['set', 'iai.example.or.id', '--scheme', 'SKP', '--per-year', '3', '--rolling-years', '3'], 'both periods'],
    [['set', 'iai.example.or.id', '--scheme', 'SKP'], 'no period'],
    [['set', '--scheme', 'SKP', '--per-year', '3'], 'no issuer'],
    [['frobnicate'], 'an unknown action'],
  ] as const) {
    const res = await cli('partner', 'credit-target', ...args);
    t.equal(res.code, 2, `${why}: a usage error (${res.err})`);
  }
  const unknown = await cli('partner', 'credit-target', 'set', 'nobody.example', '--scheme', 'SKP', '--per-year', '3');
  t.equal(unknown.code, 1);
  t.match(unknown.err, /no partner with issuer nobody\.example/);
  t.equal((await targets()).length, 2, 'nothing refused was written');

  const removed = await cli('partner', 'credit-target', 'remove', 'iai.example.or.id', '--scheme', 'SKP', '--per-year');
  t.equal(removed.code, 0, removed.err);
  const again = await cli('partner', 'credit-target', 'remove', 'iai.example.or.id', '--scheme', 'SKP', '--per-year');
  t.equal(again.code, 1, 'nothing left to remove');
  t.equal((await cli('partner', 'credit-target', 'remove', 'iai.example.or.id', '--scheme', 'SKP', '--rolling-years', '3')).code, 0);
  t.same(await targets(), []);
  const empty = await cli('partner', 'credit-target', 'list', 'iai.example.or.id');
  t.equal(empty.code, 0);
  t.match(empty.err, /No credit targets/);
});
