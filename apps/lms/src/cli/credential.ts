import { readFile, stat } from 'node:fs/promises';
import { issuerId } from '../domain/credentials/credential.js';
import { canonicalHttpUrl, verifyCredential } from '../domain/credentials/verify.js';
import { CliError, type CommandGroup, parse, resolveFrom, UsageError } from './command.js';

const MAX_FILE_BYTES = 1_000_000;
/** The longest text from a credential printed as it is (the rest is counted, not shown). */
const MAX_PRINTED_CHARS = 300;

/**
 * Text from a credential as one printable line: control characters (C0, DEL, C1), format
 * characters (bidirectional overrides, zero-width ones) and line or paragraph separators are
 * written as \u{…} escapes, a backslash as \\, so a carriage return or an escape sequence in a
 * signed field cannot draw a line of its own on the terminal; long texts are cut.
 */
export function printable(text: string): string {
  const cut = text.length > MAX_PRINTED_CHARS ? text.slice(0, MAX_PRINTED_CHARS) : text;
  const escaped = cut.replace(/[\\\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) =>
    c === '\\' ? '\\\\' : `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`,
  );
  return cut === text ? escaped : `${escaped}… (${text.length - MAX_PRINTED_CHARS} more characters)`;
}

export const credentialCommands: CommandGroup = {
  name: 'credential',
  summary: 'Open Badges credentials: verify',
  subcommands: [
    {
      name: 'verify',
      summary: 'verify a downloaded credential (.jwt) as a third party would, over HTTP',
      usage: 'credential verify <file> [--issuer <issuer-id>]',
      help: [
        'Verifies an Open Badges 3.0 credential (the compact JWS a holder downloads, certificate-<code>.jwt)',
        'issued by the expected issuer: this LMS (PUBLIC_URL/credentials/issuer) unless --issuer names',
        'another one. A credential of any other issuer is not valid, whatever it says. Then, against what',
        "the issuer publishes: the JWKS at the issuer's /.well-known/jwks.json (RS256, the kid of the",
        "header; a kid URL on the issuer's origin only), the dates, the types, the credential id (a URL",
        "on the issuer's origin), then the Bitstring Status List it names (on the issuer's origin, signed",
        'by the same keys). Uses nothing from the database: any LMS can check any credential.',
        '',
        '  --issuer <issuer-id>  the issuer the credential must come from, as its `iss` says it, e.g.',
        '                        https://lms.example.org/credentials/issuer (another LMS of this kind)',
        '',
        'Prints a short report; text from the credential is printed with control characters escaped',
        '(\\u{d} for a carriage return). Exit status: 0 valid, 1 not valid (revoked, expired or invalid,',
        "with the reason), 2 could not check (the file cannot be read, the issuer's site does not answer)",
        'or a usage error.',
      ].join('\n'),
      async run(args, ctx) {
        const { values, positionals } = parse(args, { issuer: { type: 'string' } }, true);
        if (positionals.length !== 1) throw new UsageError('give the credential file');
        const issuer = values.issuer ?? issuerId(ctx.config.PUBLIC_URL);
        if (!canonicalHttpUrl(issuer)) {
          throw new UsageError(
            values.issuer === undefined
              ? `PUBLIC_URL gives the issuer "${printable(issuer)}", not an http(s) URL in canonical form (lower-case host): give --issuer`
              : `--issuer must be an absolute http(s) URL as a credential's iss writes it (got "${printable(issuer)}")`,
          );
        }
        const path = resolveFrom(ctx.cwd, positionals[0] as string);
        let text: string;
        try {
          if ((await stat(path)).size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
          text = await readFile(path, 'utf8');
        } catch (err) {
          throw new CliError(`cannot read ${path}: ${(err as Error).message}`, 2);
        }
        const result = await verifyCredential(text, { issuer, now: ctx.now() });
        if (result.status === 'invalid' || result.status === 'unverifiable') {
          ctx.io.out(`${result.status === 'invalid' ? 'INVALID' : 'NOT CHECKED'}: ${printable(result.reason)}`);
          throw new CliError(
            result.status === 'invalid' ? 'the credential is not valid' : 'the credential could not be checked',
            result.status === 'invalid' ? 1 : 2,
          );
        }
        ctx.io.out(`${result.status.toUpperCase()}: ${result.name === null ? '(no name)' : printable(result.name)}`);
        ctx.io.out(`  credential  ${printable(result.id)}`);
        ctx.io.out(`  issuer      ${printable(result.issuer)} (key ${printable(result.kid)})`);
        if (result.validUntil) ctx.io.out(`  valid until ${result.validUntil}`);
        if (result.status !== 'valid') throw new CliError(`the credential is ${result.status}`, 1);
      },
    },
  ],
};
