import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { SyntheticSize } from '@lms/db/seed';
import type { Plan } from './load.js';

/** What one bench run is asked to do, from its command line (and BENCH_PG_URL). */
export interface BenchOptions {
  quick: boolean;
  size: SyntheticSize;
  plan: Plan;
  /** The bench's own database on the server of `pgBase`. */
  dbName: string;
  pgBase: string;
  noPglite: boolean;
  /** A fresh GATEWAY_SECRET for the apps under test, one per run. */
  gatewaySecret: string;
  /** The scenario groups to run (`--only catalog,chapter-time`), or null: all of them. */
  only: string[] | null;
}

/** Connections of the load generator unless a scenario says otherwise. */
export const CONNECTIONS = 50;
/** Consecutive catalog requests made with one API key before the next key takes over. */
export const KEY_TURN = 50;

export function readOptions(argv: readonly string[]): BenchOptions {
  const { values: args } = parseArgs({
    args: argv.filter((a) => a !== '--'),
    options: {
      quick: { type: 'boolean', default: false },
      courses: { type: 'string' },
      students: { type: 'string' },
      enrollments: { type: 'string' },
      completions: { type: 'string' },
      'pg-url': { type: 'string' },
      'no-pglite': { type: 'boolean', default: false },
      only: { type: 'string' },
    },
  });
  const quick = args.quick;
  const whole = (v: string | undefined, fallback: number) => (v === undefined ? fallback : Number(v.replaceAll('_', '')));
  return {
    quick,
    size: {
      courses: whole(args.courses, quick ? 1_000 : 10_000),
      students: whole(args.students, quick ? 2_000 : 100_000),
      enrollments: whole(args.enrollments, quick ? 20_000 : 1_000_000),
      completions: whole(args.completions, quick ? 100_000 : 10_000_000),
    },
    plan: quick ? { warmupSeconds: 1, repetitions: 3, seconds: 2 } : { warmupSeconds: 3, repetitions: 3, seconds: 6 },
    dbName: quick ? 'lms_bench_quick' : 'lms_bench',
    pgBase: args['pg-url'] ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    noPglite: args['no-pglite'],
    gatewaySecret: `bench-gateway-secret-${randomUUID()}`,
    only: args.only === undefined ? null : onlyGroups(args.only),
  };
}

/**
 * The scenario groups, in the order a run measures them (scenarios/<name>.ts; the rows of each in
 * bench/README.md). `--only` takes a comma-separated list of these names.
 */
export const SCENARIO_GROUPS = [
  'catalog',
  'own-sql',
  'progress',
  'partners',
  'authoring',
  'question-import',
  'attempt-grants',
  'chapter-time',
  'participant-export',
  'purchases',
  'partner-events',
  'reminders',
  'jobs',
  'pglite',
] as const;

/** `--only`'s list, checked against SCENARIO_GROUPS (an unknown name is an error, not an empty run). */
export function onlyGroups(list: string): string[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = names.filter((n) => !(SCENARIO_GROUPS as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(`--only: unknown scenario group ${JSON.stringify(unknown.join(','))}; one or more of ${SCENARIO_GROUPS.join(', ')}`);
  }
  return names;
}

export const log = (line: string) => process.stderr.write(`${line}\n`);

/** The one-minute load average now, kept with each measurement (a shared machine). */
export const load1 = () => Number(os.loadavg()[0].toFixed(2));
