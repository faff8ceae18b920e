import { type DbHandle, isTransactionConflict } from '@lms/db';
import { ConfigError, invocationDir, loadConfig, type LmsConfig } from '../config.js';
import { apiKeyCommands } from './api-key.js';
import { type CliContext, CliError, type CliIo, type CommandGroup, openConfiguredDb, type Subcommand, UsageError } from './command.js';
import { credentialCommands } from './credential.js';
import { dbCommands } from './db.js';
import { institutionCommands } from './institution.js';
import { partnerCommands } from './partner.js';
import { schemeCommands } from './scheme.js';
import { seedCommands } from './seed.js';
import { userCommands } from './user.js';
import { certificateCommands } from './certificate.js';
import { purchaseCommands, webhookCommands } from './webhook.js';

export const commandGroups: CommandGroup[] = [
  dbCommands,
  seedCommands,
  partnerCommands,
  userCommands,
  apiKeyCommands,
  institutionCommands,
  webhookCommands,
  certificateCommands,
  credentialCommands,
  purchaseCommands,
  schemeCommands,
];

export interface RunOptions {
  io?: Partial<CliIo>;
  /** Environment to read the configuration from (default: the process environment). */
  env?: Record<string, string | undefined>;
  /** Configuration to use as is (tests). */
  config?: LmsConfig;
  cwd?: string;
  now?: () => Date;
  /** A database handle to use instead of opening the configured one (left open; tests on in-memory PGlite). */
  db?: DbHandle;
}

const isHelp = (a: string) => a === '--help' || a === '-h' || a === 'help';

function mainHelp(): string {
  const width = Math.max(...commandGroups.flatMap((g) => g.subcommands.map((s) => `${g.name} ${s.name}`.length)));
  return [
    'Usage: lms-admin <command> [options]',
    '',
    'Administers the LMS database. Reads the same configuration as the LMS: DATABASE_URL',
    '(PostgreSQL) or, when unset, the embedded database in DATA_DIR.',
    '',
    'Commands:',
    ...commandGroups.flatMap((g) => g.subcommands.map((s) => `  ${`${g.name} ${s.name}`.padEnd(width)}  ${s.summary}`)),
    '',
    'Run "lms-admin <command> --help" for the options of a command.',
  ].join('\n');
}

function groupHelp(group: CommandGroup): string {
  return [
    `Usage: lms-admin ${group.name} <${group.subcommands.map((s) => s.name).join('|')}> [options]`,
    '',
    `${group.name}: ${group.summary}`,
    '',
    ...group.subcommands.map((s) => `  lms-admin ${s.usage}\n      ${s.summary}`),
  ].join('\n');
}

function commandHelp(command: Subcommand): string {
  return `Usage: lms-admin ${command.usage}\n\n${command.help}\n\nAlso: -h, --help  show this help`;
}

/** Runs one admin command; resolves to the process exit code (0 ok, 1 failure, 2 usage error). */
export async function runCli(argv: string[], options: RunOptions = {}): Promise<number> {
  const io: CliIo = {
    out: options.io?.out ?? ((l) => process.stdout.write(`${l}\n`)),
    err: options.io?.err ?? ((l) => process.stderr.write(`${l}\n`)),
    progress: options.io?.progress ?? ((t) => process.stderr.write(t)),
    isTty: options.io?.isTty ?? Boolean(process.stderr.isTTY),
  };
  // pnpm passes a literal "--" through when the command is run as `pnpm run lms-admin -- ...`.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  const [groupName, commandName, ...rest] = args;

  if (groupName === undefined || isHelp(groupName)) {
    (groupName === undefined ? io.err : io.out)(mainHelp());
    return groupName === undefined ? 2 : 0;
  }
  const group = commandGroups.find((g) => g.name === groupName);
  if (!group) {
    io.err(`lms-admin: unknown command "${groupName}"\n\n${mainHelp()}`);
    return 2;
  }
  if (commandName === undefined || isHelp(commandName)) {
    (commandName === undefined ? io.err : io.out)(groupHelp(group));
    return commandName === undefined ? 2 : 0;
  }
  const command = group.subcommands.find((s) => s.name === commandName);
  if (!command) {
    io.err(`lms-admin: unknown command "${groupName} ${commandName}"\n\n${groupHelp(group)}`);
    return 2;
  }
  if (rest.some((a) => a === '--help' || a === '-h')) {
    io.out(commandHelp(command));
    return 0;
  }

  let config: LmsConfig;
  try {
    config = options.config ?? loadConfig(options.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`lms-admin: ${err.message}`);
      return 1;
    }
    throw err;
  }

  const opened: DbHandle[] = [];
  const ctx: CliContext = {
    io,
    config,
    cwd: options.cwd ?? invocationDir(options.env),
    openDb(dbOptions) {
      if (options.db) return options.db;
      const handle = openConfiguredDb(config, dbOptions);
      opened.push(handle);
      return handle;
    },
    now: options.now ?? (() => new Date()),
  };
  try {
    await command.run(rest, ctx);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`lms-admin ${group.name} ${command.name}: ${err.message}\nUsage: lms-admin ${command.usage}`);
      return err.exitCode;
    }
    if (err instanceof CliError) {
      io.err(`lms-admin ${group.name} ${command.name}: ${err.message}`);
      return err.exitCode;
    }
    io.err(`lms-admin ${group.name} ${command.name} failed: ${describeError(err)}`);
    return 1;
  } finally {
    for (const h of opened) await h.close().catch(() => {});
  }
}

/** One line for an unexpected error: the database's message and code, never a stack. */
function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  const pgCode = (e: unknown) => (e && typeof e === 'object' && 'code' in e ? ` (${String((e as { code: unknown }).code)})` : '');
  const hint = (e: unknown) => {
    const code = e && typeof e === 'object' ? (e as { code?: unknown }).code : undefined;
    if (code === '42P01') return ' -- is the database migrated? Run: lms-admin db migrate';
    if (code === '57014')
      return ' -- a statement ran past DB_STATEMENT_TIMEOUT_MS; for a long one-off job run it with DB_STATEMENT_TIMEOUT_MS=0';
    // inTransaction has already run it three times (a deadlock or a serialization failure).
    if (isTransactionConflict(e)) return ' -- the command met concurrent writes three times in a row and nothing was changed; run it again';
    return '';
  };
  if (cause instanceof Error) return `${cause.message}${pgCode(cause)}${hint(cause)}`;
  if ((err as { code?: string }).code === 'ECONNREFUSED') return `cannot reach the database: ${err.message}`;
  return `${err.message}${pgCode(err)}${hint(err)}`;
}
