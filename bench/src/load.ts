/**
 * Load runners: autocannon against a URL (no pipelining), and a closed loop of N concurrent
 * workers calling a function (the direct baselines). Both record every latency themselves (float
 * ms from autocannon's per-response event; its own histogram keeps whole milliseconds and only
 * 2xx answers) and count answers with an unexpected status.
 */
import autocannon from 'autocannon';
import { type Measurement, medianOf } from './report.js';

export interface Plan {
  warmupSeconds: number;
  repetitions: number;
  seconds: number;
}

export interface HttpLoad {
  url: string;
  path: string;
  method?: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** The status every answer should have. */
  expect: number;
  /** Called for every request: headers, path or body that change per request (API key rotation, fresh tokens, an edit's text). */
  perRequest?: () => { path?: string; headers?: Record<string, string>; body?: string };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function summarize(latencies: number[], seconds: number, unexpected: number): Measurement {
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: latencies.length / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    unexpected,
    requests: latencies.length,
  };
}

export async function runHttp(load: HttpLoad, seconds: number): Promise<Measurement> {
  const latencies: number[] = [];
  let unexpected = 0;
  const base = { method: load.method ?? 'GET', path: load.path, headers: load.headers ?? {}, body: load.body };
  const perRequest = load.perRequest;
  const requests = perRequest
    ? [
        {
          ...base,
          setupRequest: (req: Record<string, unknown>) => {
            const change = perRequest();
            return {
              ...req,
              ...(change.path ? { path: change.path } : {}),
              ...(change.body !== undefined ? { body: change.body } : {}),
              headers: { ...(req.headers as Record<string, string>), ...change.headers },
            };
          },
        },
      ]
    : [base];
  const started = process.hrtime.bigint();
  const instance = autocannon({
    url: load.url,
    connections: load.connections,
    pipelining: 1,
    duration: seconds,
    timeout: 30,
    requests,
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
    if (statusCode !== load.expect) unexpected += 1;
  });
  const result = await instance;
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  unexpected += result.errors + result.timeouts;
  return summarize(latencies, Math.max(elapsed, seconds), unexpected);
}

/** `workers` concurrent loops of `op` for `seconds`; an op that throws counts as unexpected. */
export async function runLoop(op: (i: number) => Promise<void>, workers: number, seconds: number): Promise<Measurement> {
  const latencies: number[] = [];
  let unexpected = 0;
  let next = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        try {
          await op(next++);
          latencies.push(performance.now() - t0);
        } catch {
          unexpected += 1;
        }
      }
    }),
  );
  return summarize(latencies, (performance.now() - started) / 1000, unexpected);
}

/** Warm-up (discarded), then the repetitions; the median of each figure. */
export async function measure(
  run: (seconds: number) => Promise<Measurement>,
  plan: Plan,
): Promise<{ median: Measurement; reps: Measurement[] }> {
  if (plan.warmupSeconds > 0) await run(plan.warmupSeconds);
  const reps: Measurement[] = [];
  for (let i = 0; i < plan.repetitions; i++) reps.push(await run(plan.seconds));
  return { median: medianOf(reps), reps };
}

/** One of two loads measured in alternation: its runner, and around every measured run, a hook (the served process's CPU). */
export interface AlternatingSide {
  run: (seconds: number) => Promise<Measurement>;
  around?: <T>(run: () => Promise<T>) => Promise<T>;
}

/**
 * Two loads measured in alternation: both warm-ups, then the repetitions in the order A B, B A,
 * A B, ... On a shared machine whose speed drifts during a run (other tenants), both loads see
 * the same drift, so their ratio keeps what differs between them; measured one after the other,
 * minutes apart, the ratio also carries the drift. The median of each figure per load.
 */
export async function measureAlternating(
  a: AlternatingSide,
  b: AlternatingSide,
  plan: Plan,
): Promise<{ a: { median: Measurement; reps: Measurement[] }; b: { median: Measurement; reps: Measurement[] } }> {
  if (plan.warmupSeconds > 0) {
    await a.run(plan.warmupSeconds);
    await b.run(plan.warmupSeconds);
  }
  const reps = { a: [] as Measurement[], b: [] as Measurement[] };
  const once = async (side: AlternatingSide, into: Measurement[]) => {
    const run = () => side.run(plan.seconds);
    into.push(await (side.around ? side.around(run) : run()));
  };
  for (let i = 0; i < plan.repetitions; i++) {
    if (i % 2 === 0) {
      await once(a, reps.a);
      await once(b, reps.b);
    } else {
      await once(b, reps.b);
      await once(a, reps.a);
    }
  }
  return { a: { median: medianOf(reps.a), reps: reps.a }, b: { median: medianOf(reps.b), reps: reps.b } };
}
