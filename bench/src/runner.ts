import { GENERIC_PLAN_OPTIONS, plansGenerically, poolSizes } from '@lms/db';
import pg from 'pg';
import { type AppsUnderTest, ask, type Child, cpuMeter, withCpu } from './apps-under-test.js';
import { type CapturedStatement, waves } from './ipc.js';
import { type AlternatingSide, type HttpLoad, measure, measureAlternating, type Plan, runHttp, runLoop } from './load.js';
import { load1, log } from './options.js';
import { makeRow, type Measurement, type RatioKind, type Row, type Target } from './report.js';
import type { TokenPool } from './tokens.js';

// How a bench run measures and records: each load measured once per run (baselines are shared by
// several rows), a route and its baseline in alternation where a row has a target against it, and
// every row with its reason when it could not be measured. The scenarios (scenarios/) say what.

/** A row of the table before it is measured. */
export interface Spec {
  id: string;
  scenario: string;
  baselineName: string;
  kind: RatioKind;
  target?: Target;
}

/** Why a load has no figure: its endpoint is not there, or it answered or failed unexpectedly. */
export type NotMeasured = { status: 'missing' | 'error'; note: string };

/** A measurement, or why there is none. */
export type Measured = { m: Measurement | null; why?: NotMeasured };

/** A load of a paired measurement: how to check it answers (null: it does), and how to run it. */
export interface PairSide {
  key: string;
  ready: () => Promise<NotMeasured | null>;
  side: () => AlternatingSide & { child?: Child };
}

/** The replay's pools, split as createDb splits the LMS's (poolSizes): one for statements named for a generic plan. */
export interface SqlPools {
  main: pg.Pool;
  generic: pg.Pool;
}

/**
 * Pools for replaying a route's SQL, split as createDb splits the LMS's pool of 10: statements named
 * for a generic plan (a search's page) go to connections planning them once, as they do in the LMS.
 */
export function openSqlPools(url: string): SqlPools & { end: () => Promise<void> } {
  const sizes = poolSizes(10);
  const main = new pg.Pool({ connectionString: url, max: sizes.main });
  const generic = new pg.Pool({ connectionString: url, max: sizes.generic, options: GENERIC_PLAN_OPTIONS });
  return { main, generic, end: async () => void (await Promise.all([main.end(), generic.end()])) };
}

/** One request of `load` (its per-request change applied), as autocannon would send it. */
function fetchOnce(load: HttpLoad): Promise<Response> {
  const change = load.perRequest?.() ?? {};
  return fetch(load.url + (change.path ?? load.path), {
    method: load.method ?? 'GET',
    headers: { ...load.headers, ...change.headers },
    body: change.body ?? load.body,
    redirect: 'manual',
  });
}

/** One request outside the measured runs: is the endpoint there and does it answer as expected? */
export async function probe(load: HttpLoad): Promise<NotMeasured | null> {
  const res = await fetchOnce(load);
  const text = await res.text();
  if (res.status === load.expect) return null;
  if (res.status === 404 && load.expect !== 404) return { status: 'missing', note: `endpoint answers 404: ${text.slice(0, 120)}` };
  return { status: 'error', note: `probe answered ${res.status} (expected ${load.expect}): ${text.slice(0, 160)}` };
}

export class BenchRun {
  readonly rows: Row[] = [];
  /** The one-minute load average after each load was measured, by load. */
  readonly loads: Record<string, number> = {};
  /** How each route's recorded SQL was shaped, for the report (key: the baseline's name). */
  readonly sqlShapes: Record<string, string> = {};
  private readonly measured = new Map<string, Measurement>();
  /** Paired measurements by `target | baseline`, so that a second row of the same pair (6p) reads the first's. */
  private readonly pairs = new Map<string, { target: Measurement; base: Measurement }>();

  constructor(
    private readonly plan: Plan,
    private readonly apps: AppsUnderTest,
    /** Tokens signed before a token scenario's first probe: enough for a one-second run at any rate reached. */
    private readonly tokensForProbe: number,
  ) {}

