import t from 'tap';
import { SharedAnswers } from '../../src/lib/shared-answers.js';

// CI runs this file once (not again in the PostgreSQL pass): a pure function, no database.

// The memo behind the shared catalog answers and the API-key lookups (both also tested through
// HTTP): its time limit, single flight, failures and size bound.

function setup(maxEntries = 3) {
  let now = 0;
  let computed = 0;
  const answers = new SharedAnswers<string>({ ttlMs: 1_000, maxEntries, now: () => now });
  const compute = (value: string) => async () => {
    computed += 1;
    return value;
  };
  return { answers, compute, at: (ms: number) => (now = ms), computed: () => computed };
}

t.test('one computation per key until it is ttlMs old', async (t) => {
  const s = setup();
  t.equal(await s.answers.get('a', s.compute('first')), 'first');
  s.at(999);
  t.equal(await s.answers.get('a', s.compute('second')), 'first');
  s.at(1_000);
  t.equal(await s.answers.get('a', s.compute('third')), 'third');
  t.equal(s.computed(), 2);
});

t.test('callers who ask while it is computed wait for that computation', async (t) => {
  const s = setup();
  let release!: (v: string) => void;
  const slow = () => new Promise<string>((resolve) => (release = resolve));
  const first = s.answers.get('k', slow);
  const second = s.answers.get('k', s.compute('never'));
  release('shared');
  t.same(await Promise.all([first, second]), ['shared', 'shared']);
  t.equal(s.computed(), 0);
});

t.test('a failure is not kept', async (t) => {
  const s = setup();
  await t.rejects(
    s.answers.get('k', async () => Promise.reject(new Error('database down'))),
    /database down/,
  );
  t.equal(await s.answers.get('k', s.compute('recovered')), 'recovered');
});

t.test('at most maxEntries are kept, the oldest go first, the expired go as new ones come', async (t) => {
  const s = setup(3);
  for (const k of ['a', 'b', 'c', 'd']) await s.answers.get(k, s.compute(k));
  t.equal(s.answers.size, 3);
  t.equal(await s.answers.get('a', s.compute('a again')), 'a again', 'a was evicted');
  s.at(5_000);
  await s.answers.get('e', s.compute('e'));
  t.equal(s.answers.size, 1, 'the expired answers are dropped');
  s.answers.delete('e');
  t.equal(s.answers.size, 0);
});

t.test('refresh: the next caller computes and waits; callers meanwhile get the previous answer', async (t) => {
  const s = setup();
  t.equal(await s.answers.get('k', s.compute('before')), 'before');
  s.answers.refresh();
  let release!: (v: string) => void;
  const slow = () => new Promise<string>((resolve) => (release = resolve));
  const first = s.answers.get('k', slow);
  t.equal(await s.answers.get('k', s.compute('never')), 'before', 'while it is computed: the previous answer');
  release('after');
  t.equal(await first, 'after', 'the caller that asked first waits for the new answer');
  t.equal(await s.answers.get('k', s.compute('never')), 'after', 'then everyone gets it');
  t.equal(s.computed(), 1);
  // A failed refresh keeps the previous answer for the others, and the next caller tries again.
  s.answers.refresh();
  await t.rejects(
    s.answers.get('k', async () => Promise.reject(new Error('down'))),
    /down/,
  );
  t.equal(await s.answers.get('k', s.compute('again')), 'again');
  // An expired answer is computed afresh as before, refresh or not.
  s.answers.refresh();
  s.at(60_000);
  t.equal(await s.answers.get('k', s.compute('expired')), 'expired');
});

t.test('refresh while a refresh is computed: that answer may miss the change, so it is computed again', async (t) => {
  const s = setup();
  t.equal(await s.answers.get('k', s.compute('v1')), 'v1');
  s.answers.refresh(); // change 1
  let release!: (v: string) => void;
  const slow = () => new Promise<string>((resolve) => (release = resolve));
  const first = s.answers.get('k', slow); // reads the data after change 1
  s.answers.refresh(); // change 2 commits while it runs
  release('v2, without change 2');
  t.equal(await first, 'v2, without change 2', 'its caller gets what it waited for');
  t.equal(
    await s.answers.get('k', s.compute('v3, with change 2')),
    'v3, with change 2',
    'the next caller gets an answer made after change 2',
  );
  t.equal(await s.answers.get('k', s.compute('never')), 'v3, with change 2', 'then it is shared again');
  t.equal(s.computed(), 2);
});
