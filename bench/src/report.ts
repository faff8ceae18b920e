/**
 * The arithmetic of a benchmark report: medians of repetitions, ratios to a baseline, target
 * checks and the printed table. No I/O here (tested on its own).
 */

/** One measurement of a load run (or the median of several). Latencies in milliseconds. */
export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  /** Requests answered with an unexpected status (or failed), summed over the repetitions. */
  unexpected?: number;
  requests?: number;
  /** CPU milliseconds (user + system) the served process spent per response while this was measured. */
  cpuMs?: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The median of each figure over the repetitions (each figure on its own). */
export function medianOf(reps: readonly Measurement[]): Measurement {
  return {
    rps: median(reps.map((r) => r.rps)),
    p50: median(reps.map((r) => r.p50)),
    p99: median(reps.map((r) => r.p99)),
    unexpected: reps.reduce((n, r) => n + (r.unexpected ?? 0), 0),
    requests: reps.reduce((n, r) => n + (r.requests ?? 0), 0),
  };
}

/**
 * How a scenario compares with its baseline:
 * - `throughput`: ratio = rps / baseline rps (higher is better);
 * - `latency`: ratio = p50 / baseline p50 (lower is better);
 * - `cost`: ratio = baseline rps / rps, the time one operation takes relative to the baseline's (lower is better);
 * - `added`: ratio = p50 / baseline p50, and the figure checked is p50 - baseline p50 in ms.
 */
export type RatioKind = 'throughput' | 'latency' | 'cost' | 'added';

export function ratioOf(kind: RatioKind, m: Measurement, base: Measurement): number {
  switch (kind) {
    case 'throughput':
      return m.rps / base.rps;
    case 'cost':
      return base.rps / m.rps;
    case 'latency':
    case 'added':
      return m.p50 / base.p50;
  }
}

/** A target: one or more limits, all of which must hold. */
export interface Target {
  /** ratio >= value */
  minRatio?: number;
  /** ratio <= value */
  maxRatio?: number;
  /** p99 < value (ms) */
  maxP99?: number;
  /** p50 < value (ms) */
  maxP50?: number;
  /** rps >= value */
  minRps?: number;
  /** p50 - baseline p50 < value (ms) */
  maxAddedP50?: number;
}

export function describeTarget(t: Target | undefined): string {
  if (!t) return 'report only';
  const parts: string[] = [];
  if (t.minRatio !== undefined) parts.push(`ratio ≥ ${t.minRatio}`);
  if (t.maxRatio !== undefined) parts.push(`ratio ≤ ${t.maxRatio}`);
  if (t.maxP50 !== undefined) parts.push(`p50 < ${t.maxP50} ms`);
  if (t.maxP99 !== undefined) parts.push(`p99 < ${t.maxP99} ms`);
  if (t.minRps !== undefined) parts.push(`≥ ${t.minRps} req/s`);
  if (t.maxAddedP50 !== undefined) parts.push(`adds < ${t.maxAddedP50} ms p50`);
  return parts.join(', ');
}

/** The limits of the target that do not hold (empty: pass). */
export function missedLimits(t: Target, m: Measurement, base: Measurement, ratio: number): string[] {
  const missed: string[] = [];
  if (t.minRatio !== undefined && !(ratio >= t.minRatio)) missed.push(`ratio ${fmt(ratio, 2)} < ${t.minRatio}`);
  if (t.maxRatio !== undefined && !(ratio <= t.maxRatio)) missed.push(`ratio ${fmt(ratio, 2)} > ${t.maxRatio}`);
  if (t.maxP50 !== undefined && !(m.p50 < t.maxP50)) missed.push(`p50 ${fmt(m.p50, 1)} ms ≥ ${t.maxP50}`);
  if (t.maxP99 !== undefined && !(m.p99 < t.maxP99)) missed.push(`p99 ${fmt(m.p99, 1)} ms ≥ ${t.maxP99}`);
  if (t.minRps !== undefined && !(m.rps >= t.minRps)) missed.push(`${fmt(m.rps, 0)} req/s < ${t.minRps}`);
  if (t.maxAddedP50 !== undefined && !(m.p50 - base.p50 < t.maxAddedP50)) {
    missed.push(`adds ${fmt(m.p50 - base.p50, 2)} ms ≥ ${t.maxAddedP50}`);
  }
  return missed;
}

