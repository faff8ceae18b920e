import { readFile } from 'node:fs/promises';
import { partnerKeys, partners } from '@lms/db';
import { asc, eq } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, importSPKI } from 'jose';
import { MIN_RSA_KEY_BITS, rsaKeyBits } from '@lms/partner-auth';
import { CliError, type CommandGroup, parse, required, resolveFrom, table, UsageError } from './command.js';

/** A DNS name as the spec's `iss` (at most 253 characters). */
const DOMAIN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/;

function issuerOf(values: Record<string, unknown>): string {
  const iss = required(values, 'iss').toLowerCase();
  if (!DOMAIN.test(iss)) throw new UsageError(`--iss must be the partner's domain, e.g. partner.example.org (got "${iss}")`);
  return iss;
}

/** Reads and checks a PEM public key: an RSA key of at least 2048 bits usable for RS256. Returns it and its RFC 7638 thumbprint. */
async function readRsaPublicKey(file: string): Promise<{ pem: string; thumbprint: string }> {
  let pem: string;
  try {
    pem = (await readFile(file, 'utf8')).trim();
  } catch (err) {
    throw new CliError(`cannot read the public key file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (pem.includes('PRIVATE KEY')) throw new CliError(`${file} holds a PRIVATE key: give the partner's public key only`);
  let key;
  try {
    key = await importSPKI(pem, 'RS256', { extractable: true });
  } catch (err) {
    throw new CliError(`${file} is not an RSA public key in PEM (SPKI, "-----BEGIN PUBLIC KEY-----"): ${(err as Error).message}`);
  }
  const jwk = await exportJWK(key);
  if (jwk.kty !== 'RSA') throw new CliError(`${file} is not an RSA key`);
  const bits = rsaKeyBits(key);
  if (bits < MIN_RSA_KEY_BITS) {
    throw new CliError(`${file} is a ${bits}-bit RSA key: partner keys must have at least ${MIN_RSA_KEY_BITS} bits; ask the partner for a longer one`);
  }
  return { pem: `${pem}\n`, thumbprint: await calculateJwkThumbprint(jwk, 'sha256') };
}

export const partnerCommands: CommandGroup = {
  name: 'partner',
  summary: 'partners allowed to sign members in (SSO) and create courses',
  subcommands: [
    {
      name: 'add',
      summary: 'register a partner and its key material',
      usage: 'partner add --iss <domain> (--jwks-url <url> | --public-key <pem-file> [--kid <kid>]) [--name <text>]',
      help: [
        'Registers the partner whose tokens carry iss=<domain>, with either the URL of its JWKS',
        '(recommended: rotation is picked up automatically) or a PEM RSA public key it shared.',
        'For a partner already registered, --public-key adds one more key (rotation: add the new key',
        'before the partner signs with it) and --jwks-url replaces the URL; --name renames it.',
        'The gateway also needs the partner in its partners file (iss, allowed IPs, LMS URL).',
        '',
        'Options:',
        '  --iss <domain>          the JWT issuer: the partner\'s domain',
        '  --jwks-url <url>        https URL of the partner\'s JWKS',
        '  --public-key <file>     PEM file of an RSA public key ("-----BEGIN PUBLIC KEY-----")',
        '  --kid <kid>             key id tokens will carry (default: the key\'s RFC 7638 thumbprint)',
        '  --name <text>           display name (default: the domain)',
      ].join('\n'),
      async run(args, ctx) {
        const { values } = parse(args, {
          iss: { type: 'string' },
          'jwks-url': { type: 'string' },
          'public-key': { type: 'string' },
          kid: { type: 'string' },
          name: { type: 'string' },
        });
        const issuer = issuerOf(values);
        const jwksUrl = values['jwks-url']?.trim();
        const keyFile = values['public-key']?.trim();
        if ((jwksUrl ? 1 : 0) + (keyFile ? 1 : 0) !== 1) throw new UsageError('give exactly one of --jwks-url or --public-key');
        if (values.kid !== undefined && !keyFile) throw new UsageError('--kid goes with --public-key');
        if (jwksUrl) {
          let url: URL;
          try {
            url = new URL(jwksUrl);
          } catch {
            throw new UsageError(`--jwks-url is not a URL: "${jwksUrl}"`);
          }
          if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError('--jwks-url must be an http(s) URL');
          if (url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
            ctx.io.err(`warning: ${jwksUrl} is plain http; partners should serve their JWKS over https`);
          }
        }
        const kid = values.kid?.trim();
        if (kid !== undefined && (kid.length === 0 || kid.length > 128)) throw new UsageError('--kid must be 1 to 128 characters');
        const key = keyFile ? await readRsaPublicKey(resolveFrom(ctx.cwd, keyFile)) : null;
        const name = values.name?.trim();

        const db = ctx.openDb().db;
        const message = await db.transaction(async (tx) => {
          const [existing] = await tx.select().from(partners).where(eq(partners.issuer, issuer)).limit(1);
          let partnerId: number;
          let what: string;
          if (existing) {
            partnerId = existing.id;
            await tx
              .update(partners)
              .set({ ...(jwksUrl ? { jwksUrl } : {}), ...(name ? { name } : {}), isActive: true })
              .where(eq(partners.id, partnerId));
            what = `Partner ${issuer} updated`;
          } else {
            const [row] = await tx
              .insert(partners)
              .values({ issuer, name: name || issuer, jwksUrl: jwksUrl ?? null })
              .returning({ id: partners.id });
            partnerId = row!.id;
            what = `Partner ${issuer} added`;
          }
          if (key) {
            const keyId = kid ?? key.thumbprint;
            const inserted = await tx
              .insert(partnerKeys)
              .values({ partnerId, kid: keyId, publicKeyPem: key.pem })
              .onConflictDoNothing()
              .returning({ id: partnerKeys.id });
            if (inserted.length === 0) throw new CliError(`${issuer} already has a key with kid "${keyId}"`);
            return `${what}: public key kid=${keyId}`;
          }
          return `${what}: JWKS ${jwksUrl}`;
        });
        ctx.io.out(message);
      },
    },
    {
      name: 'list',
      summary: 'list the registered partners',
      usage: 'partner list',
      help: 'Lists every partner: issuer, name, whether it is active, and its JWKS URL or key ids.',
      async run(args, ctx) {
        parse(args, {});
        const db = ctx.openDb().db;
        const rows = await db.query.partners.findMany({ with: { keys: { columns: { kid: true } } }, orderBy: asc(partners.issuer) });
        if (rows.length === 0) {
          ctx.io.err('No partners registered. Add one with: lms-admin partner add --iss <domain> --jwks-url <url>');
          return;
        }
        const lines = table([
          ['ISSUER', 'NAME', 'ACTIVE', 'KEYS'],
          ...rows.map((p) => [
            p.issuer,
            p.name,
            p.isActive ? 'yes' : 'no',
            [p.jwksUrl ? `jwks ${p.jwksUrl}` : '', ...p.keys.map((k) => `kid ${k.kid}`)].filter(Boolean).join(', ') || '(none)',
          ]),
        ]);
        for (const l of lines) ctx.io.out(l);
      },
    },
    {
      name: 'remove',
      summary: 'remove a partner and its keys',
      usage: 'partner remove --iss <domain>',
      help: 'Deletes the partner and its public keys: its tokens stop being accepted. Users who came\nthrough it keep their accounts.',
      async run(args, ctx) {
        const { values } = parse(args, { iss: { type: 'string' } });
        const issuer = issuerOf(values);
        const db = ctx.openDb().db;
        const rows = await db.delete(partners).where(eq(partners.issuer, issuer)).returning({ id: partners.id });
        if (rows.length === 0) throw new CliError(`no partner with issuer ${issuer}`);
        ctx.io.out(`Partner ${issuer} removed.`);
      },
    },
  ],
};
