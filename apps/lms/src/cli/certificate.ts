import { MAX_REVOCATION_REASON, reissueCertificate, revokeCertificate } from '../domain/learning/certificate-revocation.js';
import { CliError, type CommandGroup, parse, required, UsageError } from './command.js';
import { withEnqueueOnlyJobs } from './jobs.js';

/** The operators' certificate acts; the same domain code as the admins' forms on the course's learner page. */
export const certificateCommands: CommandGroup = {
  name: 'certificate',
  summary: 'certificates: revoke, reissue',
  subcommands: [
    {
      name: 'revoke',
      summary: 'revoke a certificate by its verification code (its page says revoked)',
      usage: 'certificate revoke <code> --reason <text>',
      help: "Revokes it: the public page says so, with the reason; its credits are voided; the holder's partners get certificate.revoked.",
      async run(args, ctx) {
        const { values, positionals } = parse(args, { reason: { type: 'string' } }, true);
        if (positionals.length !== 1) throw new UsageError('give the certificate code');
        const reason = required(values, 'reason').trim();
        if (reason === '') throw new UsageError('--reason must not be blank');
        if (reason.length > MAX_REVOCATION_REASON) throw new UsageError(`--reason is at most ${MAX_REVOCATION_REASON} characters`);
        if (reason.includes('\u0000')) throw new UsageError('--reason must not contain NUL');
        const handle = ctx.openDb();
        const result = await withEnqueueOnlyJobs(handle, ctx.config, (receipts) =>
          revokeCertificate(handle.db, receipts.deliveries, positionals[0], reason, ctx.now()),
        );
        if (result.outcome === 'unknown') throw new CliError(`no certificate with code ${positionals[0]}`);
        if (result.outcome === 'already') throw new CliError(`already revoked on ${result.revokedAt.toISOString()}`);
        ctx.io.err(`Certificate ${positionals[0]} revoked.`);
      },
    },
    {
      name: 'reissue',
      summary: 'issue a new certificate in place of a revoked one (prints the new code)',
      usage: 'certificate reissue <code>',
      help:
        'For a revoked certificate (a wrong revocation, a corrected name): a new certificate with a new code, ' +
        "issued now, with the same credit points; the old one stays revoked. The holder's partners get certificate.issued. " +
        'Refused when the certificate is still in force, or when the learner already holds one in force for the course.',
      async run(args, ctx) {
        const { positionals } = parse(args, {}, true);
        if (positionals.length !== 1) throw new UsageError('give the code of the revoked certificate');
        const handle = ctx.openDb();
        const result = await withEnqueueOnlyJobs(handle, ctx.config, (receipts) =>
          reissueCertificate(handle.db, receipts.deliveries, positionals[0], ctx.now()),
        );
        if (result.outcome === 'unknown') throw new CliError(`no certificate with code ${positionals[0]}`);
        if (result.outcome === 'not_revoked') throw new CliError('this certificate is in force: revoke it first');
        if (result.outcome === 'exists') throw new CliError(`the learner already holds certificate ${result.code} for this course`);
        ctx.io.out(result.code);
        ctx.io.err(`Certificate ${positionals[0]} reissued as ${result.code}.`);
      },
    },
  ],
};
