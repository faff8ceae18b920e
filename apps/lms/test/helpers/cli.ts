import type { TestDb } from '@lms/db/testing';
import { runCli } from '../../src/cli/run.js';
import { testConfig } from '../../src/config.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs the CLI's main function against the test database: on PostgreSQL through DATABASE_URL,
 * exactly as an operator would; on PGlite (in memory) through the shared test handle.
 */
export function cliFor(db: TestDb, cwd?: string) {
  return async (...argv: string[]): Promise<CliRun> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      io: { out: (l) => out.push(l), err: (l) => err.push(l), progress: (s) => err.push(s), isTty: false },
      config: testConfig(db.url ? { DATABASE_URL: db.url } : {}),
      ...(cwd ? { cwd } : {}),
      ...(db.url ? {} : { db }),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
}
