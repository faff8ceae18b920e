import { inTransaction, institutions, sessions, users, userRole } from '@lms/db';
import { eq } from 'drizzle-orm';
import { identitiesOf, linkIdentity, MEMBERSHIP_ID_MAX, unlinkIdentity } from '../domain/identities.js';
import { CliError, type CommandGroup, parse, required, table, UsageError, wholeNumber } from './command.js';
import { issuerOf } from './partner.js';

const ROLES = userRole.enumValues;
type Role = (typeof ROLES)[number];
/** Deliberately loose: one @, something on each side, a dot in the domain, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailOf(values: Record<string, unknown>): string {
  const email = required(values, 'email').toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw new UsageError(`--email is not an e-mail address: "${email}"`);
  return email;
}

function membershipIdOf(values: Record<string, unknown>): string {
  const id = required(values, 'membership-id');
  if (id.length > MEMBERSHIP_ID_MAX)
    throw new UsageError(`--membership-id must be 1 to ${MEMBERSHIP_ID_MAX} characters (got ${id.length})`);
  return id;
}

const day = (d: Date) => d.toISOString().replace('T', ' ').slice(0, 16);

export const userCommands: CommandGroup = {
  name: 'user',
  summary: 'users (teachers, admins, ...) and their SSO identities',
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
        const done = await inTransaction(db, async (tx) => {
          const [row] = await tx.update(users).set({ isActive: false }).where(eq(users.email, email)).returning({ id: users.id });
          if (!row) return null;
          const ended = await tx.delete(sessions).where(eq(sessions.userId, row.id)).returning({ t: sessions.tokenHash });
          return ended.length;
        });
        if (done === null) throw new CliError(`no user with e-mail ${email}`);
        ctx.io.out(`User ${email} deactivated (${done} session${done === 1 ? '' : 's'} ended).`);
      },
    },
    {
      name: 'show',
      summary: 'show a user and the partner identities it signs in with',
      usage: 'user show --email <e>',
      help: [
        'Prints the user (id, role, tier, membership id, institution, whether active) and its SSO',
        'identities: the (partner, membership id) pairs whose tokens sign in as this user, with how',
        'each came to be (sso: created by the partner\'s first sign-in; operator: "user link").',
      ].join('\n'),
      async run(args, ctx) {
        const { values } = parse(args, { email: { type: 'string' } });
        const email = emailOf(values);
        const db = ctx.openDb().db;
        const [user] = await db.select().from(users).where(eq(users.email, email));
        if (!user) throw new CliError(`no user with e-mail ${email}`);
        const links = await identitiesOf(db, user.id);
        for (const line of table([
          ['id', user.id],
          ['email', user.email],
          ['name', user.name],
          ['role', user.role],
          ['tier', user.tier ?? '-'],
          ['membership id', user.membershipId ?? '-'],
          ['institution', user.institutionId === null ? '-' : String(user.institutionId)],
          ['active', user.isActive ? 'yes' : 'no'],
        ])) {
          ctx.io.out(line);
        }
        ctx.io.out('');
        if (links.length === 0) {
          ctx.io.out('No SSO identity: no partner token signs in as this user.');
          return;
        }
        for (const line of table([
          ['PARTNER (ISS)', 'MEMBERSHIP ID', 'ORIGIN', 'SINCE'],
          ...links.map((l) => [l.issuer, l.membershipId, l.origin, day(l.createdAt)]),
        ])) {
          ctx.io.out(line);
        }
      },
    },
    {
      name: 'link',
      summary: "let a partner's tokens for one membership id sign in as this user",
      usage: 'user link --email <e> --iss <partner> --membership-id <id>',
      help: [
        "Links the user to the identity (partner, membership id): the partner's SSO tokens with that",
        "membershipId then sign in as this user, whatever e-mail they carry, and update the user's tier",
        'from their sub. A partner token reaches an account only through such an identity: this is the',
        'only way staff (teacher, admin, super_admin), or anyone who has an account already, signs in',
        'through a partner. Without it, a token with their e-mail is refused (sso_failed, email_in_use).',
        '',
        'A user holds at most one identity per partner, and an identity belongs to one user: linking',
        'one that another user holds, or a second one of the same partner, is refused (unlink first).',
        'Linking the same again changes nothing.',
        '',
        'Options:',
        "  --email <e>             the user's e-mail",
        '  --iss <partner>         a registered partner\'s issuer (see "partner list")',
        `  --membership-id <id>    the membershipId the partner puts in this person's tokens (1-${MEMBERSHIP_ID_MAX} characters)`,
      ].join('\n'),
      async run(args, ctx) {
        const { values } = parse(args, { email: { type: 'string' }, iss: { type: 'string' }, 'membership-id': { type: 'string' } });
        const email = emailOf(values);
        const issuer = issuerOf(values);
        const membershipId = membershipIdOf(values);
        const result = await linkIdentity(ctx.openDb().db, { email, issuer, membershipId });
        const unlinkHint = (who: string) => `lms-admin user unlink --email ${who} --iss ${issuer}`;
        switch (result.outcome) {
          case 'no-user':
            throw new CliError(`no user with e-mail ${email}`);
          case 'no-partner':
            throw new CliError(`no partner with issuer ${issuer} (register it first: lms-admin partner add --iss ${issuer} ...)`);
          case 'taken':
            throw new CliError(
              `${issuer} membership id ${membershipId} already belongs to ${result.holder.email} (${result.holder.role}); ` +
                `to move it, unlink it first: ${unlinkHint(result.holder.email)}`,
            );
          case 'has-other':
            throw new CliError(
              `${email} is already linked to ${issuer} as membership id ${result.membershipId} (one identity per partner); ` +
                `unlink it first: ${unlinkHint(email)}`,
            );
          case 'raced':
            throw new CliError('the identity changed while linking (another command or a sign-in); run the command again');
          case 'unchanged':
            ctx.io.err(
              `${email} is already linked to ${issuer} as membership id ${membershipId} (origin ${result.origin}): nothing changed.`,
            );
            return;
          case 'linked':
            if (!result.partnerActive)
              ctx.io.err(`warning: partner ${issuer} is inactive: its tokens are refused until it is active again`);
            ctx.io.out(`Linked ${email} to ${issuer} as membership id ${membershipId}.`);
        }
      },
    },
    {
      name: 'unlink',
      summary: "remove a user's identity of a partner and end the user's sessions",
      usage: 'user unlink --email <e> --iss <partner>',
      help: [
        "Removes the user's identity of the partner (whether a link or made by the partner's first",
        "sign-in): the partner's tokens no longer sign in as this user (one with the user's e-mail is",
        'refused with email_in_use). The partner need not be registered any more.',
        '',
        "It also ends all the user's sessions: a session does not record which identity opened it, and",
        'one opened through the removed link must not outlive it. The user signs in again through any',
        'identity they still hold.',
        '',
        'Options:',
        "  --email <e>        the user's e-mail",
        "  --iss <partner>    the partner's issuer",
      ].join('\n'),
      async run(args, ctx) {
        const { values } = parse(args, { email: { type: 'string' }, iss: { type: 'string' } });
        const email = emailOf(values);
        const issuer = issuerOf(values);
        const result = await unlinkIdentity(ctx.openDb().db, { email, issuer });
        if (result.outcome === 'no-user') throw new CliError(`no user with e-mail ${email}`);
        if (result.outcome === 'not-linked') throw new CliError(`${email} has no identity of ${issuer}`);
        const n = result.sessionsEnded;
        ctx.io.out(
          `Unlinked ${email} from ${issuer} (membership id ${result.membershipId}, origin ${result.origin}); ` +
            `${n} session${n === 1 ? '' : 's'} ended.`,
        );
      },
    },
  ],
};
