import { institutions, sessions, users, userRole } from '@lms/db';
import { eq } from 'drizzle-orm';
import { CliError, type CommandGroup, parse, required, UsageError, wholeNumber } from './command.js';

const ROLES = userRole.enumValues;
type Role = (typeof ROLES)[number];
/** Deliberately loose: one @, something on each side, a dot in the domain, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailOf(values: Record<string, unknown>): string {
  const email = required(values, 'email').toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw new UsageError(`--email is not an e-mail address: "${email}"`);
  return email;
}

export const userCommands: CommandGroup = {
  name: 'user',
  summary: 'local users (teachers, admins, ...)',
  subcommands: [
    {
      name: 'add',
      summary: 'create a user and print its id',
      usage: 'user add --email <e> --name <n> --role <role> [--institution <id>]',
      help: [
        `Creates a user. --role is one of ${ROLES.join(', ')}. Prints the new user's id on stdout.`,
        'The e-mail is stored lower-cased and must not exist yet.',
        '',
        'Options:',
        '  --email <e>          e-mail address',
        '  --name <n>           display name',
        `  --role <role>        ${ROLES.join(' | ')}`,
        '  --institution <id>   id of an existing institution (optional)',
      ].join('\n'),
      async run(args, ctx) {
        const { values } = parse(args, {
          email: { type: 'string' },
          name: { type: 'string' },
          role: { type: 'string' },
          institution: { type: 'string' },
        });
        const email = emailOf(values);
        const name = required(values, 'name');
        const role = required(values, 'role') as Role;
        if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')} (got "${role}")`);
        const institutionId = values.institution === undefined ? null : wholeNumber(values.institution, 'institution', { min: 1 });
        const db = ctx.openDb().db;
        if (institutionId !== null) {
          const [inst] = await db.select({ id: institutions.id }).from(institutions).where(eq(institutions.id, institutionId));
          if (!inst) throw new CliError(`no institution with id ${institutionId}`);
        }
        const [row] = await db
          .insert(users)
          .values({ email, name, role, institutionId })
          .onConflictDoNothing({ target: users.email })
          .returning({ id: users.id });
        if (!row) throw new CliError(`a user with e-mail ${email} already exists`);
        ctx.io.err(`User ${email} (${role}) created.`);
        ctx.io.out(row.id);
      },
    },
    {
      name: 'deactivate',
      summary: 'stop a user from signing in or using API keys',
      usage: 'user deactivate --email <e>',
      help: 'Marks the user inactive and ends their sessions. Their API keys stop working, SSO answers\nmember_inactive. Data (enrollments, courses) stays.',
      async run(args, ctx) {
        const { values } = parse(args, { email: { type: 'string' } });
        const email = emailOf(values);
        const db = ctx.openDb().db;
        const done = await db.transaction(async (tx) => {
          const [row] = await tx.update(users).set({ isActive: false }).where(eq(users.email, email)).returning({ id: users.id });
          if (!row) return null;
          const ended = await tx.delete(sessions).where(eq(sessions.userId, row.id)).returning({ t: sessions.tokenHash });
          return ended.length;
        });
        if (done === null) throw new CliError(`no user with e-mail ${email}`);
        ctx.io.out(`User ${email} deactivated (${done} session${done === 1 ? '' : 's'} ended).`);
      },
    },
  ],
};
