import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { benchDir } from './apps-under-test.js';
import type { FilledDb } from './fill.js';
import { type BenchOptions, CONNECTIONS } from './options.js';
import { formatTable } from './report.js';
import type { BenchRun } from './runner.js';

/** Prints the run's table with the machine it ran on, and writes both to bench/results/<start time>.json. */
export async function writeResults(
  run: BenchRun,
  options: BenchOptions,
  filled: Pick<FilledDb, 'reused' | 'fillMs'>,
  startedAt: Date,
  loadStart: number[],
) {
  const { quick, size, plan, dbName } = options;
  const loadEnd = os.loadavg();
  const machine = {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    loadavgStart: loadStart.map((l) => Number(l.toFixed(2))),
    loadavgEnd: loadEnd.map((l) => Number(l.toFixed(2))),
  };
  const table = formatTable(run.rows);
  const header =
    `${quick ? 'Quick run' : 'Full run'} ${startedAt.toISOString()}: ${size.courses.toLocaleString('en-US')} courses, ` +
    `${size.students.toLocaleString('en-US')} students, ${size.enrollments.toLocaleString('en-US')} enrollments, ` +
    `${size.completions.toLocaleString('en-US')} completions (database ${dbName}, ${filled.reused ? 'reused' : 'filled this run'})\n` +
    `Machine: ${machine.nproc} CPUs (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}; ` +
    `load average ${machine.loadavgStart.join(' ')} at start, ${machine.loadavgEnd.join(' ')} at end (shared machine)\n` +
    `Warm-up ${plan.warmupSeconds} s, then ${plan.repetitions} x ${plan.seconds} s per scenario, median; autocannon, no pipelining. ` +
    `Rows 3s, 4, 6q, 6p, 2q, 3q, 4q, 11q, 12q, 9a and 9f measure their route and baseline in alternation (A B, B A, A B): the machine's drift stays out of their ratios.`;
  process.stdout.write(`\n${header}\n\n${table}\n`);

  const resultsDir = path.join(benchDir, 'results');
  await mkdir(resultsDir, { recursive: true });
  const file = path.join(
    resultsDir,
    `${startedAt
      .toISOString()
      .replaceAll(':', '-')
      .replace(/\.\d+Z$/, 'Z')}${quick ? '-quick' : ''}.json`,
  );
  await writeFile(
    file,
    `${JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        quick,
        sizes: size,
        database: { name: dbName, reused: filled.reused, fillSeconds: filled.fillMs / 1000 },
        machine,
        plan: { ...plan, connections: CONNECTIONS },
        loadavgAfterScenario: run.loads,
        sqlShapes: run.sqlShapes,
        rows: run.rows,
        table,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`\nwritten to ${path.relative(process.cwd(), file)}\n`);
}
