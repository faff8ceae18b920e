import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// Outbound requests to partners' URLs (docs/architecture.md, "Outbound safety"): https only
// unless the operator allows http; the address actually connected to must be public unless the
// operator allows private ones (checked in the socket's own DNS lookup, so a name that resolves
// to 10.x on the second lookup is caught too); redirects are not followed (an answer is an
// answer); the answer read is bounded; the whole attempt has a deadline.

export interface OutboundPolicy {
  /** Plain http:// URLs allowed (the demo on a laptop). */
  allowHttp: boolean;
  /** Loopback, private, link-local (metadata), unique-local and other non-public addresses allowed. */
  allowPrivate: boolean;
}

export class BlockedUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockedUrlError';
  }
}

/**
 * IPv6 prefixes that carry an IPv4 address, and where it sits: an address under one of them
 * reaches (through the host's own tunnel, a NAT64 gateway, a relay or the kernel's mapping) the
 * IPv4 address inside it, so that address is what must be public. ipaddr.js labels `::/96`
 * (IPv4-compatible, `[::127.0.0.1]` written `[::7f00:1]` by the URL parser) "unicast", which let
 * `[::7f00:1]` and `[::a9fe:a9fe]` (the metadata address) through (issue 40).
 */
const IPV4_EMBEDDINGS: { prefix: [ipaddr.IPv6, number]; embedded: (bytes: number[]) => number[][] }[] = [
  // IPv4-compatible (RFC 4291 2.5.5.1, deprecated): ::a.b.c.d.
  { prefix: ipaddr.IPv6.parseCIDR('::/96'), embedded: (b) => [b.slice(12)] },
  // IPv4-mapped (::ffff:a.b.c.d): ipaddr.process() already turns it into the IPv4 address; kept for completeness.
  { prefix: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), embedded: (b) => [b.slice(12)] },
  // IPv4-translated (RFC 6145 SIIT): ::ffff:0:a.b.c.d.
  { prefix: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), embedded: (b) => [b.slice(12)] },
  // NAT64 well-known prefix (RFC 6052): 64:ff9b::a.b.c.d.
  { prefix: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), embedded: (b) => [b.slice(12)] },
  // Local-use NAT64 (RFC 8215): where the IPv4 address sits depends on the operator's prefix length: never public.
  { prefix: ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'), embedded: () => [[0, 0, 0, 0]] },
  // 6to4 (RFC 3056): 2002:aabb:ccdd::/48 is a.b.c.d's.
  { prefix: ipaddr.IPv6.parseCIDR('2002::/16'), embedded: (b) => [b.slice(2, 6)] },
  // Teredo (RFC 4380): the server's address in bits 32-63, the client's inverted in the last 32.
  { prefix: ipaddr.IPv6.parseCIDR('2001::/32'), embedded: (b) => [b.slice(4, 8), b.slice(12).map((x) => x ^ 0xff)] },
];

/** The IPv4 addresses an IPv6 address carries (IPV4_EMBEDDINGS), or null when it carries none. */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  for (const { prefix, embedded } of IPV4_EMBEDDINGS) {
    if (address.match(prefix)) return embedded(address.toByteArray()).map((bytes) => new ipaddr.IPv4(bytes));
  }
  return null;
}

/**
 * Whether an address is a public unicast one (not loopback, private, link-local, metadata, CGNAT,
 * reserved...). An IPv6 address that carries an IPv4 address (IPv4-compatible, -mapped,
 * -translated, NAT64, 6to4, Teredo) is public when every IPv4 address it carries is: ipaddr.js's
 * label alone is not trusted for those. Any other IPv6 address must be labelled unicast.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const carried = embeddedIPv4(parsed as ipaddr.IPv6);
  if (carried !== null) return carried.every((v4) => v4.range() === 'unicast');
  return parsed.range() === 'unicast';
}

/** Checks a URL's form (scheme, literal address); the resolved address is checked when connecting. */
export function checkUrl(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BlockedUrlError(`not a URL: ${raw}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw new BlockedUrlError(policy.allowHttp ? 'the URL must be http(s)' : 'the URL must be https (plain http is not allowed)');
  }
  if (url.username || url.password) throw new BlockedUrlError('the URL must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !policy.allowPrivate && !isPublicAddress(host)) {
    throw new BlockedUrlError(`${host} is not a public address`);
  }
  return url;
}

/** A DNS lookup that refuses non-public addresses (used by the socket itself: no rebinding gap). */
function guardedLookup(policy: OutboundPolicy) {
  return (hostname: string, options: object, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const allowed = policy.allowPrivate ? list : list.filter((a) => isPublicAddress(a.address));
      if (allowed.length === 0) {
        return callback(new BlockedUrlError(`${hostname} resolves to ${list.map((a) => a.address).join(', ')}: not a public address`), []);
      }
      if ((options as { all?: boolean }).all) return callback(null, allowed);
      return callback(null, allowed[0].address, allowed[0].family);
    });
  };
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** At most maxBytes of the body. */
  body: string;
}

/** POSTs `body` and reads at most `maxBytes` of the answer, within `timeoutMs` for the whole exchange. */
export function postBounded(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: { policy: OutboundPolicy; timeoutMs: number; maxBytes: number },
): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    let url: URL;
    try {
      url = checkUrl(rawUrl, options.policy);
    } catch (err) {
      reject(err);
      return;
    }
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      lookup: guardedLookup(options.policy) as never,
      agent: false,
    });
    const done = (fn: () => void) => {
      clearTimeout(timer);
      fn();
    };
    // The deadline settles the attempt by itself, whatever the socket does next (a partner that
    // sends its headers and then trickles or holds the body is cut here too).
    const timer = setTimeout(() => {
      const err = new Error(`timed out after ${options.timeoutMs} ms`);
      req.destroy(err);
      done(() => reject(err));
    }, options.timeoutMs);
    req.on('error', (err) => done(() => reject(err)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () =>
        done(() => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('data', (chunk: Buffer) => {
        if (size >= options.maxBytes) return;
        const room = options.maxBytes - size;
        chunks.push(chunk.subarray(0, room));
        size += Math.min(room, chunk.length);
        // Enough read: the rest is not wanted (a partner answering gigabytes cannot hold a worker).
        if (size >= options.maxBytes) {
          res.destroy();
          finish();
        }
      });
      res.on('end', finish);
      res.on('error', (err) => done(() => reject(err)));
    });
    req.end(body);
  });
}
