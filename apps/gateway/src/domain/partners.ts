import { z } from 'zod';
import { type CidrRange, type IpAddress, isInRanges, normalizeIp, parseCidr } from '@lms/partner-auth';

/**
 * The gateway's partner registry, read from PARTNERS_FILE:
 *
 *   { "partners": [ { "iss": "partner.example.org", "allowedIps": ["203.0.113.0/24"], "lmsUrl": "https://lms.example.com" } ] }
 *
 * Rules (beyond the CIDR rules in cidr.ts):
 * - `iss` is a non-empty string of at most 253 characters (the spec's limit), compared exactly
 *   (case-sensitive, as JWT compares StringOrURI values); each `iss` appears once.
 * - `allowedIps` has at least one CIDR: a partner nobody may call from is a mistake; an allow-all
 *   range (`0.0.0.0/0`, `::/0`, `::ffff:0:0/96`) is refused: it would turn the check off.
 * - `lmsUrl` is an http(s) URL without credentials, query or fragment; a path prefix is kept and a
 *   trailing slash dropped, so the redirect is `{lmsUrl}/sso/verify?token=...`.
 * - Unknown keys are refused, so a typo such as `allowedIP` fails loudly instead of being ignored.
 * Nothing in here knows about HTTP or files: the partners plugin reads the file and watches it.
 */

export interface Partner {
  iss: string;
  allowedIps: CidrRange[];
  /** Normalized: no trailing slash. */
  lmsUrl: string;
}

const Cidr = z.string().transform((text, ctx) => {
  const parsed = parseCidr(text);
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: `"${text}" is not a valid CIDR: ${parsed.error}` });
    return z.NEVER;
  }
  // 0.0.0.0/0, ::/0 and ::ffff:0:0/96 (IPv4 allow-all once mapped, parsed as 0.0.0.0/0) let the
  // whole internet act for the partner: the allowlist would check nothing.
  if (parsed.range.prefix === 0) {
    ctx.addIssue({
      code: 'custom',
      message: `"${text}" allows every address, which turns the allowlist off: list the partner's real addresses (the backends that call the gateway)`,
    });
    return z.NEVER;
  }
  return parsed.range;
});

const LmsUrl = z.string().transform((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: `"${text}" is not a URL` });
    return z.NEVER;
  }
  const problem =
    url.protocol !== 'http:' && url.protocol !== 'https:'
      ? 'must be an http or https URL'
      : url.username || url.password
        ? 'must not carry credentials'
        : url.search || url.hash || text.includes('?') || text.includes('#')
          ? 'must not have a query or fragment'
          : undefined;
  if (problem) {
    ctx.addIssue({ code: 'custom', message: `"${text}" ${problem}` });
    return z.NEVER;
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
});

const PartnerEntry = z.strictObject({
  iss: z.string().min(1, 'iss must be a non-empty string').max(253, 'iss is longer than 253 characters'),
  allowedIps: z.array(Cidr).min(1, 'allowedIps must list at least one CIDR'),
  lmsUrl: LmsUrl,
});

const PartnersFile = z.strictObject({
  partners: z.array(PartnerEntry),
});

/**
 * `iss` values that appear more than once, as problems. Checked on the raw JSON rather than in
 * the zod schema so a duplicate is reported together with any other bad entry (zod skips
 * refinements once an element has failed).
 */
function duplicateIssuers(raw: unknown): Array<{ path: PropertyKey[]; message: string }> {
  const partners = raw && typeof raw === 'object' ? (raw as { partners?: unknown }).partners : undefined;
  if (!Array.isArray(partners)) return [];
  const firstIndex = new Map<string, number>();
  const problems: Array<{ path: PropertyKey[]; message: string }> = [];
  partners.forEach((entry, index) => {
    const iss = entry && typeof entry === 'object' ? (entry as { iss?: unknown }).iss : undefined;
    if (typeof iss !== 'string') return;
    const earlier = firstIndex.get(iss);
    if (earlier === undefined) firstIndex.set(iss, index);
    else problems.push({ path: ['partners', index, 'iss'], message: `duplicate iss "${iss}" (also partners[${earlier}])` });
  });
  return problems;
}

export class PartnersFileError extends Error {
  override name = 'PartnersFileError';
}

/** `partners[1] (iss "b.example").allowedIps[0]`: where an issue is, in words an operator can find. */
function describePath(path: readonly PropertyKey[], raw: unknown): string {
  let text = '';
  let node: unknown = raw;
  for (const key of path) {
    text += typeof key === 'number' ? `[${key}]` : `${text ? '.' : ''}${String(key)}`;
    node = node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined;
    if (typeof key === 'number' && node && typeof node === 'object' && typeof (node as { iss?: unknown }).iss === 'string') {
      text += ` (iss "${(node as { iss: string }).iss}")`;
    }
  }
  return text || '(top level)';
}

/**
 * Parses the partners file's text. Throws PartnersFileError naming the file and every bad entry,
 * one per line.
 */
export function parsePartnersFile(text: string, source: string): PartnerRegistry {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new PartnersFileError(`Invalid partners file ${source}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = PartnersFile.safeParse(raw);
  const problems = [...(parsed.success ? [] : parsed.error.issues), ...duplicateIssuers(raw)];
  if (!parsed.success || problems.length > 0) {
    const lines = problems.map((issue) => `  ${describePath(issue.path, raw)}: ${issue.message}`);
    throw new PartnersFileError(`Invalid partners file ${source}:\n${lines.join('\n')}`);
  }
  return new PartnerRegistry(parsed.data.partners);
}

export type AccessDecision =
  | { ok: true; partner: Partner }
  | { ok: false; reason: 'unknown_issuer' }
  | { ok: false; reason: 'ip_not_allowed'; partner: Partner };

export class PartnerRegistry {
  private readonly byIssuer: Map<string, Partner>;

  constructor(partners: readonly Partner[]) {
    this.byIssuer = new Map(partners.map((p) => [p.iss, p]));
  }

  get size(): number {
    return this.byIssuer.size;
  }

  issuers(): string[] {
    return [...this.byIssuer.keys()];
  }

  find(iss: string): Partner | undefined {
    return this.byIssuer.get(iss);
  }

  /**
   * May a caller at `ip` act for `iss`? The IP is compared after `ipaddr.process()`, so
   * `::ffff:127.0.0.1` matches `127.0.0.0/8`; an unparsable IP matches nothing.
   */
  checkAccess(iss: string, ip: string | undefined): AccessDecision {
    const partner = this.byIssuer.get(iss);
    if (!partner) return { ok: false, reason: 'unknown_issuer' };
    const address = normalizeIp(ip);
    if (!address || !isInRanges(address, partner.allowedIps)) return { ok: false, reason: 'ip_not_allowed', partner };
    return { ok: true, partner };
  }
}

/** How an IP appears in messages: the normalized form compared (IPv4 for a mapped address), else as received. */
export function displayIp(ip: string | undefined): string {
  const address: IpAddress | undefined = normalizeIp(ip);
  return address ? address.toString() : String(ip ?? 'unknown');
}
