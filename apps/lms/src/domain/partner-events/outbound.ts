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

/** Whether an address is a public unicast one (not loopback, private, link-local, metadata, CGNAT, reserved...). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
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
