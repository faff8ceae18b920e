import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Test } from 'tap';
import { tcpProxy } from './tcp-proxy.js';

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
 * A TCP proxy (./tcp-proxy.ts) in front of the test Redis, which the test can cut, stall and
 * restore, to play a Redis outage and its end. `url()` is where the app should connect.
 */
export async function redisProxy(t: Test) {
  const target = new URL(testRedisUrl);
  const proxy = await tcpProxy(t, { host: target.hostname, port: Number(target.port || 6379) });
  return { url: () => `redis://127.0.0.1:${proxy.port}`, stop: proxy.cut, start: proxy.restore, proxy };
}