export type Status = 'pass' | 'miss' | 'report' | 'missing' | 'error';

export interface Row {
  id: string;
  scenario: string;
  measured: Measurement | null;
  baselineName: string;
  baseline: Measurement | null;
  kind: RatioKind;
  ratio: number | null;
  target: string;
  status: Status;
  /** Why a scenario missed, is missing, or anything odd (unexpected statuses). */
  note: string;
}

/** A row from a measurement and its baseline (or the reason it could not be measured). */
export function makeRow(
  spec: { id: string; scenario: string; baselineName: string; kind: RatioKind; target?: Target },
  measured: Measurement | null,
  baseline: Measurement | null,
  why?: { status: 'missing' | 'error'; note: string },
): Row {
  const target = describeTarget(spec.target);
  if (why || !measured || !baseline) {
    return {
      ...spec,
      measured,
      baseline,
      ratio: null,
      target,
      status: why?.status ?? 'missing',
      note: why?.note ?? 'not measured',
    };
  }
  const ratio = ratioOf(spec.kind, measured, baseline);
  const notes: string[] = [];
  let status: Status = 'report';
  if (spec.target) {
    const missed = missedLimits(spec.target, measured, baseline, ratio);
    status = missed.length === 0 ? 'pass' : 'miss';
    notes.push(...missed);
  }
  if (measured.unexpected) notes.push(`${measured.unexpected} of ${measured.requests} answers unexpected`);
  if (baseline.unexpected) notes.push(`baseline: ${baseline.unexpected} of ${baseline.requests} answers unexpected`);
  return { ...spec, measured, baseline, ratio, target, status, note: notes.join('; ') };
}

export function fmt(n: number, digits: number): string {
  if (!Number.isFinite(n)) return String(n);
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function fmtMeasurement(m: Measurement | null): [string, string, string, string] {
  if (!m) return ['—', '—', '—', '—'];
  return [fmt(m.rps, 0), fmt(m.p50, 2), fmt(m.p99, 2), m.cpuMs === undefined ? '—' : fmt(m.cpuMs, m.cpuMs < 1 ? 3 : 2)];
}

function fmtBaseline(name: string, kind: RatioKind, m: Measurement | null): string {
  if (!m) return name;
  const figure = kind === 'throughput' || kind === 'cost' ? `${fmt(m.rps, 0)} req/s` : `p50 ${fmt(m.p50, 2)} ms`;
  return `${name} (${figure})`;
}

export const TABLE_HEADER = ['#', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/req', 'baseline', 'ratio', 'target', 'result'] as const;

export function tableCells(row: Row): string[] {
  const [rps, p50, p99, cpu] = fmtMeasurement(row.measured);
  const result = row.note ? `${row.status} (${row.note})` : row.status;
  return [
    row.id,
    row.scenario,
    rps,
    p50,
    p99,
    cpu,
    fmtBaseline(row.baselineName, row.kind, row.baseline),
    row.ratio === null ? '—' : fmt(row.ratio, row.ratio < 0.1 ? 3 : 2),
    row.target,
    result,
  ];
}

/** A Markdown table (readable as is in a terminal, pasteable into the README). */
export function formatTable(rows: readonly Row[]): string {
  const lines = [TABLE_HEADER as readonly string[], ...rows.map(tableCells)];
  const escapePipes = (cell: string) => cell.replaceAll('|', '\\|');
  const widths = TABLE_HEADER.map((_, i) => Math.max(...lines.map((l) => escapePipes(l[i]).length)));
  const render = (cells: readonly string[]) => `| ${cells.map((c, i) => escapePipes(c).padEnd(widths[i])).join(' | ')} |`;
  return [render(lines[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.slice(1).map(render)].join('\n');
}
