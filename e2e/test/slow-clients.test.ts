import { connect, type Socket } from 'node:net';
import t from 'tap';
import { startGateway, startLms } from './helpers/services.js';

// Slow clients, on raw sockets, against both apps listening for real: a body that trickles in
// (Content-Length 4000, then a byte at a time, as the trust review's 150 sockets did), headers that
// never end, and a keep-alive socket left idle. Each must be cut by the server (a 408, or a close),
// while a client that takes its time within the limits is answered. The limits are small here;
// the defaults are in the README (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS).

const limits = { HEADERS_TIMEOUT_MS: 400, REQUEST_TIMEOUT_MS: 800, KEEP_ALIVE_TIMEOUT_MS: 400 };
/** The longest a test waits for the server to act; far beyond the limits, so it never decides a result by itself. */
const GIVE_UP_MS = 15_000;

const lms = await startLms(t, limits);
const gateway = await startGateway(t, [], limits);
const gatewayUrl = await gateway.listen({ port: 0, host: '127.0.0.1' });

interface Outcome {
  /** What the server wrote before the socket closed. */
  received: string;
  /** Whether the server closed the socket (rather than us, giving up). */
  closedByServer: boolean;
  /** Bytes we had sent when it closed. */
  sent: number;
}

/** Opens a socket, writes `first`, then `drip` one byte at a time every `everyMs` until the server closes it or GIVE_UP_MS. */
function trickle(url: string, first: string, drip: string, everyMs: number): Promise<Outcome> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname);
    let received = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => finish(false), GIVE_UP_MS);
    function finish(closedByServer: boolean) {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ received, closedByServer, sent });
    }
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      received += chunk;
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => {});
    socket.on('connect', () => {
      socket.write(first);
      sent += first.length;
      let i = 0;
      timer = setInterval(() => {
        if (i >= drip.length) return;
        socket.write(drip[i++]!);
        sent += 1;
      }, everyMs);
    });
  });
}

for (const [name, url, path] of [
  ['lms', lms.url, '/language'],
  ['gateway', gatewayUrl, '/api/courses'],
] as const) {
  t.test(`${name}: a body that trickles in is cut with a 408`, async (t) => {
    const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 4000\r\n\r\n`;
    const outcome = await trickle(url, head, 'a'.repeat(4000), 50);
    t.ok(outcome.closedByServer, 'the server closed the socket');
    // The gateway refuses a call without a bearer token before it reads the body (a 401 first).
    t.match(outcome.received, /HTTP\/1\.1 408 Request Timeout\r\n/, 'with 408 Request Timeout');
    t.ok(outcome.sent < head.length + 4000, `before the body was complete (${outcome.sent - head.length} of 4000 bytes)`);
  });

  t.test(`${name}: headers that never end are cut with a 408`, async (t) => {
    const outcome = await trickle(url, `GET /healthz HTTP/1.1\r\nHost: x\r\n`, `X-Slow: ${'z'.repeat(4000)}`, 50);
    t.ok(outcome.closedByServer, 'the server closed the socket');
    t.match(outcome.received, /^HTTP\/1\.1 408 /);
  });

  t.test(`${name}: an idle keep-alive socket is closed after its request was answered`, async (t) => {
    const outcome = await trickle(url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '', 50);
    t.ok(outcome.closedByServer, 'the server closed the idle socket');
    t.match(outcome.received, /^HTTP\/1\.1 200 /, 'after answering the request');
    t.match(outcome.received, /keep-alive/i, 'which it had kept alive');
  });

  t.test(`${name}: a client within the limits is answered`, async (t) => {
    // Headers in two parts, 100 ms apart: well inside both limits.
    const outcome = await trickle(url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', '\r\n', 100);
    t.match(outcome.received, /^HTTP\/1\.1 200 /);
  });
}
