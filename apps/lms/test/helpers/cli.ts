import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestDb } from '@lms/db/testing';
import { runCli } from '../../src/cli/run.js';
import { testConfig } from '../../src/testing.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * A fresh DATA_DIR, removed when the test process ends. Commands such as `seed demo` write into
 * DATA_DIR (the demo key file) even when the database is the test's in-memory one: with the
 * default relative `.data/pglite` they would overwrite a developer's apps/lms/.data.
 */
export function scratchDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lms-cli-data-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Runs the CLI's main function against the test database: on PostgreSQL through DATABASE_URL,
 * exactly as an operator would; on PGlite (in memory) through the shared test handle.
 */
export function cliFor(db: TestDb, cwd?: string) {
  const DATA_DIR = scratchDataDir();
  return async (...argv: string[]): Promise<CliRun> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      io: { out: (l) => out.push(l), err: (l) => err.push(l), progress: (s) => err.push(s), isTty: false },
      config: testConfig({ DATA_DIR, ...(db.url ? { DATABASE_URL: db.url } : {}) }),
      ...(cwd ? { cwd } : {}),
      ...(db.url ? {} : { db }),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
}
