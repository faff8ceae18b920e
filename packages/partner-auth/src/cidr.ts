import ipaddr from 'ipaddr.js';

/**
 * CIDR ranges for the partners' allowlists and both apps' TRUST_PROXY, parsed strictly. ipaddr.js alone is
 * too lenient for configuration: it reads `010.0.0.0/8` as octal (8.0.0.0/8) and `0x7f.1` as
 * 127.0.0.1, so a typo would silently open the wrong range. Rules:
 *
 * - IPv4 is four decimal parts without leading zeros (`10.0.0.0`, not `010.0.0.0`).
 * - IPv6 in any standard text form, without a zone (`fe80::1%eth0` is refused).
 * - The prefix is decimal without leading zeros, 0-32 for IPv4 and 0-128 for IPv6.
 * - A bare address is a single host: /32 for IPv4, /128 for IPv6.
 * - Host bits must be zero (`10.1.2.3/8` is refused, naming `10.0.0.0/8`): such an entry is
 *   nearly always a mistake about which range was meant.
 * - An IPv4-mapped IPv6 range (`::ffff:10.0.0.0/104`) is stored as the IPv4 range it denotes
 *   (`10.0.0.0/8`), because callers are compared after `ipaddr.process()`, which turns a mapped
 *   caller address into plain IPv4.
 */

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

export interface CidrRange {
  address: IpAddress;
  prefix: number;
  /** Canonical text, e.g. `10.0.0.0/8`, `2001:db8::/32`. */
  text: string;
}

export type CidrParseResult = { ok: true; range: CidrRange } | { ok: false; error: string };

const PREFIX = /^(0|[1-9][0-9]{0,2})$/;

function range(address: IpAddress, prefix: number): CidrRange {
  return { address, prefix, text: `${address.toString()}/${prefix}` };
}

/** Parses one CIDR (or bare address) by the rules above; the error says what is wrong with it. */
export function parseCidr(text: string): CidrParseResult {
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);

  let address: IpAddress;
  if (addressText.includes(':')) {
    if (addressText.includes('%')) return { ok: false, error: 'an IPv6 zone (%...) is not allowed' };
    if (!ipaddr.IPv6.isValid(addressText)) return { ok: false, error: 'not a valid IPv6 address' };
    // An embedded IPv4 tail (::ffff:1.2.3.4) obeys the IPv4 rule: no leading zeros.
    const embedded = addressText.slice(addressText.lastIndexOf(':') + 1);
    if (embedded.includes('.') && !ipaddr.IPv4.isValidFourPartDecimal(embedded)) {
      return { ok: false, error: 'the embedded IPv4 part must be four decimal parts without leading zeros' };
    }
    address = ipaddr.IPv6.parse(addressText);
  } else {
    if (!ipaddr.IPv4.isValidFourPartDecimal(addressText)) {
      const leadingZero = /(^|\.)0[0-9]/.test(addressText) && ipaddr.IPv4.isValid(addressText);
      return {
        ok: false,
        error: leadingZero
          ? 'leading zeros are not allowed in an IPv4 address (they are read as octal by some tools)'
          : 'not a valid IPv4 address (four decimal parts 0-255 expected)',
      };
    }
    address = ipaddr.IPv4.parse(addressText);
  }

  const maxPrefix = address.kind() === 'ipv4' ? 32 : 128;
  let prefix = maxPrefix;
  if (prefixText !== undefined) {
    if (!PREFIX.test(prefixText)) return { ok: false, error: `prefix "/${prefixText}" is not a decimal number` };
    prefix = Number(prefixText);
    if (prefix > maxPrefix) {
      return { ok: false, error: `prefix /${prefix} is out of range for ${address.kind() === 'ipv4' ? 'IPv4' : 'IPv6'} (0-${maxPrefix})` };
    }
  }

  const network = networkAddress(address, prefix);
  if (network.toString() !== address.toString()) {
    return { ok: false, error: `host bits are set; did you mean ${network.toString()}/${prefix}?` };
  }

  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && prefix >= 96) {
    return { ok: true, range: range(address.toIPv4Address(), prefix - 96) };
  }
  return { ok: true, range: range(address, prefix) };
}

function networkAddress(address: IpAddress, prefix: number): IpAddress {
  const bytes = address.toByteArray();
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    bytes[i] = bytes[i] & ((0xff << (8 - keep)) & 0xff);
  }
  return ipaddr.fromByteArray(bytes);
}

/**
 * A caller address as compared against ranges: IPv4-mapped IPv6 (`::ffff:127.0.0.1`) becomes
 * IPv4. Undefined when the text is not an IP address at all.
 */
export function normalizeIp(text: string | undefined): IpAddress | undefined {
  if (!text || !ipaddr.isValid(text)) return undefined;
  try {
    return ipaddr.process(text);
  } catch {
    return undefined;
  }
}

/** True when the address lies in one of the ranges (IPv4 only against IPv4, IPv6 against IPv6). */
export function isInRanges(address: IpAddress, ranges: readonly CidrRange[]): boolean {
  for (const r of ranges) {
    if (r.address.kind() !== address.kind()) continue;
    if (
      address.kind() === 'ipv4'
        ? (address as ipaddr.IPv4).match(r.address as ipaddr.IPv4, r.prefix)
        : (address as ipaddr.IPv6).match(r.address as ipaddr.IPv6, r.prefix)
    ) {
      return true;
    }
  }
  return false;
}

/** Parses a list of CIDRs; throws one Error naming every bad entry (`where` says which setting). */
export function parseCidrList(texts: readonly string[], where: string): CidrRange[] {
  const ranges: CidrRange[] = [];
  const problems: string[] = [];
  for (const text of texts) {
    const parsed = parseCidr(text);
    if (parsed.ok) ranges.push(parsed.range);
    else problems.push(`${where}: "${text}" is not a valid CIDR: ${parsed.error}`);
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return ranges;
}

/**
 * A TRUST_PROXY setting (comma-separated CIDRs of our own proxies, empty: none) as canonical
 * ranges for Fastify's `trustProxy`. Parsed by the rules above (proxy-addr alone would read
 * `010.0.0.0/8` as 8.0.0.0/8), and a range that holds every address (`0.0.0.0/0`, `::/0`,
 * `::ffff:0.0.0.0/96`) is refused: every peer would be a trusted proxy, so any caller could name
 * any address in X-Forwarded-For (and pass an IP allowlist, or escape a per-IP limit). Throws one
 * Error naming every bad entry.
 */
export function parseTrustProxy(setting: string): string[] {
  const texts = setting
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const ranges = parseCidrList(texts, 'TRUST_PROXY');
  const everything = ranges.flatMap((range, i) =>
    range.prefix === 0
      ? [
          `TRUST_PROXY: "${texts[i]}" holds every address, so any caller could name any address in X-Forwarded-For; ` +
            'list the ranges of your own proxies only',
        ]
      : [],
  );
  if (everything.length > 0) throw new Error(everything.join('\n'));
  return ranges.map((range) => range.text);
}