  record(spec: Spec, m: Measurement | null, base: Measurement | null, why?: NotMeasured) {
    const row = makeRow(spec, m, base, why);
    this.rows.push(row);
    log(
      `  -> ${row.id} ${row.scenario}: ${row.measured ? `${row.measured.rps.toFixed(0)} req/s p50 ${row.measured.p50.toFixed(2)} ms` : '—'} ${row.status} ${row.note}`,
    );
  }

  private keep(key: string, m: Measurement) {
    this.measured.set(key, m);
    this.loads[key] = load1();
  }

  /** Measures a load once per run (baselines are shared by several scenarios); null with the reason when it cannot. */
  async measureHttp(key: string, load: HttpLoad): Promise<Measured> {
    const known = this.measured.get(key);
    if (known) return { m: known };
    try {
      const why = await probe(load);
      if (why) return { m: null, why };
      const { plan } = this;
      log(`measuring ${key} (${load.connections} connections, warm-up ${plan.warmupSeconds} s, ${plan.repetitions} x ${plan.seconds} s)`);
      const median = await withCpu(this.apps.get(load.url), async () => (await measure((s) => runHttp(load, s), plan)).median);
      this.keep(key, median);
      return { m: median };
    } catch (err) {
      return { m: null, why: { status: 'error', note: (err as Error).message } };
    }
  }

  async measureLoop(key: string, op: (i: number) => Promise<void>, workers: number): Promise<Measured> {
    const known = this.measured.get(key);
    if (known) return { m: known };
    try {
      await op(-1);
      log(`measuring ${key} (${workers} workers, direct)`);
      const { median } = await measure((s) => runLoop(op, workers, s), this.plan);
      this.keep(key, median);
      return { m: median };
    } catch (err) {
      return { m: null, why: { status: 'error' as const, note: (err as Error).message } };
    }
  }

  /** A row: the target's measurement, then (when there is one) its baseline's. */
  async compare(spec: Spec, target: Promise<Measured>, base: () => Promise<Measured>) {
    const t = await target;
    const b = t.m ? await base() : { m: this.measured.get(spec.baselineName) ?? null };
    this.record(spec, t.m, b.m, t.why ?? b.why ?? undefined);
  }

  /**
   * A row with a target: the route and its baseline measured in alternation (measureAlternating),
   * so that the machine's drift between them does not enter the ratio. Both are measured afresh for
   * the pair, even when one of them was measured alone for another row (then the two figures of the
   * same load in the table can differ by that drift). Each load's CPU per response covers its
   * measured runs.
   */
  async comparePaired(spec: Spec, target: PairSide, base: PairSide) {
    const pairKey = `${target.key} | ${base.key}`;
    let pair = this.pairs.get(pairKey);
    if (!pair) {
      try {
        const why = (await target.ready()) ?? (await base.ready());
        if (why) return this.record(spec, null, null, why);
        const { plan } = this;
        log(
          `measuring ${target.key} and ${base.key} in alternation (warm-up ${plan.warmupSeconds} s each, ${plan.repetitions} x ${plan.seconds} s each)`,
        );
        const [a, b] = [target.side(), base.side()];
        const [cpuA, cpuB] = [cpuMeter(a.child), cpuMeter(b.child)];
        const measuredPair = await measureAlternating({ ...a, around: cpuA.around }, { ...b, around: cpuB.around }, plan);
        pair = { target: cpuA.add(measuredPair.a.median), base: cpuB.add(measuredPair.b.median) };
        this.pairs.set(pairKey, pair);
        for (const [key, m] of [
          [target.key, pair.target],
          [base.key, pair.base],
        ] as const) {
          if (!this.measured.has(key)) this.keep(key, m);
        }
      } catch (err) {
        return this.record(spec, null, null, { status: 'error', note: (err as Error).message });
      }
    }
    this.record(spec, pair.target, pair.base);
  }

  httpSide(key: string, load: HttpLoad): PairSide {
    return {
      key,
      ready: () => probe(load),
      side: () => ({ run: (s) => runHttp(load, s), child: this.apps.get(load.url) }),
    };
  }

