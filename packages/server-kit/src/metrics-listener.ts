// The Prometheus endpoint of both apps: a small HTTP listener of its own (METRICS_HOST,
// METRICS_PORT), never a route of the public port. A reverse proxy or load balancer in front of
// the public port forwards every path it is given; a metrics route there would be one proxy rule
// away from the internet, with the partners, routes and error rates it shows. A second socket,
// on the loopback by default, cannot be exposed by a mistake in the proxy's configuration.

import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What a scrape answers: the registry's text exposition and its content type. */
export interface MetricsExposition {
  contentType: string;
  body: string;
}

export interface MetricsListenerOptions {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  render: () => Promise<MetricsExposition>;
  /** A scrape whose rendering failed (answered 500); the listener keeps serving. */
  onRenderError?: (err: unknown) => void;
}

export interface MetricsListener {
  /** `http://host:port/metrics`. */
  readonly url: string;
  readonly port: number;
  /** Stops listening and ends its connections (Prometheus keeps its scrape connection open). */
  close(): Promise<void>;
}

/** The one path served; anything else is a 404, any method but GET and HEAD a 405. */
export const METRICS_PATH = '/metrics';

/**
 * Listens on `host:port` and answers `GET /metrics` with `render()`. Rejects when the address
 * cannot be bound (EADDRINUSE, EADDRNOTAVAIL...), so the server can say so at start: a port held
 * by another process would answer the scrape with that process's numbers.
 */
export async function listenForMetrics(options: MetricsListenerOptions): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== METRICS_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`Not found: metrics are at ${METRICS_PATH}\n`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed\n');
      return;
    }
    options.render().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        options.onRenderError?.(err);
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('The metrics could not be collected\n');
      },
    );
  });
  // A scrape is one small GET: nobody needs minutes to send its headers.
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}${METRICS_PATH}`,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
