import { apiKeys, users } from '@lms/db';
import { and, desc, eq, isNull } from 'drizzle-orm';
import { createApiKey, revokeApiKey } from '../domain/api-keys.js';
import { CliError, type CommandGroup, parse, table, UsageError } from './command.js';
import { emailOf } from './user.js';

export const apiKeyCommands: CommandGroup = {
  name: 'api-key',
  summary: 'teachers\' API keys ("Kunci API")',
  subcommands: [
    {
      name: 'create',
      summary: 'create a key for a teacher and print it once',
      usage: 'api-key create --email <teacher-email> [--name <text>]',
      help: [
        'Creates an API key owned by an active teacher and prints it on stdout. Only its SHA-256 hash',
        'is stored: copy it now, it cannot be shown again.',
        '',
        'Options:',
        "  --email <e>     the teacher's e-mail",
        '  --name <text>   a label to tell keys apart (default: "CLI key")',
      ].join('\n'),
      async run(args, ctx) {
        const { values } = parse(args, { email: { type: 'string' }, name: { type: 'string' } });
        const email = emailOf(values);
        const name = values.name?.trim() || 'CLI key';
        const db = ctx.openDb().db;
        const [user] = await db.select().from(users).where(eq(users.email, email));
        if (!user) throw new CliError(`no user with e-mail ${email}`);
        if (user.role !== 'teacher') throw new CliError(`${email} is a ${user.role}: API keys are for teachers`);
        if (!user.isActive) throw new CliError(`${email} is deactivated`);
        const created = await createApiKey(db, user.id, name);
        ctx.io.err(`API key "${name}" (${created.prefix}...) created for ${email}. It is shown only now:`);
        ctx.io.out(created.key);
      },
    },
    {
      name: 'list',
      summary: 'list API keys (never the keys themselves)',
      usage: 'api-key list [--email <teacher-email>]',
      help: 'Lists keys by their visible prefix, with owner, name, creation, last use and status.',
      async run(args, ctx) {
        const { values } = parse(args, { email: { type: 'string' } });
        const email = values.email === undefined ? undefined : emailOf(values);
        const db = ctx.openDb().db;
        const rows = await db
          .select({ key: apiKeys, email: users.email })
          .from(apiKeys)
          .innerJoin(users, eq(users.id, apiKeys.userId))
          .where(email ? eq(users.email, email) : undefined)
          .orderBy(desc(apiKeys.id));
        if (rows.length === 0) {
          ctx.io.err('No API keys.');
          return;
        }
        const day = (d: Date | null) => (d ? d.toISOString().replace('T', ' ').slice(0, 16) : '-');
        for (const line of table([
          ['PREFIX', 'OWNER', 'NAME', 'CREATED', 'LAST USED', 'STATUS'],
          ...rows.map(({ key, email }) => [
            key.prefix,
            email,
            key.name,
            day(key.createdAt),
            day(key.lastUsedAt),
            key.revokedAt ? `revoked ${day(key.revokedAt)}` : 'active',
          ]),
        ])) {
          ctx.io.out(line);
        }
      },
    },
    {
      name: 'revoke',
      summary: 'revoke a key by its prefix',
      usage: 'api-key revoke <prefix>',
      help: 'Revokes the active key whose visible prefix (as "api-key list" shows it, e.g. lms_key_AbC123)\nis <prefix>. The key stops working at once on this instance, within seconds on others.',
      async run(args, ctx) {
        const { positionals } = parse(args, {}, true);
        if (positionals.length !== 1) throw new UsageError('give exactly one key prefix, e.g. api-key revoke lms_key_AbC123');
        const prefix = positionals[0].trim();
        if (!prefix.startsWith('lms_key_') || prefix.length < 'lms_key_'.length + 4) {
          throw new UsageError(`"${prefix}" is not a key prefix (they look like lms_key_AbC123)`);
        }
        const db = ctx.openDb().db;
        const matches = await db
          .select({ id: apiKeys.id, userId: apiKeys.userId, prefix: apiKeys.prefix })
          .from(apiKeys)
          .where(and(eq(apiKeys.prefix, prefix), isNull(apiKeys.revokedAt)));
        if (matches.length === 0) throw new CliError(`no active API key with prefix ${prefix}`);
        if (matches.length > 1)
          throw new CliError(`${matches.length} active keys share the prefix ${prefix}; revoke them from the dashboard`);
        const match = matches[0];
        await revokeApiKey(db, match.userId, match.id, ctx.now());
        ctx.io.out(`API key ${prefix} revoked.`);
      },
    },
  ],
};
