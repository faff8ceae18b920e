import net from 'node:net';
import type { Test } from 'tap';

/**
 * A TCP pass-through on a local port to a real server (PostgreSQL, Redis), for causing faults
 * for real: the app under test connects to the proxy, and the test breaks the path between them.
 *
 * - `cut()`: every connection is destroyed and the port refuses new ones (a server that died or
 *   a network that dropped). `restore()` listens again on the same port.
 * - `stall()`: connections stay open and new ones are accepted, but no byte passes in either
 *   direction (a server whose processes were stopped, a black-holed network). `resume()` lets the
 *   held bytes through.
 *
 * Closed with the test.
 */
export interface TcpProxy {
  host: string;
  /** The proxy's port (kept across cut() and restore()). */
  readonly port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  stall(): void;
  resume(): void;
  /** Connections currently open through the proxy. */
  readonly openConnections: number;
}

export async function tcpProxy(t: Test, target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  let server: net.Server | null = null;
  let port = 0;
  let stalled = false;

  function pipe(from: net.Socket, to: net.Socket) {
    from.on('data', (chunk) => {
      // While stalled, hold the bytes: the peer sees a connection that simply stops answering.
      if (stalled) {
        from.pause();
        from.unshift(chunk);
        return;
      }
      if (!to.write(chunk)) from.pause();
    });
    to.on('drain', () => {
      if (!stalled) from.resume();
    });
  }

  async function listen() {
    server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      const pair = { client, upstream };
      pairs.add(pair);
      const close = () => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      for (const s of [client, upstream]) {
        s.setNoDelay(true);
        s.on('close', close);
        s.on('error', close);
      }
      if (stalled) {
        client.pause();
        upstream.pause();
      }
      pipe(client, upstream);
      pipe(upstream, client);
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => {
        server!.off('error', reject);
        resolve();
      });
    });
    port = (server.address() as net.AddressInfo).port;
  }

  async function cut() {
    if (!server) return;
    const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
    await closing;
    server = null;
  }

  await listen();
  t.teardown(cut);

  return {
    host: '127.0.0.1',
    get port() {
      return port;
    },
    cut,
    async restore() {
      if (server) return;
      stalled = false;
      await listen();
    },
    stall() {
      stalled = true;
      for (const { client, upstream } of pairs) {
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      stalled = false;
      for (const { client, upstream } of pairs) {
        client.resume();
        upstream.resume();
      }
    },
    get openConnections() {
      return pairs.size;
    },
  };
}
