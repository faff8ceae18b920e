import t from 'tap';
import { summarize } from '../src/load.js';
import { describeTarget, formatTable, makeRow, median, medianOf, missedLimits, ratioOf } from '../src/report.js';

t.test('median of odd and even counts, order does not matter', async (t) => {
  t.equal(median([3, 1, 2]), 2);
  t.equal(median([4, 1, 3, 2]), 2.5);
  t.equal(median([7]), 7);
  t.throws(() => median([]));
});

t.test('medianOf takes each figure on its own and sums the unexpected answers', async (t) => {
  const m = medianOf([
    { rps: 100, p50: 5, p99: 40, unexpected: 1, requests: 1000 },
    { rps: 300, p50: 2, p99: 10, unexpected: 0, requests: 3000 },
    { rps: 200, p50: 9, p99: 20, unexpected: 2, requests: 2000 },
  ]);
  t.same(m, { rps: 200, p50: 5, p99: 20, unexpected: 3, requests: 6000 });
});

t.test('ratios by kind', async (t) => {
  const m = { rps: 400, p50: 6, p99: 20 };
  const base = { rps: 1000, p50: 4, p99: 10 };
  t.equal(ratioOf('throughput', m, base), 0.4);
  t.equal(ratioOf('cost', m, base), 2.5);
  t.equal(ratioOf('latency', m, base), 1.5);
  t.equal(ratioOf('added', m, base), 1.5);
});

t.test('a target passes only when every limit holds', async (t) => {
  const base = { rps: 1000, p50: 4, p99: 10 };
  const target = { minRatio: 0.4, maxP99: 50 };
  t.same(missedLimits(target, { rps: 400, p50: 5, p99: 49.9 }, base, 0.4), []);
  t.same(missedLimits(target, { rps: 399, p50: 5, p99: 50 }, base, 0.399), ['ratio 0.40 < 0.4', 'p99 50.0 ms ≥ 50']);
  t.same(missedLimits({ maxAddedP50: 2 }, { rps: 1, p50: 6.5, p99: 9 }, base, 1.6), ['adds 2.50 ms ≥ 2']);
  t.same(missedLimits({ maxAddedP50: 2 }, { rps: 1, p50: 5.9, p99: 9 }, base, 1.5), []);
  t.same(missedLimits({ minRps: 1000, maxRatio: 1.5 }, { rps: 999, p50: 1, p99: 1 }, base, 1.6), ['ratio 1.60 > 1.5', '999 req/s < 1000']);
  t.same(missedLimits({ maxP50: 100 }, { rps: 1, p50: Number.NaN, p99: 1 }, base, 1), ['p50 NaN ms ≥ 100'], 'no answer at all is a miss');
  t.equal(describeTarget(target), 'ratio ≥ 0.4, p99 < 50 ms');
  t.equal(describeTarget(undefined), 'report only');
});

t.test('rows: pass, miss, report only and missing', async (t) => {
  const base = { rps: 1000, p50: 4, p99: 10 };
  const spec = { id: '2', scenario: 'list', baselineName: 'R0', kind: 'throughput' as const, target: { minRatio: 0.4 } };
  const pass = makeRow(spec, { rps: 500, p50: 5, p99: 20, cpuMs: 0.4321 }, base);
  t.equal(pass.status, 'pass');
  t.equal(pass.ratio, 0.5);
  const miss = makeRow(spec, { rps: 100, p50: 5, p99: 20, unexpected: 3, requests: 300 }, base);
  t.equal(miss.status, 'miss');
  t.equal(miss.note, 'ratio 0.10 < 0.4; 3 of 300 answers unexpected');
  const report = makeRow({ ...spec, target: undefined }, { rps: 100, p50: 5, p99: 20 }, base);
  t.equal(report.status, 'report');
  const missing = makeRow(spec, null, null, { status: 'missing', note: 'endpoint answers 404' });
  t.equal(missing.status, 'missing');
  t.equal(missing.ratio, null);

  const table = formatTable([pass, missing]).split('\n');
  t.equal(table.length, 4, 'header, rule, two rows');
  t.match(table[0], /^\| # +\| scenario +\| req\/s +\| p50 ms +\| p99 ms +\| CPU ms\/req +\| baseline/);
  t.match(table[2], /\| 500 +\| 5\.00 +\| 20\.00 +\| 0\.432 +\| R0 \(1,000 req\/s\) +\| 0\.50 +\| ratio ≥ 0\.4 +\| pass +\|$/);
  t.match(table[3], /\| — +\| — +\| — +\| — +\| R0 +\| — +\| ratio ≥ 0\.4 +\| missing \(endpoint answers 404\) +\|$/);
  t.equal(new Set(table.map((l) => l.length)).size, 1, 'columns aligned');
});

t.test('summarize: percentiles of the recorded latencies and the rate over the elapsed time', async (t) => {
  const latencies = Array.from({ length: 100 }, (_, i) => 100 - i);
  const m = summarize(latencies, 2, 4);
  t.equal(m.rps, 50);
  t.equal(m.p50, 50);
  t.equal(m.p99, 99);
  t.equal(m.unexpected, 4);
  t.equal(m.requests, 100);
});
