import { isAbsolute, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createDb, DataDirLockedError, type DbHandle } from '@lms/db';
import { databaseSettings, type LmsConfig } from '../config.js';

/** Where a command writes: stdout for results (scriptable), stderr for notes and progress. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** Progress output: rewritten in place on a terminal. */
  progress(text: string): void;
  isTty: boolean;
}

export interface CliContext {
  io: CliIo;
  config: LmsConfig;
  /** The directory the person typed the command in (file arguments are relative to it). */
  cwd: string;
  /**
   * Opens the configured database (PostgreSQL or embedded PGlite); closed by the runner.
   * `longStatements`: maintenance work (migrations, bulk loads) whose statements may run past
   * DB_STATEMENT_TIMEOUT_MS, which then does not apply.
   */
  openDb(options?: { longStatements?: boolean }): DbHandle;
  now(): Date;
}

/** A failure to report without a stack trace. exitCode 2 = usage error, 1 = anything else. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}

export interface Subcommand {
  name: string;
  summary: string;
  usage: string;
  /** The full --help text after the usage line. */
  help: string;
  run(args: string[], ctx: CliContext): Promise<void>;
}

export interface CommandGroup {
  name: string;
  summary: string;
  subcommands: Subcommand[];
}

export interface ParsedArgs {
  /** Every option of our commands takes a string value (--help is handled before parsing). */
  values: Record<string, string | undefined>;
  /** The options declared `multiple`: every value given, in order (empty when none). */
  lists: Record<string, string[]>;
  positionals: string[];
}

/** An option: string-valued; `multiple` ones may be given several times (see ParsedArgs.lists). */
export type OptionSpec = { type: 'string'; multiple?: boolean };

/** parseArgs (strict), with its errors turned into usage errors. Options are string-valued. */
export function parse(args: string[], options: Record<string, OptionSpec>, allowPositionals = false): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message.replace(/\. To specify a positional.*$/s, '.') : String(err));
  }
  const values: Record<string, string | undefined> = {};
  const lists: Record<string, string[]> = {};
  for (const [name, spec] of Object.entries(options)) {
    const value = (parsed.values as Record<string, string | string[] | undefined>)[name];
    if (spec.multiple) lists[name] = Array.isArray(value) ? value : [];
    else values[name] = value as string | undefined;
  }
  return { values, lists, positionals: parsed.positionals };
}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v.trim();
}

export function wholeNumber(value: string | undefined, name: string, { min = 0 } = {}): number {
  if (value === undefined) throw new UsageError(`--${name} is required`);
  const cleaned = value.replace(/_/g, '');
  if (!/^\d+$/.test(cleaned) || !Number.isSafeInteger(Number(cleaned)) || Number(cleaned) < min) {
    throw new UsageError(`--${name} must be a whole number >= ${min} (got "${value}")`);
  }
  return Number(cleaned);
}

export function resolveFrom(cwd: string, file: string): string {
  return isAbsolute(file) ? file : resolve(cwd, file);
}

export function describeDb(handle: DbHandle, config: LmsConfig): string {
  return handle.kind === 'postgres' ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.DATA_DIR}`;
}

/** The configured database; refused (CliError, exit 1) when a running LMS holds the embedded one. */
export function openConfiguredDb(config: LmsConfig, options: { longStatements?: boolean } = {}): DbHandle {
  try {
    // A command runs its statements one after another: a few connections are plenty.
    return createDb({ ...databaseSettings(config), poolMax: 4, ...(options.longStatements ? { statementTimeoutMs: 0 } : {}) });
  } catch (err) {
    if (err instanceof DataDirLockedError) throw new CliError(err.message);
    throw err;
  }
}

/** Left-aligned columns for list output. */
export function table(rows: string[][]): string[] {
  if (rows.length === 0) return [];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}

/** Help text cut into lines of at most `width` characters, at spaces. */
export function wrapped(text: string, width = 96): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return line === '' ? lines : [...lines, line];
}
