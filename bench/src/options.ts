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
  };
}

export const log = (line: string) => process.stderr.write(`${line}\n`);

/** The one-minute load average now, kept with each measurement (a shared machine). */
export const load1 = () => Number(os.loadavg()[0].toFixed(2));
