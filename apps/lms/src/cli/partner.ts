import { readFile } from 'node:fs/promises';
import { type Db, inTransaction, institutions, partnerInstitutions, partnerKeys, partners } from '@lms/db';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { calculateJwkThumbprint, exportJWK, importSPKI } from 'jose';
import { MIN_RSA_KEY_BITS, rsaKeyBits } from '@lms/partner-auth';
import { checkUrl } from '../domain/partner-events/outbound.js';
import { creditTargetCommand } from './credit-targets.js';
import { CliError, type CommandGroup, parse, required, resolveFrom, table, UsageError, wholeNumber } from './command.js';

/** A DNS name as the spec's `iss` (at most 253 characters). */
const DOMAIN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/;

/** --iss: a partner's `iss`, lower-cased as `partner add` stores it. */
export function issuerOf(values: Record<string, unknown>): string {
  const iss = required(values, 'iss').toLowerCase();
  if (!DOMAIN.test(iss)) throw new UsageError(`--iss must be the partner's domain, e.g. partner.example.org (got "${iss}")`);
  return iss;
}

/** The `--institution <id>` values (given once or more), as distinct whole numbers. */
function institutionIdsOf(values: string[]): number[] {
  return [...new Set(values.map((v) => wholeNumber(v, 'institution', { min: 1 })))];
}

/** Fails (exit 1) naming the first id that is no institution. */
async function requireInstitutions(db: Db, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const found = new Set(
    (await db.select({ id: institutions.id }).from(institutions).where(inArray(institutions.id, ids))).map((r) => r.id),
  );
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw new CliError(`no institution with id ${missing}`);
}

/** The partner's id, or a failure (exit 1) naming the issuer. */
async function requirePartner(db: Db, issuer: string): Promise<number> {
  const [row] = await db.select({ id: partners.id }).from(partners).where(eq(partners.issuer, issuer)).limit(1);
  if (!row) throw new CliError(`no partner with issuer ${issuer}`);
  return row.id;
}

