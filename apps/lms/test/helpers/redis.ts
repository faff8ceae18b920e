import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Test } from 'tap';

/** The Redis the tests may use (TEST_REDIS_URL, default the machine's local one). */
export const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A key prefix of its own for one test, a client to look at Redis with, and a teardown that
 * deletes every key under the prefix.
 */
export function redisForTest(t: Test, name: string): { keyPrefix: string; redis: Redis } {
  const keyPrefix = `lms-test:${name}:${randomBytes(6).toString('hex')}:`;
  const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  t.teardown(async () => {
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  return { keyPrefix, redis };
}

/** A local port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A TCP pass-through to the test Redis on a fixed local port, which the test can cut (every
 * connection dropped, port closed) and restore, to play a Redis outage and its end.
 */
export async function redisProxy(t: Test) {
  const net = await import('node:net');
  const target = new URL(testRedisUrl);
  const sockets = new Set<import('node:net').Socket>();
  let server: import('node:net').Server | null = null;
  let port = 0;

  async function start() {
    server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 6379), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  }
  async function stop() {
    if (!server) return;
    const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await closing;
    server = null;
  }
  await start();
  t.teardown(stop);
  return { url: () => `redis://127.0.0.1:${port}`, stop, start };
}
