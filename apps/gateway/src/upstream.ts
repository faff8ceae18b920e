import http from 'node:http';
import https from 'node:https';

/** What the LMS answered: status, headers and the body as text. */
export interface UpstreamAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export class UpstreamTimeout extends Error {
  override name = 'UpstreamTimeout';
  /** A proxy between the gateway and the LMS gave up waiting (its own 504), rather than the gateway. */
  byProxy = false;
}

export class UpstreamUnreachable extends Error {
  override name = 'UpstreamUnreachable';
}

/**
 * The answer, if it is the LMS's. A load balancer between the gateway and the LMS answers with a
 * page of its own when no LMS instance answered: 502 or 503 (every instance down, or the one it
 * chose failed), 504 (the instance did not answer in the balancer's time). The LMS's own answers,
 * its 503s included, are JSON; a 502-504 that is not is the balancer's, and means what a refused
 * connection means: the LMS could not be reached (or did not answer in time).
 */
export function fromTheLms(answer: UpstreamAnswer): UpstreamAnswer {
  if (answer.status < 502 || answer.status > 504 || isJson(answer.body)) return answer;
  if (answer.status === 504) {
    const timeout = new UpstreamTimeout('a proxy in front of the LMS answered 504');
    timeout.byProxy = true;
    throw timeout;
  }
  throw new UpstreamUnreachable(`a proxy in front of the LMS answered ${answer.status}: no LMS instance answered`);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// Kept-alive connections to the partners' LMSs, without Nagle's delay: a forwarded request is
// headers and a small body, and waiting to coalesce them costs milliseconds per call.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

/**
 * One request to an LMS with node's http client (lighter per call than fetch), the whole answer
 * read as text. Rejects with UpstreamTimeout when the answer is not complete within `timeoutMs`,
 * and with the socket's error when the LMS cannot be reached.
 */
export function requestUpstream(
  target: string,
  options: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number },
): Promise<UpstreamAnswer> {
  const url = new URL(target);
  const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
  const client = protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = client.request(url, { method: options.method, headers, agent: agents[protocol] }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', fail);
    });
    req.setNoDelay(true);
    const timer = setTimeout(() => req.destroy(new UpstreamTimeout(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    function fail(err: Error) {
      clearTimeout(timer);
      reject(err);
    }
    req.on('error', fail);
    req.end(options.body);
  });
}