/** Binds institutions to a partner; returns those that were not bound yet. */
async function bindInstitutions(db: Db, partnerId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .insert(partnerInstitutions)
    .values(ids.map((institutionId) => ({ partnerId, institutionId })))
    .onConflictDoNothing()
    .returning({ institutionId: partnerInstitutions.institutionId });
  return rows.map((r) => r.institutionId).sort((a, b) => a - b);
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
  let key: Awaited<ReturnType<typeof importSPKI>>;
  try {
    key = await importSPKI(pem, 'RS256', { extractable: true });
  } catch (err) {
    throw new CliError(`${file} is not an RSA public key in PEM (SPKI, "-----BEGIN PUBLIC KEY-----"): ${(err as Error).message}`);
  }
  const jwk = await exportJWK(key);
  if (jwk.kty !== 'RSA') throw new CliError(`${file} is not an RSA key`);
  const bits = rsaKeyBits(key);
  if (bits < MIN_RSA_KEY_BITS) {
    throw new CliError(
      `${file} is a ${bits}-bit RSA key: partner keys must have at least ${MIN_RSA_KEY_BITS} bits; ask the partner for a longer one`,
    );
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
      usage:
        'partner add --iss <domain> (--jwks-url <url> | --public-key <pem-file> [--kid <kid>]) [--name <text>] [--institution <id>]...',
      help: [
        'Registers the partner whose tokens carry iss=<domain>, with either the URL of its JWKS',
        '(recommended: rotation is picked up automatically) or a PEM RSA public key it shared.',
        'For a partner already registered, --public-key adds one more key (rotation: add the new key',
        'before the partner signs with it) and --jwks-url replaces the URL; --name renames it.',
        'A partner creates courses only for the institutions bound to it: --institution binds one',
        '(give it once per institution), as `partner bind` does later.',
        'The gateway also needs the partner in its partners file (iss, allowed IPs, LMS URL).',
        '',
        'Options:',
        "  --iss <domain>          the JWT issuer: the partner's domain",
        "  --jwks-url <url>        https URL of the partner's JWKS",
        '  --public-key <file>     PEM file of an RSA public key ("-----BEGIN PUBLIC KEY-----")',
        "  --kid <kid>             key id tokens will carry (default: the key's RFC 7638 thumbprint)",
        '  --name <text>           display name (default: the domain)',
        '  --institution <id>      id of an institution the partner serves (repeatable)',
      ].join('\n'),
      async run(args, ctx) {
        const { values, lists } = parse(args, {
          iss: { type: 'string' },
          'jwks-url': { type: 'string' },
          'public-key': { type: 'string' },
          kid: { type: 'string' },
          name: { type: 'string' },
          institution: { type: 'string', multiple: true },
        });
        const issuer = issuerOf(values);
        const institutionIds = institutionIdsOf(lists.institution);
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
        const message = await inTransaction(db, async (tx) => {
          await requireInstitutions(tx, institutionIds);
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
            partnerId = row.id;
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
            what = `${what}: public key kid=${keyId}`;
          } else {
            what = `${what}: JWKS ${jwksUrl}`;
          }
          await bindInstitutions(tx, partnerId, institutionIds);
          return institutionIds.length === 0 ? what : `${what}; institutions ${[...institutionIds].sort((a, b) => a - b).join(', ')}`;
        });
        ctx.io.out(message);
      },
    },
    {
      name: 'list',
      summary: 'list the registered partners',
      usage: 'partner list',
      help: 'Lists every partner: issuer, name, whether it is active, the institutions bound to it, and its\nJWKS URL or key ids.',
      async run(args, ctx) {
        parse(args, {});
        const db = ctx.openDb().db;
        const rows = await db.query.partners.findMany({
          with: { keys: { columns: { kid: true } }, institutions: { columns: { institutionId: true } } },
          orderBy: asc(partners.issuer),
        });
        if (rows.length === 0) {
          ctx.io.err('No partners registered. Add one with: lms-admin partner add --iss <domain> --jwks-url <url>');
          return;
        }
        const lines = table([
          ['ISSUER', 'NAME', 'ACTIVE', 'INSTITUTIONS', 'KEYS'],
          ...rows.map((p) => [
            p.issuer,
            p.name,
            p.isActive ? 'yes' : 'no',
            p.institutions
              .map((i) => i.institutionId)
              .sort((a, b) => a - b)
              .join(',') || '(none)',
            [p.jwksUrl ? `jwks ${p.jwksUrl}` : '', ...p.keys.map((k) => `kid ${k.kid}`)].filter(Boolean).join(', ') || '(none)',
          ]),
        ]);
        for (const l of lines) ctx.io.out(l);
      },
    },
    {
      name: 'bind',
      summary: 'let a partner create courses for an institution',
      usage: 'partner bind --iss <domain> --institution <id>...',
      help: [
        'Binds institutions to a registered partner: its course-creation calls may then name them as',
        'institutionId (for teachers of that institution only). Binding an institution already bound',
        'changes nothing.',
        '',
        'Options:',
        "  --iss <domain>          the partner's issuer",
        '  --institution <id>      id of an existing institution (repeatable)',
      ].join('\n'),
      async run(args, ctx) {
        const { values, lists } = parse(args, { iss: { type: 'string' }, institution: { type: 'string', multiple: true } });
        const issuer = issuerOf(values);
        const institutionIds = institutionIdsOf(lists.institution);
        if (institutionIds.length === 0) throw new UsageError('--institution is required');
        const db = ctx.openDb().db;
        const added = await inTransaction(db, async (tx) => {
          const partnerId = await requirePartner(tx, issuer);
          await requireInstitutions(tx, institutionIds);
          return bindInstitutions(tx, partnerId, institutionIds);
        });
        const already = institutionIds.filter((id) => !added.includes(id));
        if (added.length > 0) ctx.io.out(`Partner ${issuer} bound to institution ${added.join(', ')}.`);
        if (already.length > 0) ctx.io.err(`Partner ${issuer} was already bound to institution ${already.join(', ')}.`);
      },
    },
    {
      name: 'unbind',
      summary: 'stop a partner creating courses for an institution',
      usage: 'partner unbind --iss <domain> --institution <id>...',
      help: [
        'Removes institutions from a partner: its course-creation calls naming them are refused (403)',
        'from then on. Courses it already created stay. An institution that was not bound is an error.',
        '',
        'Options:',
        "  --iss <domain>          the partner's issuer",
        '  --institution <id>      id of a bound institution (repeatable)',
      ].join('\n'),
      async run(args, ctx) {
        const { values, lists } = parse(args, { iss: { type: 'string' }, institution: { type: 'string', multiple: true } });
        const issuer = issuerOf(values);
        const institutionIds = institutionIdsOf(lists.institution);
        if (institutionIds.length === 0) throw new UsageError('--institution is required');
        const db = ctx.openDb().db;
        await inTransaction(db, async (tx) => {
          const partnerId = await requirePartner(tx, issuer);
          const removed = await tx
            .delete(partnerInstitutions)
            .where(and(eq(partnerInstitutions.partnerId, partnerId), inArray(partnerInstitutions.institutionId, institutionIds)))
            .returning({ institutionId: partnerInstitutions.institutionId });
          const notBound = institutionIds.filter((id) => !removed.some((r) => r.institutionId === id));
          // All or nothing: a typo in one id leaves every binding as it was.
          if (notBound.length > 0) throw new CliError(`partner ${issuer} is not bound to institution ${notBound.join(', ')}`);
        });
        ctx.io.out(`Partner ${issuer} unbound from institution ${institutionIds.join(', ')}.`);
      },
    },
    {
      name: 'remove',
      summary: 'remove a partner and its keys',
      usage: 'partner remove --iss <domain>',
      help:
        'Deletes the partner, its public keys and its institution bindings: its tokens stop being accepted.\n' +
        'Users who came through it keep their accounts, courses it created stay.',
      async run(args, ctx) {
        const { values } = parse(args, { iss: { type: 'string' } });
        const issuer = issuerOf(values);
        const db = ctx.openDb().db;
        const rows = await db.delete(partners).where(eq(partners.issuer, issuer)).returning({ id: partners.id });
        if (rows.length === 0) throw new CliError(`no partner with issuer ${issuer}`);
        ctx.io.out(`Partner ${issuer} removed.`);
      },
    },
    {
      name: 'member-check',
      summary: 'ask the partner at each sign-in whether the member is active',
      usage: 'partner member-check --iss <domain> (--url <https-url> [--ttl-seconds <n>] [--timeout-ms <n>] [--on-failure allow|refuse])',
      help: [
        'At SSO the LMS POSTs {membershipId, iss} to the URL with a 60-second ES256 token it signs',
        '(Authorization: Bearer; keys at PUBLIC_URL/.well-known/jwks.json, audience = the partner),',
        'expects {"active": true|false}, caches the answer --ttl-seconds (default 300), waits at most',
        '--timeout-ms (default 2000), and when the partner cannot answer lets the member in (allow)',
        'or refuses with sso_failed/temporarily_unavailable (refuse, the default). Inactive: member_inactive.',
      ].join('\n'),
      async run(args, ctx) {
        const { values } = parse(args, {
          iss: { type: 'string' },
          url: { type: 'string' },
          'ttl-seconds': { type: 'string' },
          'timeout-ms': { type: 'string' },
          'on-failure': { type: 'string' },
        });
        const issuer = issuerOf(values);
        const db = ctx.openDb().db;
        await requirePartner(db, issuer);
        const url = required(values, 'url');
        try {
          checkUrl(url, { allowHttp: ctx.config.WEBHOOK_ALLOW_HTTP, allowPrivate: ctx.config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES });
        } catch (err) {
          throw new CliError(`--url ${url}: ${(err as Error).message}`);
        }
        const onFailure = values['on-failure'] ?? 'refuse';
        if (onFailure !== 'allow' && onFailure !== 'refuse') throw new UsageError('--on-failure is allow or refuse');
        const ttl = values['ttl-seconds'] === undefined ? 300 : wholeNumber(values['ttl-seconds'], 'ttl-seconds');
        const timeout = values['timeout-ms'] === undefined ? 2000 : wholeNumber(values['timeout-ms'], 'timeout-ms', { min: 50 });
        if (timeout > 30_000) throw new UsageError('--timeout-ms is at most 30000: a member waits for it');
        await db
          .update(partners)
          .set({ memberCheckUrl: url, memberCheckTtlSeconds: ttl, memberCheckTimeoutMs: timeout, memberCheckOnFailure: onFailure })
          .where(eq(partners.issuer, issuer));
        ctx.io.out(`Member check of ${issuer}: ${url} (cache ${ttl} s, timeout ${timeout} ms, on failure ${onFailure}).`);
      },
    },
    {
      name: 'member-check-off',
      summary: 'stop asking the partner at sign-in',
      usage: 'partner member-check-off --iss <domain>',
      help: 'Removes the member-status URL: members of the partner sign in without the check.',
      async run(args, ctx) {
        const { values } = parse(args, { iss: { type: 'string' } });
        const issuer = issuerOf(values);
        const db = ctx.openDb().db;
        await requirePartner(db, issuer);
        await db.update(partners).set({ memberCheckUrl: null }).where(eq(partners.issuer, issuer));
        ctx.io.out(`Member check of ${issuer} turned off.`);
      },
    },
    creditTargetCommand,
  ],
};
