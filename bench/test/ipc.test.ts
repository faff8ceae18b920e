import t from 'tap';
import { type CapturedStatement, waves } from '../src/ipc.js';

const at = (text: string, startMs: number, endMs: number): CapturedStatement => ({ text, values: [], startMs, endMs });

t.test('waves: statements sent one after the other are replayed in order, statements sent together go together', async (t) => {
  const plan = waves([at('session', 0, 2), at('list', 3, 9), at('count', 3.5, 6), at('learner', 8, 12), at('bundles', 13, 14)]);
  t.same(
    plan.map((w) => w.map((s) => s.text)),
    [['session'], ['list', 'count', 'learner'], ['bundles']],
    'a statement that starts before its wave has ended joins it; one that starts after opens the next',
  );
});

t.test('waves: recorded out of order, sorted by start; nothing recorded, nothing to replay', async (t) => {
  t.same(
    waves([at('b', 5, 6), at('a', 0, 1)]).map((w) => w.map((s) => s.text)),
    [['a'], ['b']],
  );
  t.same(waves([]), []);
});
