import t from 'tap';
import { measureAlternating } from '../src/load.js';
import type { Measurement } from '../src/report.js';

t.test('measureAlternating: both warm-ups first, then A B, B A, A B; medians per load; the hook around measured runs only', async (t) => {
  const calls: string[] = [];
  const wrapped: string[] = [];
  let rate = 100;
  // Each run is slower than the one before (a machine slowing down during the run).
  const side = (name: string) => ({
    run: async (seconds: number): Promise<Measurement> => {
      calls.push(`${name}${seconds}`);
      rate -= 10;
      return { rps: name === 'a' ? rate : rate * 2, p50: seconds, p99: seconds, unexpected: name === 'a' ? 1 : 0, requests: 10 };
    },
    around: async <T>(run: () => Promise<T>) => {
      wrapped.push(name);
      return run();
    },
  });
  const result = await measureAlternating(side('a'), side('b'), { warmupSeconds: 1, repetitions: 3, seconds: 5 });
  t.same(calls, ['a1', 'b1', 'a5', 'b5', 'b5', 'a5', 'a5', 'b5']);
  t.same(wrapped, ['a', 'b', 'b', 'a', 'a', 'b'], 'the hook wraps the six measured runs, not the warm-ups');
  t.same(
    result.a.reps.map((r) => r.rps),
    [70, 40, 30],
  );
  t.same(
    result.b.reps.map((r) => r.rps),
    [120, 100, 40],
  );
  t.equal(result.a.median.rps, 40);
  t.equal(result.b.median.rps, 100);
  t.equal(result.a.median.unexpected, 3, 'unexpected answers summed over the repetitions');
  t.equal(result.a.median.requests, 30);
});

t.test('measureAlternating: no warm-up when the plan has none; an even count of repetitions ends B A', async (t) => {
  const calls: string[] = [];
  const side = (name: string) => ({
    run: async (): Promise<Measurement> => {
      calls.push(name);
      return { rps: 1, p50: 1, p99: 1 };
    },
  });
  await measureAlternating(side('a'), side('b'), { warmupSeconds: 0, repetitions: 4, seconds: 1 });
  t.same(calls, ['a', 'b', 'b', 'a', 'a', 'b', 'b', 'a']);
});