  /**
   * A route measured as a closed loop of `load.connections` clients, each fetching the next whole
   * answer (read to its end) as soon as it has the last: for answers that take a good part of a
   * run (a report of 10,000 rows), which autocannon would drop unfinished at the run's end. The
   * same loop as a SQL replay's (runLoop), so the two sides of a row count alike.
   */
  fetchSide(key: string, load: HttpLoad): PairSide {
    const once = async () => {
      const res = await fetchOnce(load);
      await res.arrayBuffer();
      if (res.status !== load.expect) throw new Error(`answered ${res.status}`);
    };
    return {
      key,
      ready: () => probe(load),
      side: () => ({ run: (s) => runLoop(once, load.connections, s), child: this.apps.get(load.url) }),
    };
  }

  /**
   * The SQL baseline of a route (issue 14): the exact statements one request of `load` sends,
   * recorded at the LMS's driver, replayed straight through `pg` with a pool of the LMS's size, at
   * the load's concurrency, in the route's waves (statements it sent together go together). The
   * ratio of the route to it is what our process adds: HTTP, hooks, validation, row mapping,
   * serialization. Recorded after one unrecorded request, so caches are as warm as under load.
   */
  sqlSide(name: string, load: HttpLoad, pools: SqlPools): PairSide {
    let op: (() => Promise<void>) | null = null;
    return {
      key: name,
      ready: async () => {
        const child = this.apps.get(load.url);
        if (!child) throw new Error(`no app under test at ${load.url}`);
        const warm = await probe(load);
        if (warm) return warm;
        await ask(child, { type: 'record-sql' }, 'recording');
        const why = await probe(load);
        const { statements } = await ask(child, { type: 'recorded-sql' }, 'recorded');
        if (why) return why;
        if (statements.length === 0) throw new Error('the route sent no SQL');
        const plan = waves(statements);
        this.sqlShapes[name] = `${statements.length} statements in ${plan.length} waves`;
        log(`${name}: ${this.sqlShapes[name]}`);
        const send = (s: CapturedStatement) =>
          (plansGenerically(s.name) ? pools.generic : pools.main).query({
            text: s.text,
            values: s.values,
            ...(s.name ? { name: s.name } : {}),
            ...(s.rowMode === 'array' ? { rowMode: 'array' as const } : {}),
          });
        const replay = async () => {
          for (const wave of plan) await Promise.all(wave.map(send));
        };
        await replay(); // once outside the measured runs: a statement that fails is an error row, not a count
        op = replay;
        return null;
      },
      side: () => {
        const replay = op;
        if (!replay) throw new Error(`${name}: not recorded`);
        return { run: (seconds) => runLoop(replay, load.connections, seconds) };
      },
    };
  }

  /** A load whose every request carries a fresh partner token from `pool`, signed between repetitions. */
  async tokenScenario(key: string, pool: TokenPool, load: (take: () => string) => HttpLoad): Promise<Measured> {
    const known = this.measured.get(key);
    if (known) return { m: known };
    try {
      // Enough for the one-second probe run below at any rate this machine reaches.
      await pool.ensure(this.tokensForProbe);
      const httpLoad = load(() => pool.take());
      const why = await probe(httpLoad);
      if (why) return { m: null, why };
      // Each run gets twice the tokens the previous one used, signed before it starts.
      let lastRps = Math.max(200, (await runHttp(httpLoad, 1)).rps);
      log(`measuring ${key} (${httpLoad.connections} connections, fresh tokens signed before each repetition)`);
      // CPU per request is read around the whole measurement, token signing between repetitions
      // included: signing happens in this process, not the served one.
      const median = await withCpu(this.apps.get(httpLoad.url), async () => {
        const { median } = await measure(async (s) => {
          await pool.ensure(Math.ceil(lastRps * s * 2) + 500);
          const m = await runHttp(httpLoad, s);
          lastRps = Math.max(lastRps, m.rps);
          return m;
        }, this.plan);
        return median;
      });
      this.keep(key, median);
      return { m: median };
    } catch (err) {
      return { m: null, why: { status: 'error' as const, note: (err as Error).message } };
    }
  }
}
