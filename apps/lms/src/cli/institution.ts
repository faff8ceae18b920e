import { institutions } from '@lms/db';
import { asc } from 'drizzle-orm';
import { setTransferAccount, TRANSFER_ACCOUNT_MAX as MAX, transferAccountProblem } from '../domain/institutions/transfer-account.js';
import { type CommandGroup, CliError, parse, required, table, UsageError, wholeNumber } from './command.js';

// The same rules as the institution settings page (domain/institutions/transfer-account.ts).
function field(values: Record<string, string | undefined>, name: keyof typeof MAX): string {
  const value = required(values, name);
  const problem = transferAccountProblem(name, value);
  if (problem === 'tooLong') throw new UsageError(`--${name} is longer than ${MAX[name]} characters`);
  if (problem === 'control') throw new UsageError(`--${name} holds a control character`);
  return value;
}

/**
 * Institutions: the bank account their learners transfer to. Each institution has its own
 * (docs/operations.md, "Transfer accounts"); a purchase's instructions name the account of the
 * course's institution (a bundle: of its first course), else the deployment's BANK_TRANSFER_*,
 * else say that no account is set up.
 */
export const institutionCommands: CommandGroup = {
  name: 'institution',
  summary: 'institutions and their transfer accounts',
  subcommands: [
    {
      name: 'list',
      summary: 'list institutions with their transfer accounts',
      usage: 'institution list',
      help: 'Lists every institution: id, name and the bank account its learners transfer to ((none) when unset).',
      async run(args, ctx) {
        parse(args, {});
        const rows = await ctx.openDb().db.select().from(institutions).orderBy(asc(institutions.id));
        if (rows.length === 0) {
          ctx.io.err('No institutions.');
          return;
        }
        const lines = table([
          ['ID', 'NAME', 'TRANSFER ACCOUNT'],
          ...rows.map((i) => [
            String(i.id),
            i.name,
            i.transferAccountNumber ? `${i.transferBank} ${i.transferAccountNumber} (${i.transferAccountHolder})` : '(none)',
          ]),
        ]);
        for (const l of lines) ctx.io.out(l);
      },
    },
    {
      name: 'set-transfer-account',
      summary: "set (or clear) the bank account an institution's learners transfer to",
      usage: 'institution set-transfer-account --institution <id> (--bank <name> --number <account> --holder <name> | --clear)',
      help: [
        "Sets the bank account shown on the transfer instructions of purchases of this institution's",
        'courses (and of bundles whose first course is one of them). Pending purchases show the new',
        'account at once. --clear removes it: the instructions then use BANK_TRANSFER_* if set, else',
        'say that the institution has not set up its account (and name none).',
        '',
        'Options:',
        '  --institution <id>   id of an existing institution',
        `  --bank <name>        the bank's name (at most ${MAX.bank} characters)`,
        `  --number <account>   the account number, as the bank writes it (at most ${MAX.number})`,
        `  --holder <name>      the account holder's name (at most ${MAX.holder})`,
        '  --clear              remove the account',
      ].join('\n'),
      async run(args, ctx) {
        // --clear is the one flag without a value: taken out before the string options are parsed.
        const clear = args.includes('--clear');
        const { values } = parse(
          args.filter((a) => a !== '--clear'),
          { institution: { type: 'string' }, bank: { type: 'string' }, number: { type: 'string' }, holder: { type: 'string' } },
        );
        const id = wholeNumber(values.institution, 'institution', { min: 1 });
        const account = clear ? null : { bank: field(values, 'bank'), number: field(values, 'number'), holder: field(values, 'holder') };
        if (clear && (values.bank || values.number || values.holder)) throw new UsageError('--clear takes no --bank, --number or --holder');
        const name = await setTransferAccount(ctx.openDb().db, id, account, ctx.now());
        if (name === null) throw new CliError(`no institution with id ${id}`);
        ctx.io.out(
          account === null
            ? `Institution ${id} (${name}): transfer account removed`
            : `Institution ${id} (${name}): transfers go to ${account.bank} ${account.number} (${account.holder})`,
        );
      },
    },
  ],
};
