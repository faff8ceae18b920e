import { readFile, stat } from 'node:fs/promises';
import { verifyCredential } from '../domain/credentials/verify.js';
import { CliError, type CommandGroup, resolveFrom, UsageError } from './command.js';

const MAX_FILE_BYTES = 1_000_000;

export const credentialCommands: CommandGroup = {
  name: 'credential',
  summary: 'Open Badges credentials: verify',
  subcommands: [
    {
      name: 'verify',
      summary: 'verify a downloaded credential (.jwt) as a third party would, over HTTP',
      usage: 'credential verify <file>',
      help: [
        'Verifies an Open Badges 3.0 credential (the compact JWS a holder downloads, certificate-<code>.jwt)',
        "against what its issuer publishes: the JWKS at the issuer's /.well-known/jwks.json (RS256, the kid",
        "of the header), the dates, the types, then the Bitstring Status List it names (on the issuer's",
        'origin, signed by the same keys). Uses nothing from the database: any LMS can check any credential.',
        '',
        'Prints a short report. Exit status: 0 valid, 1 not valid (revoked, expired or invalid, with the',
        "reason), 2 could not check (the file cannot be read, the issuer's site does not answer).",
      ].join('\n'),
      async run(args, ctx) {
        if (args.length !== 1 || args[0]?.startsWith('-')) throw new UsageError('give the credential file');
        const path = resolveFrom(ctx.cwd, args[0] as string);
        let text: string;
        try {
          if ((await stat(path)).size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
          text = await readFile(path, 'utf8');
        } catch (err) {
          throw new CliError(`cannot read ${path}: ${(err as Error).message}`, 2);
        }
        const result = await verifyCredential(text, { now: ctx.now() });
        if (result.status === 'invalid' || result.status === 'unverifiable') {
          ctx.io.out(`${result.status === 'invalid' ? 'INVALID' : 'NOT CHECKED'}: ${result.reason}`);
          throw new CliError(
            result.status === 'invalid' ? 'the credential is not valid' : 'the credential could not be checked',
            result.status === 'invalid' ? 1 : 2,
          );
        }
        ctx.io.out(`${result.status.toUpperCase()}: ${result.name ?? '(no name)'}`);
        ctx.io.out(`  credential  ${result.id}`);
        ctx.io.out(`  issuer      ${result.issuer} (key ${result.kid})`);
        if (result.validUntil) ctx.io.out(`  valid until ${result.validUntil}`);
        if (result.status !== 'valid') throw new CliError(`the credential is ${result.status}`, 1);
      },
    },
  ],
};
